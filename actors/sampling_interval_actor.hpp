// The sampling-interval controller: applies rules S1-S5 and announces every change to
// the streams (and, once they exist, to the data sources).
#pragma once

#include <caf/event_based_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/internal_messages.hpp"
#include "messages/time.hpp"

namespace perfdm {

// `base_width`: the interval before any histogram exists (B1's base bucket width).
// Spawned linked to `parent` (the data manager).
sampling_interval_actor_type spawn_sampling_interval(caf::event_based_actor* parent,
                                                     time_ns base_width);

}  // namespace perfdm
