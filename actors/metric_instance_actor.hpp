// One actor per metric instance: owns its metric_instance_state and sends the values of
// completed buckets to the streams that use it.
#pragma once

#include <caf/event_based_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/internal_messages.hpp"
#include "messages/dm_messages.hpp"

namespace perfdm {

// Spawned linked to `parent` (the data manager).
metric_instance_actor_type spawn_metric_instance(caf::event_based_actor* parent, mi_handle id,
                                                 metric_style style);

}  // namespace perfdm
