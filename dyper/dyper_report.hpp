// DyPer's REPORT schema for a native process (docs/NATIVE.md, "DyPer's REPORT"): the
// `<MONITOR>` element the original agent pushes, with every section DyPer's controller parses
// (COUNTERS, THREADS, TIMING, MEMORY, IOCOUNTERS, REACTIONS), built from what perfdm reads of
// a native process: the stack sampler's profile and thread states, and /proc. Plain C++: the
// process registry reads, this file computes, messages/agent_report_monitor.hpp prints.
//
// Units are DyPer's: times in ms since the epoch, durations and CPU in ms, memory in bytes.
// Some sections are averages over the reports so far (MEMORY's USED/COMM, TIMING's NLIVE),
// as the original's are over its checks: dyper_report_history keeps them per process.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "messages/agent_report_monitor.hpp"
#include "messages/native_messages.hpp"

namespace perfdm {

// One thread as /proc shows it now.
struct dyper_thread_reading {
  std::int32_t tid = 0;
  std::string name;
  std::string state;          // running, sleeping, ... (native::state_name)
  std::int64_t start_ms = 0;  // when it started, ms since the epoch
  double user_ms = 0, system_ms = 0;
  std::uint64_t voluntary = 0, involuntary = 0;  // context switches
};

// What /proc/PID/status says of the memory (bytes; absent fields stay 0).
struct dyper_memory_reading {
  std::uint64_t vm_size = 0, vm_data = 0, vm_stack = 0;
  std::uint64_t rss_anon = 0, rss_file = 0, rss_shmem = 0;
};

// Everything one report is made of.
struct dyper_report_readings {
  std::int64_t now_ms = 0;  // epoch ms
  std::int64_t nano = 0;    // a monotonic clock in ns (DyPer's System.nanoTime)
  std::int32_t pid = 0;
  std::int32_t processors = 1;
  std::optional<cpu_profile_report> profile;  // the sampler's, when the process is watched
  bool have_proc = false;                     // /proc could be read (the process still runs)
  std::vector<dyper_thread_reading> threads;
  dyper_memory_reading memory;
  std::uint64_t io_read = 0, io_write = 0, storage_read = 0, storage_write = 0;
  double report_cost_ms = 0;      // the mean cost of building a report so far (REPORTTIME)
  std::uint64_t min_counter = 0;  // MIN_COUNTER: COUNTERS lists the items counted this often
};

// What one process's reports remember from one to the next.
class dyper_report_history {
 public:
  // `start_ms`: when the engine began observing the process (MEMORY START, CLOCK's origin).
  explicit dyper_report_history(std::int64_t start_ms) : start_ms_(start_ms) {}

  // The `<MONITOR …>` element's DyPer parts (its sampling figures and sections); perfdm's
  // (`process`, `perfdm`) are the caller's to fill.
  agent_report_monitor monitor(const dyper_report_readings& r);

 private:
  struct usage {  // running sums of one MEMORY USAGE over the reports
    double init = 0, used = 0, used2 = 0, comm = 0, comm2 = 0, last_used = 0, last_comm = 0;
    std::uint64_t count = 0;
  };
  void add_usage(const std::string& name, double used, double committed);
  agent_report_counters counters(const dyper_report_readings& r) const;
  agent_report_threads threads(const dyper_report_readings& r);
  agent_report_timing timing(const dyper_report_readings& r);
  agent_report_memory memory(const dyper_report_readings& r);

  std::int64_t start_ms_;
  std::map<std::string, usage> usages_;  // by NAME
  std::vector<std::string> usage_order_;
  double live_sum_ = 0, live_sum2_ = 0;
  std::uint64_t live_count_ = 0;
  std::map<std::int32_t, dyper_thread_reading> seen_;  // every thread ever listed, last reading
  std::set<std::int32_t> first_seen_;                  // threads of the first report (not CREATED)
  std::map<std::int32_t, std::int64_t> ended_ms_;      // threads gone: when first missed
  bool first_ = true;
};

}  // namespace perfdm
