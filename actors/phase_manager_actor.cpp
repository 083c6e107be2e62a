#include "actors/phase_manager_actor.hpp"

#include <algorithm>
#include <caf/stateful_actor.hpp>

#include "actors/internal_messages.hpp"
#include "dm/time_base_widths.hpp"

namespace perfdm {

namespace {

struct phase_manager_state {
  std::vector<phase_info> phases;  // every phase so far, the current one last
  std::vector<time_ns> starts;     // their starts, in engine time
  static inline const char* name = "phase_manager";

  pm_started start(const pm_start& x, time_ns base_width) {
    auto base = new_phase_base(x.now, x.global_width, starts.back(), base_width);  // C2, B6
    const time_ns start = base.start;
    pm_started out;
    out.old_phase = phases.back().id;
    phases.back().end = to_seconds(start);
    out.start = start;
    out.width = base.width;
    phase_handle id{phases.size()};
    out.phase = phase_info{id, x.name.empty() ? "phase_" + to_string(id) : x.name,
                           to_seconds(start), -1.0, to_seconds(out.width)};
    phases.push_back(out.phase);
    starts.push_back(start);
    return out;
  }
};

phase_manager_actor_type::behavior_type phase_manager_actor(
    phase_manager_actor_type::stateful_pointer<phase_manager_state> self, time_ns base_width) {
  // H5: phase 0 exists from engine start.
  auto& st = self->state;
  st.phases.push_back(phase_info{phase_handle{0}, "phase_0", 0.0, -1.0, to_seconds(base_width)});
  st.starts.push_back(0);
  return {
      [=](pm_start& x) { return self->state.start(x, base_width); },
      [=](list_phases) { return phase_list{self->state.phases}; },
  };
}

}  // namespace

phase_manager_actor_type spawn_phase_manager(caf::event_based_actor* parent, time_ns base_width) {
  return parent->spawn<caf::linked>(phase_manager_actor, base_width);
}

}  // namespace perfdm
