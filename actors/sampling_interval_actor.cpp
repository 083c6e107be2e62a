#include "actors/sampling_interval_actor.hpp"

#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <map>

#include "actors/internal_messages.hpp"

namespace perfdm {

namespace {

struct sampling_interval_state {
  explicit sampling_interval_state(
      sampling_interval_actor_type::stateful_pointer<sampling_interval_state> self)
      : self(self) {}

  sampling_interval_actor_type::stateful_pointer<sampling_interval_state> self;
  sampling_interval_rules rules;
  std::map<stream_handle, caf::actor> subscribers;  // ordered: announcements are deterministic
  static inline const char* name = "sampling_interval";

  samplerate_info announce(std::optional<time_ns> changed) {
    if (changed)
      for (auto& [handle, actor] : subscribers)
        caf::unsafe_send_as(self, actor,
                            samplerate_event{handle, to_seconds(*changed)});  // untyped stream
    return samplerate_info{to_seconds(rules.interval())};
  }
};

sampling_interval_actor_type::behavior_type sampling_interval_actor(
    sampling_interval_actor_type::stateful_pointer<sampling_interval_state> self,
    time_ns base_width) {
  self->state.rules = sampling_interval_rules(base_width);
  return {
      [=](si_subscribe& x) { self->state.subscribers.insert_or_assign(x.stream, x.stream_actor); },
      [=](si_unsubscribe& x) { self->state.subscribers.erase(x.stream); },
      [=](si_fold& x) {
        auto& st = self->state;
        return st.announce(st.rules.on_fold(x.global_base, x.current_base, x.width, x.after));
      },
      [=](si_new_phase& x) {
        auto& st = self->state;
        return st.announce(st.rules.on_new_phase(x.after));
      },
      [=](si_enable& x) {
        auto& st = self->state;
        return st.announce(st.rules.on_enable(x.type, x.before, x.after));
      },
      [=](si_disable& x) {
        auto& st = self->state;
        return st.announce(st.rules.on_disable(x.before, x.after));
      },
      [=](samplerate_query) { return samplerate_info{to_seconds(self->state.rules.interval())}; },
  };
}

}  // namespace

sampling_interval_actor_type spawn_sampling_interval(caf::event_based_actor* parent,
                                                     time_ns base_width) {
  return parent->spawn<caf::linked>(sampling_interval_actor, base_width);
}

}  // namespace perfdm
