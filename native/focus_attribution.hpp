// The Performance Consultant's metrics at a focus, from stack samples (docs/NATIVE.md §8).
// Plain C++: a stack sample and each thread's state in, the amount each metric gets at a
// focus out; the native source (sources/pc_sample_builder.hpp) turns these into DM samples.
//
// Metrics (all per thread, summed over the threads a focus matches):
//   cpu             COUNTER s        `covered` seconds for a thread that RUNS
//   sync_wait       COUNTER s        `covered` for a thread that BLOCKS or WAITS
//   io_wait         COUNTER s        `covered` for a thread that IOS
//   io_ops          COUNTER ops      the thread's syscr+syscw since its previous sample
//   io_bytes        COUNTER bytes    the thread's rchar+wchar since its previous sample
//                                    (at a focus that names a /Code resource: see below)
//   active_threads  SAMPLED threads  1 per thread (a level)
// where `covered` is the time since the previous stack sample: with DyPer's exponentially
// distributed delays, the sum over samples of `covered` × [thread in state] estimates the
// time the thread spent in that state. I/O counts are exact per thread and interval. At a
// focus whose /Code part is the root they count when read (the thread's and the process's
// totals are exact). At a focus naming a /Code resource they count only at a stack seen in
// an I/O call (IOS, or an I/O function anywhere on the stack: seen_in_io_call): the counts
// of samples that saw the thread elsewhere (asleep, computing) are carried forward to its
// next stack seen in I/O, so I/O is never charged to a function that does none
// (docs/NATIVE.md §8).
//
// A focus is one resource per hierarchy (docs/PROTOCOL.md FOCUS); a thread matches when it
// matches every component:
//   /Code/<module>[/<function>]   that module (function) is on the thread's stack (inclusive)
//   /Machine/<host>[/<process>{<pid>}[/<thread>{<tid>}]]  that host, process, thread (by the
//                                 ids in braces when given — names change — else by name)
//   /SyncObject/<kind>[/<object>] the thread waits on an object of that kind (that object)
//   /File[/…]                     the thread is in an I/O call on that file (or on a file
//                                 under that directory); I/O counts as for /Code (at_call)
// A root (/Code, /Machine, /SyncObject) or `/` constrains nothing; any other resource (a
// /Process one, another source's) makes the focus match nothing.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "native/runtime_waits.hpp"
#include "native/stack_sampler.hpp"
#include "native/sync_object.hpp"
#include "native/thread_states.hpp"

namespace perfdm::native {

enum class pc_metric { cpu, sync_wait, io_wait, io_ops, io_bytes, active_threads };

struct pc_metric_definition {
  pc_metric metric;
  const char* name;
  bool counter;  // COUNTER (amounts) or SAMPLED (a level)
  const char* units;
};

inline constexpr std::size_t pc_metric_count = 6;
const std::array<pc_metric_definition, pc_metric_count>& pc_metric_definitions();
std::optional<pc_metric> find_pc_metric(const std::string& name);

struct pc_focus {
  struct code_part {
    std::string module, function;  // function "" = any function of the module
  };
  struct machine_part {
    std::string host, process, thread;  // "" = any
    int pid = 0, tid = 0;               // 0 = by name (or any)
  };
  struct sync_part {
    std::string kind, object;  // object "" = any object of the kind
  };
  // /File components: the resource names (a file, or a directory: every file under it).
  bool matches_nothing = false;
  std::vector<code_part> code;
  std::vector<machine_part> machine;
  std::vector<sync_part> sync;
  std::vector<std::string> file;
  // Whether the focus narrows to a call (a /Code or /File resource): io_ops and io_bytes then
  // count at stacks seen in an I/O call only (see above).
  bool at_call() const { return !code.empty() || !file.empty(); }
};

// Reads a focus given as resource names (a collecting MI's). Never fails: what the PC
// metrics cannot match makes `matches_nothing` true.
pc_focus parse_pc_focus(const std::vector<std::string>& resources);

// The process a source samples.
struct sampled_process {
  std::string host;  // a resource part (host_part())
  std::string name;  // its comm
  int pid = 0;
};

// One thread at one stack sample, as the metrics see it.
struct sampled_thread {
  int tid = 0;
  std::string name;
  thread_activity activity = thread_activity::other;
  // What the runtime rules say of its stack (runtime_waits.hpp): idle (waiting for work),
  // waiting (for another thread, also on the CPU), or none; and whether what it waits on is a
  // known serialiser (CPython's GIL).
  wait_role role = wait_role::none;
  bool serializer = false;
  // The distinct (module, function) parts on its stack, innermost first.
  std::vector<std::pair<std::string, std::string>> functions;
  sync_object waits_on;             // kind "" unless it BLOCKS, WAITS or a runtime waits
  std::string file;                 // the /File resource of its I/O call, "" if not known
  bool in_io_call = false;          // seen in an I/O call (seen_in_io_call)
  // In an I/O call that is no data I/O (data_io.hpp: a pseudo-file, start-up discovery): not
  // IOS, not in an I/O call, and its I/O counts are dropped rather than charged elsewhere.
  bool pseudo_io = false;
  // In a sync call (data_io.hpp): when in_io_call, its I/O counts wait for the thread's next
  // data I/O call.
  bool sync_call = false;
  double io_ops = 0, io_bytes = 0;  // since its previous sample (set by the caller)
  // What a focus naming a /Code resource gets: when in_io_call, the thread's counts not
  // charged to a stack yet (carried from samples not in I/O), else 0 (set by the caller).
  double stack_io_ops = 0, stack_io_bytes = 0;
};

// Whether a sampled thread is in an I/O call: IOS, or an I/O function (`is_io`, the
// process's code classes) anywhere on its stack.
bool seen_in_io_call(thread_activity activity, const std::vector<stack_frame>& frames,
                     const io_predicate& is_io);

// Describes a sampled thread: its functions, what the runtime rules say of its stack, and,
// when it BLOCKS or WAITS or a runtime rule says it waits, the object (`syscall`: its
// /proc/PID/task/TID/syscall read with its state; a runtime's kind and object where the rule
// names them); in_io_call from IOS only (the caller with the code classes uses
// seen_in_io_call).
// `namer`, when given, names the object consistently across samples (sync_object.hpp).
sampled_thread describe_thread(const thread_stack& thread, thread_activity activity,
                               const thread_syscall& syscall, sync_object_namer* namer = nullptr);

bool focus_matches(const pc_focus& focus, const sampled_process& process,
                   const sampled_thread& thread);

// How a sampled thread's time counts (docs/NATIVE.md §8):
// - cpu: it RUNS its own code (not a runtime's spin or idle loop);
// - sync_wait: a runtime rule says it waits (spinning too), or it BLOCKS or WAITS, but not
//   for work (a runtime's idle wait) nor for work the program itself started
//   (waits_for_own_work: a join, a child, a signal);
// - io_wait: it is in I/O (IOS) outside a runtime's idle wait (an event loop's epoll);
// - idle: waiting for work (a runtime rule, or a wait for its own work).
bool counts_as_cpu(const sampled_thread& thread);
bool counts_as_sync_wait(const sampled_thread& thread);
bool counts_as_io(const sampled_thread& thread);
bool counts_as_idle(const sampled_thread& thread);

// What one thread adds to `metric` at a sample that covers `covered` seconds, at a focus
// that names a /Code resource (`at_code`) or not.
double thread_amount(pc_metric metric, const sampled_thread& thread, double covered, bool at_code);

// The resources a sample shows (its functions, the thread, what it waits on), for the data
// manager to define as they are discovered.
std::vector<std::string> thread_resources(const sampled_process& process,
                                          const sampled_thread& thread);

}  // namespace perfdm::native
