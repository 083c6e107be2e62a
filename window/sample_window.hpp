// The bounded window of one watched process's stack samples: what the
// Performance Consultant needs to evaluate any focus retroactively, on the samples since its
// search (or phase) started, not only on those taken after its metric instance was enabled.
// A stack sample holds every level of every thread's stack at once, so a node made later, one
// level deeper, is decided on samples already taken.
//
// Per thread-sample it keeps the time, the time the sample covers, the thread's "shape"
// (tid, name, activity, the distinct functions on its stack, the object it waits on, whether
// it is in an I/O call) interned once for all samples that share it, and the thread's I/O
// counts. Bounded by a span (default 120 s) and a byte budget (default 16 MiB per process):
// the oldest stack samples go first, and what goes is counted (ticks, thread-samples, bytes).
// Plain C++: the native source actor feeds it; tests drive it with synthetic threads.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "native/focus_attribution.hpp"

namespace perfdm::window {

struct window_limits {
  double span_s = 120;                       // stack samples older than this go
  std::size_t max_bytes = 16u * 1024 * 1024;  // and the oldest go while it is over this
};

// What a thread-sample is to the Performance Consultant, once the samples since a time are
// looked at together (docs/NATIVE.md §8 "Idle, contended, caused"):
// - run: on the CPU in its own code; io: in data I/O (the program's time: busy);
// - contended: waiting where the wait is the bottleneck: a lock held by another thread, a
//   known serialiser (the GIL), an object that other busy threads take turns waiting on, or
//   a wait while nothing else in the process is busy (its cause lies outside);
// - caused: waiting on a condition, a semaphore or a futex while other threads of the process
//   are busy and none of them takes turns at it (a producer waiting for a slow consumer, a
//   main thread for its workers): the wait is theirs, blamed on their work;
// - idle: waiting for work: a runtime's idle wait (runtime_waits.hpp), a wait for its own
//   work (a join, a child), or a thread that is parked (a condition, semaphore or futex wait
//   of a thread that was busy in at most 2 % of its samples: a pool with nothing to do);
// - none: asleep (nanosleep), stopped, or not known.
enum class sample_class : std::uint8_t { run, io, contended, caused, idle, none };

// What a focus saw since a time, in one process: the counts the PC's statistics need. All
// zero when the focus's /Machine part names none of the process's threads.
struct focus_counts {
  std::uint64_t ticks = 0;   // stack samples of the process since then (n)
  std::uint32_t scope = 0;   // most threads of the focus's /Machine part at one tick (K)
  // thread-samples at the focus in each state (each ≤ K per tick): run, contended, io
  std::uint64_t runs = 0, syncs = 0, ios = 0;
  // the most thread-samples in each state at one stack sample (bounds one sample's count)
  std::uint32_t runs_most = 0, syncs_most = 0, ios_most = 0;
  // the same weighted with the time each sample covers (what the MIs are fed)
  double cpu_s = 0, sync_s = 0, io_s = 0;
  double io_ops = 0, io_bytes = 0;  // exact counts at the focus (focus_attribution rules)
  double first = 0, last = 0;       // seconds: the first and the last stack sample counted
  // Per stack sample, the thread-samples at the focus in each state over the active threads
  // (run, io, contended, caused) of its /Machine part, at least 1, summed: each term is in
  // [0, 1], and their mean is the share of the active threads' time (a thread's own share for
  // a focus on one thread).
  double runs_share = 0, syncs_share = 0, ios_share = 0;
  // The same over the process's busy threads (run, io, contended), at least 1: what making
  // the focus's time vanish would save of the elapsed time, roughly (CPU two threads share
  // counts half for each).
  double runs_saving = 0, syncs_saving = 0, ios_saving = 0;
  // Blame: per stack sample, the process's caused waits shared among its busy threads, summed
  // over the focus's threads that run (in I/O): how many threads wait for its work.
  double runs_blamed = 0, ios_blamed = 0;
  double idle = 0;  // idle threads of its /Machine part, summed over the stack samples
  // The active threads of its /Machine part (the shares' divisors) and the process's busy
  // threads (the savings'), summed over the stack samples: what turns a measured I/O time
  // into the same shares (window/library_evidence.hpp).
  double active = 0, busy = 0;
};

struct window_stats {
  std::uint64_t ticks = 0, thread_samples = 0, shapes = 0;
  std::size_t bytes = 0;
  std::uint64_t evicted_ticks = 0, evicted_thread_samples = 0;
  std::size_t evicted_bytes = 0;
  double oldest = 0;  // seconds: the oldest stack sample held (0 when none)
};

class sample_window {
 public:
  explicit sample_window(native::sampled_process process, window_limits limits = {});

  // One stack sample at engine time `t_ns` covering `covered` seconds before it: its threads
  // as focus_attribution describes them (their io counts set). Samples come in time order.
  void add(std::int64_t t_ns, double covered, const std::vector<native::sampled_thread>& threads);

  // What `focus` saw from `since` (seconds, engine time) on: stack samples at or after it.
  focus_counts count(const native::pc_focus& focus, double since) const;
  // The same for several foci at once: the samples are classified once.
  std::vector<focus_counts> counts(const std::vector<native::pc_focus>& foci, double since) const;

  window_stats stats() const;
  const window_limits& limits() const { return limits_; }
  const native::sampled_process& process() const { return process_; }

 private:
  struct shape {
    native::sampled_thread thread;  // io counts unused
    std::string key;
    std::size_t bytes = 0;
    std::uint64_t uses = 0;
  };
  struct record {  // one thread at one stack sample
    std::uint32_t shape;
    float io_ops, io_bytes, stack_io_ops, stack_io_bytes;
  };
  struct tick {
    std::int64_t t_ns;
    float covered;
    std::uint32_t records;  // how many of `records_` after the previous tick's
  };

  // The class of each thread-sample from the first stack sample at or after `since` on (in
  // `records_` order), and per stack sample the process's busy threads (N) and caused waits.
  struct classes {
    std::size_t first_tick = 0, first_record = 0;
    std::vector<sample_class> of;
    std::vector<std::uint32_t> busy, caused;
  };
  classes classify(double since) const;
  focus_counts count_classified(const native::pc_focus& focus, const classes& k) const;

  std::uint32_t intern(const native::sampled_thread& t);
  void evict_front();
  void enforce(std::int64_t now_ns);

  native::sampled_process process_;
  window_limits limits_;
  std::deque<tick> ticks_;
  std::deque<record> records_;
  std::vector<shape> shapes_;
  std::vector<std::uint32_t> free_shapes_;
  std::map<std::string, std::uint32_t> shape_ids_;
  std::size_t bytes_ = 0;
  window_stats evicted_;
};

}  // namespace perfdm::window
