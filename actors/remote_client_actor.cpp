#include "actors/remote_client_actor.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <map>

#include "messages/message_lists.hpp"
#include "messages/remote_interface.hpp"
#include "messages/xml_codec.hpp"

namespace perfdm {

namespace {

struct client_state {
  caf::actor dm;
  std::shared_ptr<line_printer> out;
  std::shared_ptr<std::atomic<bool>> lost;  // the engine went down (killed, or timed out)
  std::map<std::uint64_t, caf::response_promise> pending;  // by request id
  static inline const char* name = "perfdm.client";
};

using client_actor = caf::stateful_actor<client_state>*;

// Every reply the engine may send (messages/message_lists.hpp), and errors.
template <class... Ts, class F>
caf::behavior reply_handlers(type_list<Ts...>, F f) {
  return caf::behavior{[=](caf::error& e) mutable { f(caf::make_message(std::move(e))); },
                       [=](Ts& x) mutable { f(caf::make_message(std::move(x))); }...};
}

// The actor in this process that sends the requests and is the sink of the streams it
// opens, so that events and replies print in the order they arrive, as the gateway writes
// them. `(run, request, target)` answers (reply was an error, stream opened or no_stream).
template <class... Es>
caf::behavior client_behavior(client_actor self, type_list<Es...>) {
  return {
      [=](client_run_atom, caf::message& request, std::string& target) {
        auto rp = self->make_response_promise();
        if (request.match_elements<open_stream>())
          request = caf::make_message(open_stream{caf::actor_cast<caf::actor>(self)});
        auto handle = self->request(self->state.dm, caf::infinite, request);
        auto id = handle.id().integer_value();
        self->state.pending.emplace(id, rp);
        self->add_multiplexed_response_handler(
            handle.id(), reply_handlers(reply_types{}, [=](caf::message answer) mutable {
              if (self->state.pending.erase(id) == 0) return;  // the engine was lost meanwhile
              bool failed = answer.match_elements<caf::error>();
              self->state.out->line(failed ? print_error(target, answer.get_as<caf::error>(0))
                                           : print_reply(target, answer));
              auto opened = answer.match_elements<stream_opened>()
                                ? answer.get_as<stream_opened>(0).stream.id
                                : no_stream;
              rp.deliver(failed, opened);
            }));
        return rp;
      },
      [=](Es& event) {
        self->state.out->line(print_event(caf::make_message(std::move(event))));
      }...,
  };
}

caf::behavior client(client_actor self, caf::actor dm, std::shared_ptr<line_printer> out,
                     std::shared_ptr<std::atomic<bool>> lost) {
  self->state.dm = dm;
  self->state.out = std::move(out);
  self->state.lost = std::move(lost);
  self->monitor(dm);
  // The engine's proxy goes down when the connection is lost or times out.
  self->set_down_handler([=](caf::down_msg&) {
    *self->state.lost = true;
    for (auto& [id, rp] : self->state.pending)
      rp.deliver(caf::make_error(caf::sec::remote_linking_failed));
    self->state.pending.clear();
  });
  return client_behavior(self, event_types{});
}

}  // namespace

caf::actor spawn_remote_client(caf::actor_system& sys, caf::actor dm,
                               std::shared_ptr<line_printer> out,
                               std::shared_ptr<std::atomic<bool>> lost) {
  return sys.spawn(client, std::move(dm), std::move(out), std::move(lost));
}

}  // namespace perfdm
