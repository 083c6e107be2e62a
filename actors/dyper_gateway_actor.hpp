// The DyPer gateway: the XML command language over TCP (docs/PROTOCOL.md, "TCP endpoint").
// One I/O thread (actors/gateway_io.hpp) accepts and reads every connection; each connection
// gets its own actor that splits the byte stream into messages (messages/dyper_framing.hpp),
// translates them with the XML codec, sends them one at a time to the actor serving their
// target, and writes the replies, in request order, and the events of the streams it opened
// straight to its socket.
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/expected.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "messages/xml_codec.hpp"

namespace perfdm {

struct gateway_options {
  std::string host = "127.0.0.1";  // the address to listen on
  std::uint16_t port = 0;          // 0: the system picks one
  // Who serves a request, by target id compared case-insensitively: "DM" is the data
  // manager. Processes that attach later get their own entries.
  std::map<std::string, caf::actor> targets;
  caf::actor log_writer;  // answers write_log (LOG); none: LOG answers INTERNAL
  // A message longer than this gets a LIMIT reply and is skipped up to its trailer.
  std::size_t max_message_bytes = max_request_bytes;
  // Output a client has not read yet: above `pause_output_bytes` the connection stops reading
  // (and so stops sending new requests to the engine) until it drains below a quarter of it;
  // above `max_output_bytes` (stream events keep coming) the client is disconnected and its
  // streams are closed.
  std::size_t pause_output_bytes = 4u << 20;
  std::size_t max_output_bytes = 64u << 20;
  // Where the gateway reports connections that end badly (a partial message, a client too
  // slow); none: standard error.
  std::function<void(const std::string&)> note;
};

// The key under which gateway_options::targets holds the data manager.
inline constexpr const char* data_manager_target = "DM";

// The process a connection speaks for when the engine dialed a DyPer controller (engine
// --controller): the agent's side of DyPer's wire.
struct dyper_agent_identity {
  std::int32_t pid = 0;
  std::string id;  // DyPer's process id, "<pid>@<host>"
};

class gateway_socket;

// Spawns the actor of a connection the engine dialed to a DyPer controller for the process
// `agent` (actors/dyper_controller_dialer.hpp). It says `CONNECT <id>` and
// `<DYPER START='<id>' />`, answers the controller's commands exactly as the gateway answers
// a client's (one reply each, in order), pushes that process's periodic REPORTs, and on the
// process's END says so and closes. Only `targets` and `log_writer` of `options` are used,
// with the limits.
caf::actor spawn_dyper_agent_connection(caf::actor_system& sys,
                                        std::shared_ptr<gateway_socket> socket,
                                        std::shared_ptr<const gateway_options> options,
                                        dyper_agent_identity agent);

// Opens the listening socket and starts the I/O thread. Returns the gateway's actor (send it
// an exit message to stop the gateway and every connection; get_atom asks its port) and the
// port it listens on.
caf::expected<std::pair<caf::actor, std::uint16_t>> start_dyper_gateway(caf::actor_system& sys,
                                                                        gateway_options options);

}  // namespace perfdm
