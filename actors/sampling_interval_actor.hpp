// The sampling-interval controller: applies rules S1-S5 and announces every change to
// the streams (and, once they exist, to the data sources).
#pragma once

#include <caf/event_based_actor.hpp>

namespace perfdm {

caf::behavior sampling_interval_actor(caf::event_based_actor* self);

}  // namespace perfdm
