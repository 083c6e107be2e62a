// The phase manager: the list of phases, and where a new one starts (rules H5, C2).
#pragma once

#include <caf/event_based_actor.hpp>

#include "messages/time.hpp"

namespace perfdm {

// `base_width`: B1's base bucket width, phase 0's width and the start of every B6 search.
caf::behavior phase_manager_actor(caf::event_based_actor* self, time_ns base_width);

}  // namespace perfdm
