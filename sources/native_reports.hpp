// What a watched process's readings answer to PROFILE and STACKS (messages/native_messages.hpp):
// the CPU profile with each function's code class, a stack sample's threads, and the threads
// of a process no stack sampler watches, from its /proc readings (SHOWSTACK). Plain C++.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "messages/native_messages.hpp"
#include "native/cpu_profile.hpp"
#include "native/proc_stats.hpp"
#include "native/stack_sampler.hpp"
#include "native/thread_states.hpp"

namespace perfdm {

// The code class (CLASSES: NORMAL, SYSTEM, IO, SYSTEM_IO) of `function` in `module` ("" when
// the item names no module).
using code_type_of = std::function<std::string(const std::string& module,
                                               const std::string& function)>;

// PROFILE's items and threads: each function item with its code class, the lines of a
// detailed function with their function's. Counts and times as the summary has them; the
// caller adds what the sampler knows (checktime, cost).
cpu_profile_report profile_report(std::int32_t pid, const native::profile_summary& summary,
                                  const std::vector<native::thread_state_counts>& threads,
                                  const code_type_of& type_of);

// STACKS's answer for one stack sample taken at engine time `time` (seconds).
stacks_report stacks_report_of(std::int32_t pid, double time, const native::stack_snapshot& snap);

// The threads of `pid` and their states as /proc had them (native::read_threads), without
// stacks, stamped `time`.
stacks_report stacks_report_of(std::int32_t pid, double time,
                               const std::vector<native::thread_stats>& threads);

}  // namespace perfdm
