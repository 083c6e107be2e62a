// The bounded window of one watched process's I/O library readings: per reading (one per
// sampling interval, while the process has the library), each file's cumulative totals as
// the library counted them (iolive/live_segment.hpp). The search asks it what a focus did
// since a time, as differences of those totals: exact counts and times, where the stack
// samples only sample which file a thread was in.
//
// A reading keeps only the files whose totals changed since the reading before (a file's
// totals at a time are those of its latest entry at or before it), so an idle file costs
// nothing per reading. Bounded like the stack samples (window_limits: a span and a byte
// budget): the oldest readings go first, folded into the totals at the oldest held reading,
// and what goes is counted. The newest reading always stays. Plain C++: the native source
// actor feeds it, tests drive it with synthetic readings.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "iolive/live_segment.hpp"
#include "native/focus_attribution.hpp"
#include "window/sample_window.hpp"

namespace perfdm::window {

// What the library counted at a focus between two times.
struct library_io {
  double ops = 0, bytes = 0;  // read + write operations and bytes
  // read + write + metadata seconds: opens, stats and syncs block the program as reads do
  double time = 0;
  double from = 0, to = 0;  // seconds (engine time) the counts lie between
  std::size_t files = 0;    // the library's files at the focus
  // The focus is the process's files (or all its data files). False when it also names a
  // thread or a function: the library counts per process and file, so only its files' mean
  // operation size speaks for the focus.
  bool whole = true;
};

struct file_window_stats {
  std::uint64_t readings = 0, entries = 0, files = 0;
  std::size_t bytes = 0;
  std::uint64_t evicted_readings = 0, evicted_entries = 0;
  std::size_t evicted_bytes = 0;
  double oldest = 0;  // seconds: the oldest reading held (0 when none)
};

class file_window {
 public:
  explicit file_window(window_limits limits = {});

  // A reading of the process's segment at engine time `t_ns`, when CLOCK_REALTIME read
  // `t_ns + realtime_offset_ns`. A process that execs counts into a new segment: the old
  // one's last reading stays in the totals. Readings come in time order.
  void add(std::int64_t t_ns, std::int64_t realtime_offset_ns, const iolive::live_reading& reading);

  // Whether any reading came: the process has the library.
  bool present() const { return !readings_.empty(); }

  // What the library counted at `focus` from `since` (seconds, engine time) on. None when the
  // library does not count by the focus (a /SyncObject part; a thread or a /Code part without
  // a /File part: it counts per process and file), the focus is another process's, or none of
  // the library's files is at it (a pipe or a socket, a file it excludes: the stack samples
  // still speak for those). Without a /File part, the focus's files are the process's data
  // files (pseudo-files left out, native/data_io.hpp); with one, the data files at or under it
  // (`whole` false when the focus also names a thread or a function).
  std::optional<library_io> count(const native::pc_focus& focus,
                                  const native::sampled_process& process, double since) const;

  file_window_stats stats() const;

 private:
  struct totals {
    double ops = 0, bytes = 0, time = 0;
    bool operator==(const totals& o) const {
      return ops == o.ops && bytes == o.bytes && time == o.time;
    }
  };
  struct entry {
    std::uint32_t file;
    totals at;
  };
  struct reading {
    std::int64_t t_ns;
    std::uint32_t entries;  // how many of `entries_` after the previous reading's
  };

  std::uint32_t intern(const std::string& file);
  void evict_front();
  void enforce(std::int64_t now_ns);
  // Whether file `id` is at `focus` (its /File parts only).
  bool at_focus(std::uint32_t id, const native::pc_focus& focus) const;

  window_limits limits_;
  // The latest reading of each segment the process has counted into, per file.
  std::map<std::string, std::map<std::string, totals>> segments_;
  std::vector<std::string> names_;  // by file id
  std::vector<bool> data_;          // by file id: a data file (not a pseudo-file)
  std::map<std::string, std::uint32_t> ids_;
  std::vector<totals> latest_;  // by file id: the totals at the newest reading
  std::vector<totals> floor_;   // by file id: the totals at the newest evicted reading
  std::int64_t floor_t_ns_ = 0;
  std::int64_t start_ns_ = 0;  // the process's first call (engine time), 0 when not known
  bool start_known_ = false;
  std::deque<reading> readings_;
  std::deque<entry> entries_;
  std::size_t bytes_ = 0;
  file_window_stats evicted_;
};

}  // namespace perfdm::window
