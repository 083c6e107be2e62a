// The process registry's SETDETAIL: the DyPer detail items a process turns on or off, as
// metric instances enabled on the registry's own stream (part of the process registry actor,
// over its state).
#pragma once

#include <caf/actor.hpp>
#include <caf/result.hpp>
#include <cstdint>

#include "actors/process_registry_state.hpp"

namespace perfdm {

// SETDETAIL.
caf::result<caf::message> setdetail_command(registry_actor self, caf::actor dm,
                                            const process_command& c);

}  // namespace perfdm
