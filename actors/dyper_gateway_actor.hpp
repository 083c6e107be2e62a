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
#include <string>
#include <utility>

#include "actors/gateway_connection.hpp"

namespace perfdm {

// Opens the listening socket and starts the I/O thread. Returns the gateway's actor (send it
// an exit message to stop the gateway and every connection; get_atom asks its port) and the
// port it listens on.
caf::expected<std::pair<caf::actor, std::uint16_t>> start_dyper_gateway(caf::actor_system& sys,
                                                                        gateway_options options);

}  // namespace perfdm
