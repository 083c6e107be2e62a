// What DyPer's per-process settings (SET, USETHREAD, CLASSES: dyper/process_commands.hpp)
// mean for the native source of a watched process, as one value the process registry sends
// it whenever they change:
// - MONITOR false stops all sampling of the process (stacks and /proc), true starts it again;
// - CPUTIME false stops stack sampling (the /proc readings go on);
// - CHECKTIME (ms) is the sampler's mean delay from the next sample on; MAXDEPTH its depth;
// - USETHREAD and THREAD_DEFAULT choose the threads whose stacks are sampled;
// - CLASSES give each function its code class (the profile's TYPE, and which functions count
//   as I/O for the thread states).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "dyper/process_commands.hpp"
#include "messages/inspect_macros.hpp"

namespace perfdm {

struct native_settings {
  bool monitor = true;
  bool cputime = true;
  std::int64_t checktime_ns = 10'000'000;
  std::uint32_t max_depth = 128;
  bool thread_default = true;
  std::map<std::int32_t, bool> threads;  // USETHREAD: thread id -> used
  std::vector<code_class> classes;

  // Whether the stacks of thread `tid` are sampled.
  bool uses(std::int32_t tid) const;
};
PERFDM_INSPECT(native_settings, x.monitor, x.cputime, x.checktime_ns, x.max_depth, x.thread_default,
               x.threads, x.classes)

// The settings a process's DyPer variables and choices stand for.
native_settings native_settings_of(const process_command_state& state);

// The code class of a function of a module (its file name without the folder): the classes
// of both combined, so that libc's `read` (module SYSTEM, function IO) is SYSTEM_IO. NORMAL
// when neither matches.
std::string code_type(const std::vector<code_class>& classes, const std::string& module,
                      const std::string& function);

// Whether a code class is I/O (IO or SYSTEM_IO).
bool is_io_type(const std::string& type);

PERFDM_INSPECT(code_class, x.package, x.name, x.type)

}  // namespace perfdm
