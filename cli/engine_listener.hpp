// `perfdm engine --listen HOST:PORT`: the DyPer gateway in front of a session's data manager.
#pragma once

#include <atomic>
#include <caf/actor.hpp>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>

#include "cli/xml_session.hpp"

namespace perfdm {

class engine_listener {
 public:
  engine_listener() = default;
  engine_listener(const engine_listener&) = delete;
  engine_listener& operator=(const engine_listener&) = delete;
  ~engine_listener() { stop(); }

  // Starts listening on `address` (HOST:PORT) for the data manager of `s` (LOG writes to
  // `default_log` unless it names a FILE) and prints `perfdm: listening on HOST:PORT` to
  // `err`. On failure prints why to `err` and returns false.
  // `open_connections`, if given, counts the open connections (the dashboard shows it).
  bool start(session& s, const std::string& address, const std::string& default_log,
             std::ostream& err,
             std::shared_ptr<std::atomic<std::int64_t>> open_connections = nullptr);

  // Stops the gateway: every connection closes. Call before the session ends.
  void stop();

  bool running() const { return static_cast<bool>(gateway_); }

 private:
  caf::actor gateway_;
  caf::actor log_writer_;
};

}  // namespace perfdm
