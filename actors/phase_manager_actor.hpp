// The phase manager: the list of phases, and where a new one starts (rules H5, C2).
#pragma once

#include <caf/event_based_actor.hpp>

namespace perfdm {

caf::behavior phase_manager_actor(caf::event_based_actor* self);

}  // namespace perfdm
