// The native module of the self-describing log: per watched process (docs/NATIVE.md), the
// sampler's counts and costs, the CPU profile (every function and detailed line, TOTAL/BASE
// and code class) and each thread's states over the samples; and, across the processes of
// the log, one profile record per function. Records of the same name from several engines
// (`perfdm` logs merged with log_core::merge) reduce into one: counts sum, the pid, the last
// sample time, CHECKTIME and the flags take the maximum. And the call paths of each phase
// and state (FLAMEGRAPH's, docs/FLAME.md), one record each: `stack PID PHASE STATE PATH`
// with its `count`, from which `perfdm log --folded/--pprof` write their files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "log/log_core.hpp"
#include "log/log_counter_list.hpp"
#include "log/log_modules.hpp"
#include "messages/flame_messages.hpp"
#include "messages/native_messages.hpp"

// The counters of the module's records (a process's, a profile item's, a thread's), and how
// merged logs reduce them: counts sum; the pid, the tid, the last sample time, CHECKTIME and
// the flags take the maximum.
#define PERFDM_NATIVE_LOG_COUNTERS(X) \
  X(pid, max)                         \
  X(samples, sum)                     \
  X(stacks, sum)                      \
  X(active, sum)                      \
  X(detailed, max)                    \
  X(montime, sum)                     \
  X(cost, sum)                        \
  X(last, max)                        \
  X(checktime, max)                   \
  X(ended, max)                       \
  X(total, sum)                       \
  X(base, sum)                        \
  X(tid, max)                         \
  X(blocks, sum)                      \
  X(runs, sum)                        \
  X(waits, sum)                       \
  X(ios, sum)                         \
  X(sleeps, sum)
// A profile item's code class T, the counter `type.T` = 1.
#define PERFDM_NATIVE_LOG_CODE_TYPES(X) \
  X(NORMAL, max)                        \
  X(SYSTEM, max)                        \
  X(IO, max)                            \
  X(SYSTEM_IO, max)

namespace perfdm {

PERFDM_LOG_COUNTER_LIST(native_log_counters, PERFDM_NATIVE_LOG_COUNTERS)

PERFDM_LOG_COUNTER_LIST(native_log_code_types, PERFDM_NATIVE_LOG_CODE_TYPES)
namespace native_log_code_types {
inline constexpr const char* prefix = "type.";  // the counter of code class T is type.T
}  // namespace native_log_code_types

// One watched process: its resource (/Process/NAME{PID}) and its profile (PROFILE's reply,
// with the thread states).
struct native_log_process {
  std::string resource;
  cpu_profile_report profile;
  std::vector<flame_phase_entry> flame;  // the call paths per phase (may be empty)
};

// The record name of a call path: `stack PID PHASE STATE PATH` (the path last: its frames
// hold spaces).
std::string native_stack_record_name(std::int32_t pid, std::uint64_t phase,
                                     const std::string& state, const std::string& path);

// Registers the module and adds the records of `processes`.
void add_native_module(log_core& core, const std::vector<native_log_process>& processes,
                       std::size_t requested_bytes);

// Makes `perfdm log` print the module.
void register_native_log_printer();

}  // namespace perfdm
