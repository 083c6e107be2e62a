// One module's records folded per file (record id) across ranks, in bounded memory: the file
// count summary and the per-file cases the insights cite (job_summary.hpp's file_metric).
// A log's records of one file are spread over the log (each rank's records are stored
// together), so a file's totals are known only at the end of a pass. When a pass meets more
// files than `max_files`, it keeps the files of half the ids (by a hash of the id) and
// leaves the other half to a later pass, as often as needed: each pass holds at most
// `max_files` files, and every file is folded exactly once.
//
//   file_table t(module, options);
//   while (t.next_pass()) source.for_each_record(module, false, [&](auto& r, auto) { t.add(r); });
//   t.results_into(summary);   // file counts and cases
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>

#include "darshan/darshan_log.hpp"
#include "ioinsights/thresholds.hpp"
#include "iosummary/job_summary.hpp"

namespace perfdm::iosummary {

struct file_table_options {
  std::size_t max_files = 200000;  // files held at once (about 300 bytes each)
  std::size_t top_files = 8;       // files kept per kind of case
  ioinsights::thresholds limits;
};

class file_table {
 public:
  file_table(int module, file_table_options options);

  // Starts the next pass; false when every file has been folded. The first pass may run
  // with the summary's own pass over the records.
  bool next_pass();
  std::uint64_t passes() const { return passes_; }
  // Folds `r` when its file belongs to this pass.
  void add(const darshan::record& r);
  // The file counts and cases of every pass so far (call after the last pass).
  void results_into(module_summary& m) const;

  // The counters a module's files are folded from (file_table.cpp).
  struct indexes;

  // Per-file totals (all in one struct so that a file costs one allocation).
  struct file {
    double ranks = 0;  // records of single ranks
    bool shared = false;  // a record of every rank (rank -1)
    double reads = 0, writes = 0, small_reads = 0, small_writes = 0;
    double bytes_read = 0, bytes_written = 0, max_byte_read = -1, max_byte_written = -1;
    double seq_reads = 0, seq_writes = 0, mem_not_aligned = 0, file_not_aligned = 0;
    double read_time = 0, write_time = 0, meta_time = 0;
    // the shared record's
    double sh_reads = 0, sh_writes = 0, sh_small_reads = 0, sh_small_writes = 0, sh_bytes = 0;
    double sh_slowest_bytes = 0, sh_fastest_bytes = 0, sh_time = 0, sh_read_time = 0,
           sh_write_time = 0, sh_slowest_time = 0, sh_fastest_time = 0;
    // over single-rank records
    double min_read = -1, max_read = 0, min_written = -1, max_written = 0;
    double own_read_time = 0, own_write_time = 0;
    // MPI-IO
    double indep_reads = 0, indep_writes = 0, coll_reads = 0, coll_writes = 0;
  };

 private:
  void fold(std::uint64_t id, const file& f);
  void finish_pass();

  int module_;
  file_table_options options_;
  // A pass takes the files whose hashed id is `residue` modulo `modulus`.
  std::deque<std::pair<std::uint64_t, std::uint64_t>> pending_{{0, 1}};
  std::uint64_t residue_ = 0, modulus_ = 1;
  bool in_pass_ = false;
  std::uint64_t passes_ = 0;
  std::unordered_map<std::uint64_t, file> files_;
  // Results so far.
  file_counts counts_;
  std::array<case_list, file_metric_count> cases_;
  const indexes& ix_;
};

}  // namespace perfdm::iosummary
