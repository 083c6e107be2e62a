// Stack frames and system calls as the stack sampler reads them, for the tests of what the
// Performance Consultant makes of them (tests/pc_metrics_test.cpp, pc_runtime_waits_test.cpp).
#pragma once

#include <cstdint>

#include "native/stack_sampler.hpp"
#include "native/thread_proc_files.hpp"

namespace sampled_stacks {

// A frame of `function` in `module` (a path); with a line, in app.cpp.
inline perfdm::native::stack_frame frame(const char* module, const char* function, int line = 0) {
  return perfdm::native::stack_frame{0x1000, module, function, line ? "app.cpp" : "", line};
}

// A thread asleep in a futex wait on `address`.
inline perfdm::native::thread_syscall futex_on(std::uint64_t address) {
  perfdm::native::thread_syscall s;
  s.valid = true;
  s.number = perfdm::native::futex_syscall_number();
  s.args[0] = address;
  return s;
}

}  // namespace sampled_stacks
