// The sampling-interval controller: applies rules S1-S5 and announces every change to
// the streams (and, once they exist, to the data sources).
#pragma once

#include <caf/typed_event_based_actor.hpp>

#include "actors/internal_messages.hpp"
#include "messages/time.hpp"

namespace perfdm {

// `base_width`: the interval before any histogram exists (B1's base bucket width).
sampling_interval_actor_type::behavior_type sampling_interval_actor(
    sampling_interval_actor_type::pointer self, time_ns base_width);

}  // namespace perfdm
