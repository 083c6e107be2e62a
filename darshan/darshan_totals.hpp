// What darshan-parser derives from a module's records (POSIX, MPI-IO and STDIO), computed
// the way darshan-util computes it (darshan-*-logutils.c: log_agg_records and
// log_record_metrics; darshan-logutils-accumulator.c), in the current counter layout:
// - total_record: --total, all records folded into one;
// - file_summary: --file, files by kind (read-only, write-only, ..., unique, shared);
// - perf_summary: --perf, bytes and the slowest rank's I/O time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "darshan/darshan_log.hpp"

namespace perfdm::darshan {

// True for the modules darshan-parser derives totals, file counts and performance for.
bool has_totals(int module);

class total_record {
 public:
  explicit total_record(int module);
  void add(const record& r);
  std::size_t records() const { return records_; }
  // Current layout (darshan_counters.hpp order).
  const std::vector<std::int64_t>& ints() const { return ints_; }
  const std::vector<double>& floats() const { return floats_; }

 private:
  int module_;
  std::size_t records_ = 0;
  std::uint64_t id_ = 0;
  std::int64_t rank_ = 0;
  std::vector<std::int64_t> ints_;
  std::vector<double> floats_;
  std::vector<std::int64_t> in_ints_;
  std::vector<double> in_floats_;
};

// Files (record ids) by kind. Memory grows with the number of distinct files: about 64
// bytes each.
class file_summary {
 public:
  void add(const record& r);
  struct kind {
    std::int64_t count = 0, bytes = 0, max_offset = 0;
  };
  // total, read_only, write_only, read_write, unique, shared (globally and partly shared
  // together, the maximum offset being the sum of the two kinds' maxima, as darshan-parser
  // prints it).
  struct counts {
    kind total, read_only, write_only, read_write, unique, shared;
  };
  counts summarize() const;

 private:
  struct file {
    std::int64_t read = 0, written = 0, max_offset = 0, nprocs = 0;
  };
  std::unordered_map<std::uint64_t, std::size_t> index_;
  std::vector<file> files_;  // in first-seen order
};

class perf_summary {
 public:
  void add(const record& r);
  struct result {
    std::int64_t total_bytes = 0;
    double slowest_rank_io_time = 0, slowest_rank_meta_only_time = 0,
           slowest_rank_rw_only_time = 0;
    std::int64_t slowest_rank = 0;
    double shared_time_by_slowest = 0, agg_time_by_slowest = 0, agg_perf_by_slowest = 0;
  };
  result summarize() const;

 private:
  struct times {
    double io = 0, rw = 0, meta = 0;
  };
  std::int64_t total_bytes_ = 0;
  double shared_ = 0;
  std::map<std::int64_t, times> ranks_;  // ranks in order, as darshan-util scans them
};

}  // namespace perfdm::darshan
