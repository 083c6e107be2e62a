// One client connection of a gateway that speaks the XML command language: the TCP gateway
// (DyPer's framing, actors/dyper_gateway_actor.hpp) and the dashboard's WebSocket
// (http/websocket_session.hpp) share it, so a request gets the same reply, byte for byte, and
// the same stream events whichever way it came. The connection's actor parses and routes the
// requests one at a time, answers them in request order, closes its streams when the client
// goes (T3), and writes through its transport, which does the framing and the flow control.
#pragma once

#include <atomic>
#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/atom.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "gateway/gateway_transport.hpp"
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
  // Counts the connections open now (the dashboard's status and /metrics show it); shared by
  // every front end of one engine. None: not counted.
  std::shared_ptr<std::atomic<std::int64_t>> open_connections;
};

// The key under which gateway_options::targets holds the data manager.
inline constexpr const char* data_manager_target = "DM";

// The process a connection speaks for when the engine dialed a DyPer controller (engine
// --controller): the agent's side of DyPer's wire.
struct dyper_agent_identity {
  std::int32_t pid = 0;
  std::string id;  // DyPer's process id, "<pid>@<host>"
};

// Spawns the actor serving one connection. With `agent`, the connection is one the engine
// dialed to a DyPer controller for that process: it says `CONNECT <id>` and
// `<DYPER START='<id>' />`, answers the controller's commands exactly as the gateway answers
// a client's (one reply each, in order), pushes that process's periodic REPORTs, and on the
// process's END says so and closes.
caf::actor spawn_gateway_connection(caf::actor_system& sys,
                                    std::shared_ptr<gateway_transport> transport,
                                    std::shared_ptr<const gateway_options> options,
                                    std::optional<dyper_agent_identity> agent = {});

// Reports `what` through options.note, or on standard error.
void gateway_note(const gateway_options& options, const std::string& what);

}  // namespace perfdm
