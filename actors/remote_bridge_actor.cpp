#include "actors/remote_bridge_actor.hpp"

#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <map>
#include <set>

#include "messages/dm_error.hpp"

namespace perfdm {

namespace {

struct bridge_state {
  caf::actor dm;
  caf::actor log_writer;
  // The streams each remote sink opened and has not closed (T3 when it goes down).
  std::map<caf::actor_addr, std::set<stream_handle>> streams_of;
  static inline const char* name = "perfdm.remote_bridge";
};

using bridge_actor = remote_dm_actor::stateful_pointer<bridge_state>;

// The data manager is dynamically typed; seen through a handle that names the one request,
// delegate() knows the reply type the typed interface requires.
template <class Request>
caf::typed_actor<replies_with_t<Request>> typed(const caf::actor& a) {
  return caf::actor_cast<caf::typed_actor<replies_with_t<Request>>>(a);
}

template <class T>
struct tag {};

// Every request not handled specially below: the data manager answers the sender itself.
template <class Request>
auto handler(bridge_actor self, tag<Request>) {
  return [=](Request& x) { return self->delegate(typed<Request>(self->state.dm), std::move(x)); };
}

void track(bridge_actor self, const caf::actor& sink, stream_handle s) {
  auto& streams = self->state.streams_of[sink.address()];
  if (streams.empty()) self->monitor(sink);  // a dead sink gives a down message at once
  streams.insert(s);
}

void untrack(bridge_actor self, stream_handle s) {
  auto& all = self->state.streams_of;
  for (auto i = all.begin(); i != all.end(); ++i) {
    if (i->second.erase(s) == 0) continue;
    if (i->second.empty()) {
      self->demonitor(i->first);
      all.erase(i);
    }
    return;
  }
}

// The sink of a stream is the actor that asked for it unless it named one.
auto handler(bridge_actor self, tag<open_stream>) {
  return [=](open_stream& x) {
    auto rp = self->make_response_promise<stream_opened>();
    auto sink = x.sink ? x.sink : caf::actor_cast<caf::actor>(self->current_sender());
    if (!sink) {
      rp.deliver(make_dm_error(dm_error::bad_argument, "OPEN needs a sender to send events to"));
      return rp;
    }
    self->request(typed<open_stream>(self->state.dm), caf::infinite, open_stream{sink})
        .then(
            [=](stream_opened& o) mutable {
              track(self, sink, o.stream);
              rp.deliver(o);
            },
            [=](caf::error& e) mutable { rp.deliver(std::move(e)); });
    return rp;
  };
}

auto handler(bridge_actor self, tag<close_stream>) {
  return [=](close_stream& x) {
    auto rp = self->make_response_promise<ok_reply>();
    self->request(typed<close_stream>(self->state.dm), caf::infinite, x)
        .then(
            [=](ok_reply r) mutable {
              untrack(self, x.stream);
              rp.deliver(r);
            },
            [=](caf::error& e) mutable { rp.deliver(std::move(e)); });
    return rp;
  };
}

// LOG is served by the log writer, not the data manager (as in the TCP gateway).
auto handler(bridge_actor self, tag<write_log>) {
  return [=](write_log& x) {
    auto rp = self->make_response_promise<log_written>();
    if (!self->state.log_writer) {
      rp.deliver(make_dm_error(dm_error::internal, "this engine writes no log"));
      return rp;
    }
    self->request(typed<write_log>(self->state.log_writer), caf::infinite, std::move(x))
        .then([=](log_written& w) mutable { rp.deliver(w); },
              [=](caf::error& e) mutable { rp.deliver(std::move(e)); });
    return rp;
  };
}

// The data manager answers nothing to (un)registering; the bridge acknowledges after passing
// it on, and the source's later messages take the same path, so they arrive after it. (A
// statically typed actor may only anon_send to a dynamically typed one; the data manager
// reads the source from the message, not from the sender.)
auto handler(bridge_actor self, tag<source_register>) {
  return [=](source_register& x) {
    caf::anon_send(self->state.dm, std::move(x));
    return ok_reply{};
  };
}

auto handler(bridge_actor self, tag<source_unregister>) {
  return [=](source_unregister& x) {
    caf::anon_send(self->state.dm, std::move(x));
    return ok_reply{};
  };
}

// A relay's notice that it lost or gained a child goes the same way (the relay names itself
// in it).
auto handler(bridge_actor self, tag<subtree_component_gone>) {
  return [=](subtree_component_gone& x) {
    caf::anon_send(self->state.dm, std::move(x));
    return ok_reply{};
  };
}
auto handler(bridge_actor self, tag<subtree_component_joined>) {
  return [=](subtree_component_joined& x) {
    caf::anon_send(self->state.dm, std::move(x));
    return ok_reply{};
  };
}

template <class... Rs, class... Es>
remote_dm_actor::behavior_type make_behavior(bridge_actor self, type_list<Rs...>,
                                             type_list<Es...>) {
  return {handler(self, tag<Rs>{})..., handler(self, tag<Es>{})...};
}

remote_dm_actor::behavior_type remote_bridge(bridge_actor self, caf::actor dm,
                                             caf::actor log_writer) {
  self->state.dm = std::move(dm);
  self->state.log_writer = std::move(log_writer);
  // A stray error (an answer to no request) must not end the bridge for every client.
  self->set_error_handler([](caf::error&) {});
  // T3: a sink that went down (its process died or its connection timed out) has its streams
  // closed; the data manager applies D1-D3 to what they enabled.
  self->set_down_handler([=](caf::down_msg& x) {
    auto i = self->state.streams_of.find(x.source);
    if (i == self->state.streams_of.end()) return;
    for (auto s : i->second)
      self->request(self->state.dm, caf::infinite, close_stream{s})
          .then([](ok_reply) {}, [](caf::error&) {});  // already closed: nothing to do
    self->state.streams_of.erase(i);
  });
  return make_behavior(self, request_types{}, remote_extra_requests{});
}

}  // namespace

remote_dm_actor spawn_remote_bridge(caf::actor_system& sys, caf::actor dm, caf::actor log_writer) {
  return sys.spawn(remote_bridge, std::move(dm), std::move(log_writer));
}

}  // namespace perfdm
