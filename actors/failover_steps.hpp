// The two steps of failover that a daemon's relay and a relay under a relay take
// alike: on losing the upstream, start connecting to the dead relay's own upstream; once
// connected, register there as taking over from it and hand back what must go again. The
// node's own parts (a relay's children hearing the new address) stay with the node.
#pragma once

#include <caf/actor.hpp>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "actors/reconnect_actor.hpp"
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

}  // namespace perfdm
