#include "actors/sampling_interval_actor.hpp"

#include <caf/send.hpp>
#include <map>
#include <memory>

#include "actors/internal_messages.hpp"

namespace perfdm {

namespace {

struct si_state {
  sampling_interval_rules rules;
  std::map<stream_handle, caf::actor> subscribers;  // ordered: announcements are deterministic
};

}  // namespace

sampling_interval_actor_type::behavior_type sampling_interval_actor(
    sampling_interval_actor_type::pointer self, time_ns base_width) {
  auto st = std::make_shared<si_state>();
  st->rules = sampling_interval_rules(base_width);
  auto announce = [=](std::optional<time_ns> changed) {
    if (changed)
      for (auto& [handle, actor] : st->subscribers)
        caf::unsafe_send_as(self, actor,
                            samplerate_event{handle, to_seconds(*changed)});  // untyped stream
    return samplerate_info{to_seconds(st->rules.interval())};
  };
  return {
      [=](si_subscribe& x) { st->subscribers.insert_or_assign(x.stream, x.stream_actor); },
      [=](si_unsubscribe& x) { st->subscribers.erase(x.stream); },
      [=](si_fold& x) {
        return announce(st->rules.on_fold(x.global_base, x.current_base, x.width, x.after));
      },
      [=](si_new_phase& x) { return announce(st->rules.on_new_phase(x.after)); },
      [=](si_enable& x) { return announce(st->rules.on_enable(x.type, x.before, x.after)); },
      [=](si_disable& x) { return announce(st->rules.on_disable(x.before, x.after)); },
      [=](samplerate_query) { return samplerate_info{to_seconds(st->rules.interval())}; },
  };
}

}  // namespace perfdm
