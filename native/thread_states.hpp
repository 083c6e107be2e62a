// DyPer's thread agent done natively: at every stack sample, what each thread was doing —
// running, blocked on a lock, waiting for another thread, in I/O, or sleeping — counted per
// thread (REPORT's `<THREAD … BLOCKS RUNS WAITS IOS SLEEPS/>`). Plain C++.
//
// How a sampled thread is classified, from the one-letter state of /proc/PID/task/TID/stat
// (read before the thread was stopped) and its stack (innermost first):
// - 'R' (running or runnable): IOS when the innermost function is I/O code (`is_io`: the
//   process's code classes, CLASSES), else RUNS;
// - 'D' (uninterruptible, "disk sleep"): IOS — the kernel waits on a device or a file system;
// - 'S' (interruptible sleep) and 'I' (idle): by the first frame, innermost first, whose
//   function is a known blocking call: a lock (pthread_mutex_lock, __lll_lock_wait,
//   pthread_rwlock_*lock, ...) is BLOCKS; a condition, a semaphore, a join, a child or a signal
//   (pthread_cond_*wait, sem_*wait, pthread_join, waitpid, sigwait, ...) is WAITS; a sleep
//   (nanosleep, clock_nanosleep, sleep, usleep, pause) is SLEEPS; an I/O function (`is_io`:
//   read, write, poll, recv, epoll_wait, ... by default) is IOS. No known call on the stack:
//   WAITS (asleep in the kernel for an event perfdm cannot name);
// - 'T', 't' (stopped by a signal or a debugger), 'Z', 'X': none of the five, but the sample
//   still counts in SAMPLES.
// Function names are compared without glibc's decorations: leading underscores, the internal
// prefixes `GI_` and `libc_`, and a symbol version (`@GLIBC_2.2.5`), so `__GI___clock_nanosleep`
// is `clock_nanosleep` and `__libc_read` is `read`.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "native/stack_sampler.hpp"

namespace perfdm::native {

enum class thread_activity { runs, blocks, waits, ios, sleeps, other };

// "RUNS", "BLOCKS", "WAITS", "IOS", "SLEEPS", "OTHER".
const char* to_string(thread_activity a);

// True when a function of a module is I/O code: the module's file name without its folder,
// the function's plain name (plain_function_name).
using io_predicate = std::function<bool(const std::string& module, const std::string& function)>;

// A function's name without glibc's decorations (see above); C++ names are left as they are.
std::string plain_function_name(const std::string& function);

// What one sampled thread was doing.
thread_activity classify_thread(char state, const std::vector<stack_frame>& frames,
                                const io_predicate& is_io);

struct thread_state_counts {
  int tid = 0;
  std::string name;           // the name at the latest sample that saw the thread
  std::uint64_t samples = 0;  // samples that saw the thread (also stopped or zombie)
  std::uint64_t blocks = 0, runs = 0, waits = 0, ios = 0, sleeps = 0;
};

// The counts of every thread ever sampled; threads that ended stay.
class thread_state_table {
 public:
  void add(const thread_stack& thread, thread_activity activity);
  // Classifies and adds every thread of a sample.
  void add(const stack_snapshot& snapshot, const io_predicate& is_io);
  // By thread id, ascending.
  std::vector<thread_state_counts> counts() const;
  void clear() { threads_.clear(); }

 private:
  std::map<int, thread_state_counts> threads_;
};

}  // namespace perfdm::native
