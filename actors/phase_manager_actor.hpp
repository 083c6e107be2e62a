// The phase manager: the list of phases, and where a new one starts (rules H5, C2).
#pragma once

#include <caf/event_based_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/internal_messages.hpp"
#include "messages/time.hpp"

namespace perfdm {

// `base_width`: B1's base bucket width, phase 0's width and the start of every B6 search.
// Spawned linked to `parent` (the data manager).
phase_manager_actor_type spawn_phase_manager(caf::event_based_actor* parent, time_ns base_width);

}  // namespace perfdm
