#include "actors/dyper_gateway_actor.hpp"

#include <caf/actor_system.hpp>
#include <caf/atom.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <memory>

#include "gateway/gateway_io.hpp"
#include "messages/dyper_framing.hpp"

namespace perfdm {

namespace {

// ----------------------------------------------------------------------------- transport

// A TCP connection with DyPer's framing: every reply followed by ENDDYPERREPLY, every event
// by ENDDYPERMSG (docs/PROTOCOL.md §8).
class dyper_tcp_transport final : public gateway_transport {
 public:
  explicit dyper_tcp_transport(std::shared_ptr<gateway_socket> socket)
      : socket_(std::move(socket)) {}
  write_result send_reply(std::string_view xml) override { return put(frame_reply(xml)); }
  write_result send_event(std::string_view xml) override { return put(frame_message(xml)); }
  void hold_reading(bool hold) override { socket_->hold_reading(hold); }
  void close(const std::string&) override { socket_->close(); }
  bool paused() const override { return socket_->paused(); }
  std::string origin() const override { return "tcp " + std::to_string(socket_->id()); }

 private:
  write_result put(const std::string& bytes) {
    auto w = socket_->write(bytes);
    return {w.unsent, w.paused};
  }
  std::shared_ptr<gateway_socket> socket_;
};

// ----------------------------------------------------------------------------- gateway

// The actor that stands for the gateway: it owns the I/O thread; its exit stops the thread
// and every connection.
struct gateway_state {
  std::shared_ptr<gateway_io> io;
  static inline const char* name = "dyper_gateway";
};

caf::behavior gateway(caf::stateful_actor<gateway_state>* self, std::shared_ptr<gateway_io> io) {
  self->state.io = std::move(io);
  self->set_exit_handler([=](caf::exit_msg& exit) {
    for (auto& c : self->state.io->stop()) self->send_exit(c, exit.reason);
    self->quit(exit.reason);
  });
  return {[=](caf::get_atom) { return self->state.io->port(); }};
}

}  // namespace

caf::actor spawn_dyper_agent_connection(caf::actor_system& sys,
                                        std::shared_ptr<gateway_socket> socket,
                                        std::shared_ptr<const gateway_options> options,
                                        dyper_agent_identity agent) {
  return spawn_gateway_connection(sys, std::make_shared<dyper_tcp_transport>(std::move(socket)),
                                  std::move(options), std::move(agent));
}

caf::expected<std::pair<caf::actor, std::uint16_t>> start_dyper_gateway(caf::actor_system& sys,
                                                                        gateway_options options) {
  auto shared = std::make_shared<const gateway_options>(std::move(options));
  auto io = gateway_io::listen(
      shared->host, shared->port, shared->pause_output_bytes,
      [&sys, shared](std::shared_ptr<gateway_socket> socket) {
        return spawn_gateway_connection(
            sys, std::make_shared<dyper_tcp_transport>(std::move(socket)), shared);
      },
      [shared](const std::string& what) { gateway_note(*shared, what); });
  if (!io) return io.error();
  auto port = (*io)->port();
  return std::make_pair(sys.spawn(gateway, std::shared_ptr<gateway_io>(std::move(*io))), port);
}

}  // namespace perfdm
