// The sampling-interval controller: applies rules S1-S5 and announces every change to
// the streams (and, once they exist, to the data sources).
#pragma once

#include <caf/event_based_actor.hpp>

#include "messages/time.hpp"

namespace perfdm {

// `base_width`: the interval before any histogram exists (B1's base bucket width).
caf::behavior sampling_interval_actor(caf::event_based_actor* self, time_ns base_width);

}  // namespace perfdm
