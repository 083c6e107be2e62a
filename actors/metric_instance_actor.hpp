// One actor per metric instance: owns its metric_instance_state and sends the values of
// completed buckets to the streams that use it.
#pragma once

#include <caf/event_based_actor.hpp>

#include "messages/dm_messages.hpp"

namespace perfdm {

caf::behavior metric_instance_actor(caf::event_based_actor* self, mi_handle id,
                                    metric_style style);

}  // namespace perfdm
