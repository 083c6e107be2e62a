// One actor per metric instance: owns its metric_instance_state and sends the values of
// completed buckets to the streams that use it.
#pragma once

#include <caf/typed_event_based_actor.hpp>

#include "actors/internal_messages.hpp"
#include "messages/dm_messages.hpp"

namespace perfdm {

metric_instance_actor_type::behavior_type metric_instance_actor(
    metric_instance_actor_type::pointer self, mi_handle id, metric_style style);

}  // namespace perfdm
