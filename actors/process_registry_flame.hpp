// The process registry's FLAMEGRAPH and TIMELINE (docs/FLAME.md): process commands answered by
// the process's native source, or, once the process exited, from the call paths the source
// left (native_flame_ended), until UNWATCH or a new WATCH; and the log's export of them.
// Part of the process registry actor, over its state.
#pragma once

#include <caf/make_message.hpp>
#include <caf/result.hpp>

#include "actors/process_registry_state.hpp"
#include "messages/flame_messages.hpp"

namespace perfdm {

caf::result<caf::message> flame_command(registry_actor self, const process_command& c);

caf::result<flame_export> flame_export_answer(registry_actor self, const flame_export_request& x);

// A phase started: every native source cuts its time slices there; a source started later
// hears of the current phase when it starts.
void flame_phase_started(registry_actor self, const phase_info& p);

}  // namespace perfdm
