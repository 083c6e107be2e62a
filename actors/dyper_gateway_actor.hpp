// The DyPer gateway: the XML command language over TCP (docs/PROTOCOL.md, "TCP endpoint").
// One I/O thread (gateway/gateway_io.hpp) accepts and reads every connection; each connection
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

#include "actors/gateway_connection_actor.hpp"

namespace perfdm {

class gateway_socket;

// Spawns the actor of a connection the engine dialed to a DyPer controller for the process
// `agent` (actors/dyper_controller_dialer_actor.hpp), with DyPer's TCP framing. Only `targets` and
// `log_writer` of `options` are used, with the limits.
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
