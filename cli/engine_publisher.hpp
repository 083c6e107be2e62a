// `perfdm engine --publish [HOST:]PORT`: the data manager of a session published as the typed
// actor remote_dm_actor (messages/remote_interface.hpp) for `perfdm client` and daemons.
// Loopback only unless a host is given; port 0 picks one.
#pragma once

#include <CLI/CLI.hpp>
#include <caf/actor.hpp>
#include <ostream>
#include <string>

#include "cli/remote_options.hpp"
#include "cli/xml_session.hpp"
#include "messages/remote_interface.hpp"

namespace perfdm {

struct publish_options {
  std::string address;  // empty: not publishing
  remote_options remote;
};

// Adds --publish and the network options to the engine subcommand.
void add_publish_options(CLI::App& engine, publish_options& o);

// Sets o.configure of `session` so its actor system gets the network options (when
// publishing). False, with the reason on `err`, when the options cannot work.
bool configure_publishing(session_options& session, const publish_options& o, std::ostream& err);

class engine_publisher {
 public:
  engine_publisher() = default;
  engine_publisher(const engine_publisher&) = delete;
  engine_publisher& operator=(const engine_publisher&) = delete;
  ~engine_publisher() { stop(); }

  // Publishes the data manager of `s` on o.address (LOG writes to `default_log` unless it
  // names a FILE) and prints `perfdm: publishing on HOST:PORT` to `err`. Does nothing and
  // returns true when o.address is empty. On failure prints why to `err` and returns false.
  bool start(session& s, const publish_options& o, const std::string& default_log,
             std::ostream& err);

  // Unpublishes; connected clients lose the engine. Call before the session ends.
  void stop();

  bool running() const { return static_cast<bool>(bridge_); }

 private:
  caf::actor_system* system_ = nullptr;
  remote_dm_actor bridge_;
  caf::actor log_writer_;
  std::uint16_t port_ = 0;
  bool tls_ = false;
};

}  // namespace perfdm
