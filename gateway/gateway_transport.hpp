// What the gateway's transports (the TCP gateway's sockets, gateway/gateway_io.hpp, and the
// dashboard's WebSocket sessions, http/websocket_session.hpp) and the connection actor that
// serves a client (actors/gateway_connection_actor.hpp) say to each other: the transport
// carries bytes, the actor the command language.
#pragma once

#include <caf/atom.hpp>
#include <cstddef>
#include <string>
#include <string_view>

namespace perfdm {

// What a connection writes to: one client's socket with its framing.
class gateway_transport {
 public:
  struct write_result {
    std::size_t unsent = 0;  // bytes handed over and not yet taken by the network
    bool paused = false;     // reading stopped: too much output waits
  };
  virtual ~gateway_transport() = default;
  // One reply, one stream event (each a line of XML without framing).
  virtual write_result send_reply(std::string_view xml) = 0;
  virtual write_result send_event(std::string_view xml) = 0;
  // While too many requests wait for their turn: not read until released.
  virtual void hold_reading(bool hold) = 0;
  // Both directions end now; output not sent is dropped (`why` may be told to the peer).
  virtual void close(const std::string& why) = 0;
  virtual bool paused() const = 0;
  // How the request recording names the connection ("tcp 3", "ws 2").
  virtual std::string origin() const = 0;
};

// What a transport sends its connection's actor:
// (gateway_input_atom, std::string bytes): bytes read, in order, cut anywhere (DyPer framing);
using gateway_input_atom = caf::atom_constant<caf::atom("gwinput")>;
// (gateway_message_atom, std::string text): one whole message (a WebSocket frame);
using gateway_message_atom = caf::atom_constant<caf::atom("gwmessage")>;
// (gateway_closed_atom): the peer closed the connection (or it failed): nothing more comes;
using gateway_closed_atom = caf::atom_constant<caf::atom("gwclosed")>;
// (gateway_drained_atom): output drained after a pause; the transport reads again.
using gateway_drained_atom = caf::atom_constant<caf::atom("gwdrained")>;

}  // namespace perfdm
