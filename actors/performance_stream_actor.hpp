// A performance stream: the channel from the data manager to one client (rule T1).
// It batches data values (T2) and keeps every event in the order its causes happened.
#pragma once

#include <caf/event_based_actor.hpp>

#include "messages/dm_messages.hpp"

namespace perfdm {

// Paradyn's stream buffers held 50 values.
inline constexpr std::size_t default_stream_batch = 50;

// Spawned linked to `parent` (the data manager): stream `id`, delivering to `sink` in batches
// of at most `batch` values.
caf::actor spawn_performance_stream(caf::event_based_actor* parent, stream_handle id,
                                    caf::actor sink, std::size_t batch);

}  // namespace perfdm
