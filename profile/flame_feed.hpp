// Stack samples into the call-path store (profile/call_path_store.hpp): how a frame is named
// in a flame graph and what state a sampled thread counts in. Plain C++.
//
// - A frame is `function (module)`, named as the Performance Consultant names its /Code
//   resources and reads them back (native::function_name: the function without its parameter
//   list; the module's basename; `?` for what has no name), so a finding's function and a
//   flame-graph frame read the same (`crypto/sha256.block (gohash)`). `;` (the folded format's separator) never appears in a frame: it becomes `,`.
// - The state comes from native/thread_states' activity: RUNS running, BLOCKS lock, IOS io,
//   SLEEPS sleep, WAITS other (a condition, a join, the kernel); a stopped or zombie thread
//   (OTHER) is not added.
#pragma once

#include <optional>
#include <string>

#include "native/stack_sampler.hpp"
#include "native/thread_states.hpp"
#include "profile/call_path_store.hpp"

namespace perfdm {

std::string flame_frame(const native::stack_frame& frame);

std::optional<profile::sample_state> flame_state(native::thread_activity a);

// Adds every thread of a stack sample taken at engine time `time` (seconds).
void add_to_flame(profile::call_path_store& store, const native::stack_snapshot& snapshot,
                  double time, const native::io_predicate& is_io);

}  // namespace perfdm
