// perfdm as DyPer's agent (engine --controller HOST:PORT, docs/PROTOCOL.md §9): for every
// process the engine observes (WATCH or ATTACH), a connection dialed to the socket server of
// DyPer's controller (DymonDyperServer), which the controller drives as it drove its own
// in-process agent. The connections are the gateway's (actors/dyper_gateway_actor.hpp),
// read by an I/O thread of their own (gateway/gateway_io.hpp).
//
// A controller that is not there, or goes away, costs only that process's connection: the
// dialer says so and dials again, waiting twice as long each time (up to max_retry), until
// the process ends.
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/expected.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace perfdm {

struct controller_options {
  std::string host = "127.0.0.1";  // where the controller's socket server listens
  std::uint16_t port = 0;
  std::string hostname;  // the host part of DyPer's process ids; empty: this machine's name
  caf::actor data_manager;
  caf::actor log_writer;  // answers LOG; none: LOG answers INTERNAL
  std::chrono::milliseconds first_retry{250};
  std::chrono::milliseconds max_retry{8000};
  std::chrono::milliseconds connect_timeout{2000};
  // Where the dialer reports connections made, lost and failed; none: standard error.
  std::function<void(const std::string&)> note;
};

// Starts the dialer (send it an exit message to close every connection). Errors: the I/O
// thread could not be started.
caf::expected<caf::actor> start_dyper_controller_dialer(caf::actor_system& sys,
                                                        controller_options options);

// DyPer's id of process `pid` on `hostname`: "<pid>@<hostname>".
std::string dyper_process_id(std::int32_t pid, const std::string& hostname);

}  // namespace perfdm
