// Turns /proc readings of one watched process into samples for the metric instances that
// collect the `proc.*` metrics (plain C++; the native source actor feeds it, tests drive it).
//
// - Metrics: proc.cpu_user, proc.cpu_system (COUNTER, seconds of CPU), proc.rss (SAMPLED,
//   bytes), proc.io_read_bytes, proc.io_write_bytes (COUNTER, bytes through read/write
//   calls), proc.ctx_voluntary, proc.ctx_involuntary (COUNTER, switches), proc.threads
//   (SAMPLED, threads). COUNTERs are amounts per interval (what an interval cost), SAMPLEDs
//   levels (what the program holds).
// - Resources: the process /Process/<name>{<pid>} and each thread /Process/<name>{<pid>}/<tid>.
//   An MI whose focus is the process or one of its ancestors takes the process's figures; an
//   MI whose focus is a thread takes that thread's (CPU time and context switches exist per
//   thread; memory, I/O and the thread count only per process, so a thread focus gets none).
// - A sample covers the time between two readings: the first reading of a target only sets
//   its baseline. Counters that go backwards (a thread id reused) give 0, never negative.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "messages/dm_messages.hpp"
#include "messages/source_messages.hpp"
#include "messages/time.hpp"
#include "native/proc_stats.hpp"

namespace perfdm {

struct proc_metric {
  const char* name;
  metric_style style;
  const char* units;
  bool per_thread;  // also measured per thread
};

class proc_sample_builder {
 public:
  static constexpr std::size_t metric_count = 8;
  static const std::array<proc_metric, metric_count>& metrics();

  explicit proc_sample_builder(std::string process_resource);

  const std::string& resource() const { return resource_; }
  std::string thread_resource(int tid) const;

  void set_collecting(const std::vector<collecting_mi>& mis);
  bool collecting() const { return !routes_.empty(); }
  // What a reading must include for the routes: /proc/PID/io only for I/O metrics, the
  // threads only for per-thread routes or context switches (the process's own count in
  // /proc/PID/status is its main thread's; the sum over threads is the process's).
  native::proc_read_options needs() const;

  // A reading taken at engine time `t`: appends a sample per route whose target was read
  // before, over [previous reading, t].
  void add(const native::process_stats& p, time_ns t, std::vector<sample>& out);

 private:
  struct route {
    mi_handle mi;
    std::size_t metric;
    int target;  // 0: the process; else a thread id
  };
  struct reading {
    time_ns t = 0;
    std::array<double, metric_count> values{};
  };
  void record(int target, const std::array<double, metric_count>& values, time_ns t,
              std::vector<sample>& out);

  std::string resource_;
  std::vector<route> routes_;
  std::map<int, reading> previous_;
};

// How long from engine time `now` until the next reading: just after the next boundary of
// `interval` in engine time (1 ms after), not one interval from now, so that every daemon's
// samples end together and a relay over them completes each interval once, not once per
// child's report. One interval when the time or the interval says nothing.
time_ns next_reading_delay(time_ns now, time_ns interval);

}  // namespace perfdm
