// The steps that a daemon's relay and a relay under a relay take alike: sending up what their
// uplink holds; on losing the upstream, connecting to the dead relay's own upstream; once
// connected, registering there as taking over from it and handing back what must go again.
// The node's own parts (a relay's children hearing the new address) stay with the node.
#pragma once

#include <caf/actor.hpp>
#include <caf/message_handler.hpp>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "actors/reconnect_actor.hpp"
#include "tree/uplink.hpp"
#include "tree/upstream_failover.hpp"
#include "messages/source_messages.hpp"

namespace perfdm {

// The upstream's connection closed. False when there is nowhere to go (a child of the engine,
// or no way to connect): the node then ends. Otherwise a reconnect actor is trying, and
// `self` hears (reconnect_atom, …) from it.
template <class Self>
bool start_failover(Self* self, const connect_function& connect, const upstream_failover& f,
                    const char* who) {
  if (!connect || !f.can_fail_over()) return false;
  std::fprintf(stderr, "perfdm %s: the relay %s went away; connecting to %s\n", who,
               f.parent().c_str(), f.fallback().c_str());
  spawn_reconnect(self->system(), connect, f.fallback(), reconnect_budget,
                  caf::actor_cast<caf::actor>(self));
  return true;
}

// Connected to `up` at the address the dead relay had given: registers `self` there as
// `component`, taking over from that relay (the new upstream drops what the relay had passed
// on), and returns the samples kept to send again, after saying so.
template <class Self>
std::vector<sample> register_taking_over(Self* self, const caf::actor& up,
                                         const std::string& component, upstream_failover& f,
                                         const char* who) {
  auto replaced = f.parent();
  auto address = f.fallback();
  auto reached = f.reached();
  self->monitor(up);
  f.registered();
  self->send(up, source_register{caf::actor_cast<caf::actor>(self), component, replaced,
                                 std::move(reached)});
  auto again = f.to_resend();
  std::fprintf(stderr,
               "perfdm %s: reconnected to %s, taking over from %s (%zu samples sent again)\n", who,
               address.c_str(), replaced.c_str(), again.size());
  return again;
}

// A node starts: it watches its upstream (losing it starts failover, upstream_lost; any other
// actor that goes down is one of its own, a source or a child: `gone`) and registers there.
template <class Self, class Gone>
void join_upstream(Self* self, Gone gone) {
  auto& st = self->state;
  self->monitor(st.upstream);
  self->set_down_handler([=](caf::down_msg& x) {
    if (x.source == self->state.upstream.address()) return self->state.upstream_lost();
    gone(x.source);
  });
  self->set_error_handler([](caf::error&) {});
  self->send(st.upstream,
             source_register{caf::actor_cast<caf::actor>(self), st.options.component, {}});
}

// What a node hears from its upstream: the update, who the upstream is and what reached the
// engine (failover), and how reconnecting after losing it went.
template <class Self>
caf::message_handler from_upstream(Self* self) {
  return {
      [=](source_update& u) { self->state.on_update(u); },
      [=](upstream_info& x) { self->state.up.failover().on_info(x); },
      [=](samples_safe& x) { self->state.up.failover().on_safe(x.until); },
      [=](reconnect_atom, caf::actor& up) { self->state.reconnected(std::move(up)); },
      [=](reconnect_atom, caf::error& e) { self->quit(e); },
  };
}

// Sends what `up` has to send now (its open batch, or the watermark alone when it moved) to
// `upstream`, noting it acknowledged once the upstream received it. A node that ends sends
// without asking: no answer would find it.
template <class Self>
void flush_uplink(Self* self, const caf::actor& upstream, uplink& up, time_ns watermark,
                  bool exiting) {
  if (!upstream) return;
  auto batch = up.flush(watermark);
  if (!batch) return;
  if (exiting) {
    self->send(upstream, std::move(batch->message));
    return;
  }
  self->request(upstream, caf::infinite, std::move(batch->message))
      .then([&up, receipt = std::move(batch->receipt)](samples_ack&) { up.acked(receipt); },
            [](caf::error&) {});
}

}  // namespace perfdm
