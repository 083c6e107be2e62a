// A process's heatmap in Darshan's form (darshan-runtime/lib/darshan-heatmap.c, heatmap_output):
// bins of 0.1 s doubled until the run (`end_seconds` after the job started) fits in 200 bins,
// ceil(end / width) of them, bytes written then bytes read per bin. Built from the library's
// finer bins (iocounters/heatmap_bins.hpp), each spread over the bins it overlaps in
// proportion to time, so no byte is lost.
#pragma once

#include <cstdint>
#include <vector>

#include "iojob/darshan_records.hpp"
#include "iojob/segment_snapshot.hpp"

namespace perfdm::io {

struct heatmap_record {
  std::uint64_t id;  // Darshan's id of "heatmap:POSIX" (STDIO, MPIIO)
  std::int64_t rank;
  double bin_width_seconds;
  std::vector<std::int64_t> write_bins;
  std::vector<std::int64_t> read_bins;
  bool empty() const;
};

// Darshan's bin width for a run of `end_seconds`.
double heatmap_bin_width(double end_seconds);

heatmap_record heatmap_of(const segment_snapshot& s, heatmap_api api, std::int64_t rank,
                          const time_base& t, double end_seconds);

}  // namespace perfdm::io
