// Samples the stack of every thread of a running process with libdw (elfutils): for each
// frame the pc, the module, the function (symbol, demangled) and, where debug information
// exists, the source file and line; plus each thread's name and scheduler state from /proc.
//
// - A frame in code compiled at run time (JIT: an executable mapping no file backs) is named
//   from the process's perf map, else `[jit <runtime>]` (native/jit_code.hpp); Go's `.abi0`
//   symbol suffix is dropped (`crypto/sha256.block`).
// - One Dwfl session per process (modules reported from /proc/PID/maps, symbol lookups
//   cached by pc); the modules are reported again when /proc/PID/maps changes (dlopen,
//   a new thread stack, ...), which is checked before every sample.
// - Each thread is stopped, unwound and detached at once, so the program runs on between
//   samples and no thread stays stopped for longer than its own unwind. The sampler stops it
//   itself (PTRACE_SEIZE, PTRACE_INTERRUPT; libdwfl is told the threads are stopped) and
//   waits for the stop on that tid alone, polling, never with waitpid(-1): another thread of
//   this process that waits for any child takes the ptrace stops of every tracee of the
//   process, and a blocking wait would then wait for ever; a thread that /proc shows in
//   tracing stop is stopped, whoever took the notification. A thread that does not stop
//   within 0.5 s is left out of the sample, and let go once it stops (release_late). ptrace
//   ties a tracee to the tracing thread: every sample() and release_late() of one sampler
//   must run on one thread (the native source actor is detached: its own thread).
// - The states are read before any thread is stopped (a stopped thread reads 't').
// - Errors are native_error: no_such_process (before or during a sample: the sample is
//   abandoned, every thread already stopped is detached, nothing is leaked), not_permitted
//   (another user's process, or ptrace refused), unwind_failed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace perfdm::native {

struct stack_frame {
  std::uint64_t pc = 0;
  std::string module;    // the module's file name (as /proc/PID/maps names it), "" if none
  std::string function;  // demangled symbol, "" if unknown
  std::string file;      // source file from the debug info, "" if none
  int line = 0;          // 0 if unknown
};

struct thread_stack {
  int tid = 0;
  std::string name;  // /proc/PID/task/TID/comm
  char state = '?';  // the one-letter state of stat, read before the thread was stopped
  std::vector<stack_frame> frames;  // innermost first
  std::string error;  // why the unwind stopped early or failed, if it did and no frame came
  // /proc/PID/task/TID/syscall: the system call the thread was in and its arguments (a lock's
  // futex, a file's descriptor). Read while it is stopped, after its unwind, so that it agrees
  // with the stack; the read with the state before the stop (sleeping threads, 'S', 'D') is
  // kept when the stopped thread shows no call (-1) or restart_syscall. "" when neither says.
  std::string syscall;
};

struct stack_snapshot {
  int pid = 0;
  std::int64_t monotonic_ns = 0;  // when the sample started (CLOCK_MONOTONIC)
  // how long the sample held the program's threads stopped, summed over the threads (the wait
  // for a thread to stop is not counted: the program runs, or waits for a CPU, meanwhile)
  std::int64_t cost_ns = 0;
  // The memory maps changed since the last sample (a program loading its libraries, as one
  // started held at its first instruction does): libdw read new modules' unwind and debug
  // information during this sample, a one-off like the first sample's.
  bool modules_changed = false;
  std::vector<thread_stack> threads;
};

class stack_sampler {
 public:
  // Opens a libdw session on `pid`. Throws native_error (no_such_process, not_permitted,
  // unwind_failed).
  explicit stack_sampler(int pid);
  ~stack_sampler();
  stack_sampler(const stack_sampler&) = delete;
  stack_sampler& operator=(const stack_sampler&) = delete;

  int pid() const;

  // Every thread's stack, at most `max_depth` frames each. Threads that exit during the
  // sample are left out; the process exiting is native_error(no_such_process). With
  // `wanted`, only the threads it accepts are read, stopped and unwound (USETHREAD); the
  // others are not touched.
  stack_snapshot sample(std::size_t max_depth = 128,
                        const std::function<bool(int tid)>& wanted = {});

  // How many times the modules were reported (1 after construction; +1 per maps change).
  std::uint64_t module_reports() const;

  // Threads a sample interrupted that had not stopped within its 0.5 s (no CPU for them on a
  // loaded machine): they stop when they next run and must then be let go, by the thread
  // that sampled (ptrace ties them to it). sample() lets go those that stopped, first, and
  // leaves the others out; release_late() does only that, and returns how many are still
  // running — call it soon after a sample that left some, so that none is held stopped.
  std::size_t late_threads() const;
  std::size_t release_late();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// The CLOCK_MONOTONIC time in nanoseconds.
std::int64_t monotonic_ns();

}  // namespace perfdm::native
