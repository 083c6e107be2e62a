// Turns the live readings of one watched process's I/O segment (live_segment.hpp) into
// samples of the file.* metrics for the metric instances that collect them, and names the
// /File resources the readings show so that the data manager defines them as files appear.
// Plain C++: the native source actor feeds it, tests drive it with readings.
//
// - Metrics (all COUNTER): file.read_bytes, file.write_bytes (bytes), file.read_ops,
//   file.write_ops, file.meta_ops (operations), file.read_time, file.write_time,
//   file.meta_time (seconds), per file and process, exact: the library counts every call.
//   MPI-IO's calls count apart, in file.mpiio_read_bytes, file.mpiio_write_bytes (bytes),
//   file.mpiio_read_ops, file.mpiio_write_ops, file.mpiio_collective_ops,
//   file.mpiio_meta_ops (operations), file.mpiio_read_time, file.mpiio_write_time,
//   file.mpiio_meta_time (seconds): the POSIX calls beneath them are already in file.*.
// - Foci: a /File resource (a file, or a directory: every file under it), the process's
//   /Machine/<host>/<process>{<pid>} (or its host), the roots; a focus naming a thread, a
//   /Code or /SyncObject resource, or another source's resource gets nothing (the library
//   counts per process and file, not per thread or function).
// - An MI's first sample carries everything its focus's files counted so far, over [the
//   first open, read or write of those files (engine time 0 at the earliest), now]: the
//   counts are the library's totals, so a file's bytes are whole whenever its MI was enabled
//   (the dashboard enables one as the file appears). Later samples carry what was counted since the reading
//   before. A process that execs counts into a new segment: the old one's last reading stays
//   in the sums, so nothing goes back.
#pragma once

#include <array>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "iolive/live_segment.hpp"
#include "messages/dm_messages.hpp"
#include "messages/source_messages.hpp"
#include "messages/time.hpp"
#include "native/focus_attribution.hpp"

namespace perfdm::iolive {

struct file_metric {
  const char* name;
  const char* units;
  double file_counts::*field;
};

class file_sample_builder {
 public:
  static constexpr std::size_t metric_count = 17;
  static const std::array<file_metric, metric_count>& metrics();

  explicit file_sample_builder(native::sampled_process process);

  void set_collecting(const std::vector<collecting_mi>& mis);
  bool collecting() const { return !routes_.empty(); }

  // A reading taken at engine time `t`, when CLOCK_REALTIME read `t + realtime_offset`.
  // Appends a sample per route; returns the /File resources never returned before.
  std::vector<std::string> add(const live_reading& reading, time_ns realtime_offset, time_ns t,
                               std::vector<sample>& out);

 private:
  struct route {
    mi_handle mi;
    std::size_t metric;
    native::pc_focus focus;
    bool sent = false;  // a first sample went out
    double last = 0;    // the focus's total at the previous sample
    time_ns last_t = 0;
  };
  struct focus_total {
    double value = 0;
    std::int64_t first_realtime_ns = 0;  // the earliest first call of the files with counts
  };
  focus_total total(const route& r) const;

  native::sampled_process process_;
  std::vector<route> routes_;
  // The latest reading of each segment the process has counted into.
  std::map<std::string, std::map<std::string, file_counts>> segments_;
  std::set<std::string> known_;
};

}  // namespace perfdm::iolive
