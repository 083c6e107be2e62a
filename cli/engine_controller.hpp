// `perfdm engine --controller HOST:PORT`: perfdm as DyPer's agent, dialing the socket server
// of DyPer's controller for every process the engine observes
// (actors/dyper_controller_dialer_actor.hpp).
#pragma once

#include <caf/actor.hpp>
#include <ostream>
#include <string>

#include "cli/xml_session.hpp"

namespace perfdm {

class engine_controller {
 public:
  engine_controller() = default;
  engine_controller(const engine_controller&) = delete;
  engine_controller& operator=(const engine_controller&) = delete;
  ~engine_controller() { stop(); }

  // Starts dialing `address` (HOST:PORT) for the processes of the data manager of `s` (LOG
  // writes to `default_log` unless it names a FILE) and prints `perfdm: controller HOST:PORT`
  // to `err`. On a bad address or failure prints why to `err` and returns false.
  bool start(session& s, const std::string& address, const std::string& default_log,
             std::ostream& err);

  // Closes every connection. Call before the session ends.
  void stop();

  bool running() const { return static_cast<bool>(dialer_); }

 private:
  caf::actor dialer_;
  caf::actor log_writer_;
};

}  // namespace perfdm
