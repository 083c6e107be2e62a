// The Performance Consultant's search actor: a client of the data manager like any other.
// It opens its own stream, enables metric instances through the data manager (global
// search: PERSISTENT_DATA; current-phase search: PHASE_PERSISTENT_DATA), reads their DATA,
// and disables those of nodes concluded false. The search logic is pc/search_engine.hpp.
#pragma once

#include <caf/actor.hpp>
#include <caf/event_based_actor.hpp>

#include "messages/dm_messages.hpp"
#include "messages/inspect_macros.hpp"
#include "messages/search_messages.hpp"

namespace perfdm {

// data manager -> search actor, once: its stream, and the phase in force.
struct search_init {
  stream_handle stream;
  phase_handle phase;
  double phase_start = 0;
};
PERFDM_INSPECT(search_init, x.stream, x.phase, x.phase_start)

// search actor -> data manager: a node changed; every open stream gets an SHGNODE event.
struct shg_broadcast {
  shg_node_info node;
};

PERFDM_INSPECT(shg_broadcast, x.node)

// Spawned (linked) by the data manager on the first SEARCH.
caf::actor spawn_search_actor(caf::event_based_actor* dm);

}  // namespace perfdm
