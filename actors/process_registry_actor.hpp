// The processes the engine observes. ATTACH writes handles into a running program's
// generated frame types (shm/attach) and spawns its frame ingest actor; DETACH undoes it;
// WATCH spawns a native source actor (/proc and stack sampling, no instrumentation needed),
// UNWATCH ends it, PROFILE and STACKS go to it; a process may be both attached and watched;
// the list answers WHO-style queries; the frame statistics of every attached process feed
// the log's frames module. The data manager forwards these requests here.
#pragma once

#include <caf/actor.hpp>
#include <caf/event_based_actor.hpp>

#include "actors/frame_ingest_actor.hpp"
#include "actors/native_source_actor.hpp"

namespace perfdm {

// Spawned linked to the data manager, which forwards ATTACH, DETACH, WATCH, UNWATCH, PROFILE,
// STACKS, the process list and the frame statistics queries.
caf::actor spawn_process_registry(caf::event_based_actor* dm, ingest_options options,
                                  native_options native);

}  // namespace perfdm
