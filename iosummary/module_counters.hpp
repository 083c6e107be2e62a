// Which counters a job summary shows for each module, by Darshan's counter names (the
// current layout, darshan_counters.hpp), as PyDarshan's job summary groups them
// (darshan/cli/summary.py and darshan/experimental/plots/: the operation counts, the access
// size histograms, the common access sizes and the read/write/metadata times).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace perfdm::iosummary {

// One bar of the operation counts: its label and the counters whose sum it is.
struct operation_bar {
  std::string label;
  std::vector<int> counters;  // indexes in the module's current int counters
};

// What the summary reads from one module's counters; indexes are -1 where the module has no
// such counter.
struct module_counters {
  int module = 0;
  std::vector<operation_bar> operations;  // empty: no operation counts
  std::vector<int> read_sizes, write_sizes;  // the 10 size buckets (empty: none)
  std::vector<int> access_sizes, access_counts;  // ACCESS1..4 (empty: none)
  int bytes_read = -1, bytes_written = -1;
  std::vector<int> reads, writes;  // the counters whose sum is the reads (writes)
  int max_byte_read = -1, max_byte_written = -1;
  int read_time = -1, write_time = -1, meta_time = -1;  // float counters
  // Its times include another module's beneath it (MPI-IO over POSIX, HDF5 and PnetCDF over
  // MPI-IO): left out of the job's I/O time, which counts each call once.
  bool layered = false;
};

// The counters of `module`, or null for a module a summary does not show counters of
// (LUSTRE, HEATMAP, DXT, unknown modules).
const module_counters* counters_of(int module);

// The index of `name` among `module`'s current int (or float) counters, or -1.
int int_counter(int module, const std::string& name);
int float_counter(int module, const std::string& name);

}  // namespace perfdm::iosummary
