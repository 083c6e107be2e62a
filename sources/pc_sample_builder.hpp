// Turns the stack samples of one watched process into samples of the Performance
// Consultant's metrics (cpu, sync_wait, io_wait, io_ops, io_bytes, active_threads) for the
// metric instances that collect them, and names the resources the samples show (/Code,
// /Machine, /SyncObject) so that the data manager defines them as they are discovered.
// Plain C++: the native source actor feeds it, tests drive it with synthetic samples.
//
// - Routes: one per collecting MI of a PC metric whose focus can match this process
//   (native/focus_attribution.hpp); other MIs are not this sampler's.
// - Each stack sample adds, per route, the amounts of the threads its focus matches;
//   amounts gather until they span at least the sampling interval, then go out as one
//   sample over [first sample's start, last sample's time] (COUNTERs: the sum; the SAMPLED
//   active_threads: the level averaged over the time the stack samples covered). A route with
//   nothing matching sends 0, not silence: a focus that is idle says so.
// - io_ops and io_bytes need each thread's /proc io counters: the caller reads them when
//   needs_io() (only then) and the sampler keeps the previous reading per thread (the first
//   reading of a thread is its baseline; a counter that goes back gives 0). Foci naming a
//   /Code resource get a thread's counts only at a stack seen in an I/O call; the sampler
//   carries the counts of the thread's other samples forward to it (focus_attribution.hpp).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "messages/dm_messages.hpp"
#include "messages/source_messages.hpp"
#include "messages/time.hpp"
#include "native/focus_attribution.hpp"
#include "native/thread_proc_files.hpp"

namespace perfdm {

class pc_sample_builder {
 public:
  explicit pc_sample_builder(native::sampled_process process);

  const native::sampled_process& process() const { return process_; }

  // The resources every PC focus may start from: the three roots and this process.
  std::vector<std::string> initial_resources() const;

  // The MIs to gather for. An MI whose focus names another host in /Machine gets nothing
  // from this process, not even zeros (over a cluster each search node on one host's process
  // had every other daemon send a zero per interval: most of the tree's traffic). On one host
  // every focus names this host, so nothing changes there.
  void set_collecting(const std::vector<collecting_mi>& mis);
  bool collecting() const { return !routes_.empty(); }
  // Whether stack samples read the threads' io counters: a collecting MI of io_ops or
  // io_bytes needs them, and a sampler that feeds a sample window (set_reads_io_always) reads
  // them at every sample, so that the search's TooManySmallIOOps is decided on the operations
  // since the search began, not only those after its metric instance was enabled.
  bool needs_io() const;
  void set_reads_io_always(bool always) { io_always_ = always; }

  // Sets each thread's io_ops and io_bytes from its io counters now (`io`: by tid; a thread
  // missing from it gets 0), and its stack_io_ops and stack_io_bytes: when in_io_call, all
  // its counts not charged to a stack yet, else 0 (they are carried forward).
  void apply_io(std::vector<native::sampled_thread>& threads,
                const std::map<int, native::thread_io>& io);

  // One stack sample at engine time `t` covering `covered` seconds before it.
  void add(const std::vector<native::sampled_thread>& threads, double covered, time_ns t);

  // Appends a sample per route whose gathered span reached `interval` (all of them with
  // `force`), and starts them afresh.
  void flush(time_ns interval, std::vector<sample>& out, bool force = false);

  // All one stack sample gives, in order: describes its threads (classified by `is_io`,
  // their io counters read when needs_io()), adds them (`covered` seconds before engine time
  // `t`), appends the samples due at `interval`, returns the resources never seen before.
  // `described`, when given, gets the threads as described (for the sample window).
  std::vector<std::string> on_stack_sample(const native::stack_snapshot& snapshot,
                                           const native::io_predicate& is_io, double covered,
                                           time_ns t, time_ns interval, std::vector<sample>& out,
                                           std::vector<native::sampled_thread>* described = nullptr);

  // The resources seen since the last call and never returned before.
  std::vector<std::string> take_new_resources(const std::vector<native::sampled_thread>& threads);

 private:
  struct route {
    mi_handle mi;
    native::pc_metric metric;
    native::pc_focus focus;
    bool open = false;  // something gathered since the last flush
    time_ns start = 0, end = 0;
    double value = 0;
    double weight = 0;  // SAMPLED: the covered time the levels were weighed with
    double last_level = 0;
  };

  native::sampled_process process_;
  std::vector<route> routes_;
  std::set<std::uint64_t> elsewhere_;  // MIs (by id) whose focus is on another host
  bool io_always_ = false;
  std::map<int, native::thread_io> previous_io_;
  struct io_counts {
    double ops = 0, bytes = 0;
  };
  std::map<int, io_counts> uncharged_io_;  // per thread: counts no stack was charged with yet
  std::set<std::string> known_resources_;
  native::sync_object_namer sync_names_;
};

}  // namespace perfdm
