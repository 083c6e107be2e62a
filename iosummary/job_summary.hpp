// A job's I/O summary: what PyDarshan's job summary shows (the job and module tables, the
// I/O cost per process, operation counts, access sizes, common access sizes, file counts,
// data per file system, heatmaps, DXT), and the per-file evidence the insights cite. Plain
// data, built by summary_builder.hpp in memory bounded by what it shows: per rank (at most
// `nprocs` entries), per mount point, per heatmap bin, and the top files of each kind.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "iosummary/io_source.hpp"

namespace perfdm::iosummary {

// Files of one kind in the file count summary (sizes estimated by the highest offset).
struct file_kind {
  std::int64_t count = 0;
  double total_size = 0;
  std::int64_t max_size = 0;
};
struct file_counts {
  file_kind total, read_only, write_only, read_write;
};

// One file cited as evidence: `count` of its `of` operations (or bytes) are the case, and
// `seconds` of its I/O time are at stake.
struct file_case {
  std::uint64_t id = 0;
  std::string name;  // filled once the top files are known
  double count = 0, of = 0, seconds = 0, bytes = 0;
};

// A kind of case over every file of a module: totals over all files, the files that are a
// case, and the top ones by time at stake.
struct case_list {
  double count = 0, of = 0;  // over every file
  double seconds = 0;        // over the files that are a case
  std::uint64_t files = 0;   // files that are a case
  std::vector<file_case> top;  // by seconds, then count: at most top_files
};

// The kinds of per-file case (file_table.cpp says what count, of and seconds are for each).
enum class file_metric : int {
  io_time,             // every file: its I/O time (the top files table)
  small_reads,         // P05 (size < 1 MiB)
  small_writes,        // P06
  misaligned_memory,   // P07
  misaligned_file,     // P08
  redundant_reads,     // P09: more bytes read than the file's extent
  redundant_writes,    // P10
  random_reads,        // P11: reads that were not sequential
  random_writes,       // P13
  shared_small_reads,  // P15: small reads in files every rank shared
  shared_small_writes,  // P16
  meta_time,           // P17's files: metadata time
  shared_bytes_imbalance,  // P18: slowest vs fastest rank's bytes, shared files
  shared_time_imbalance,   // P19: slowest vs fastest rank's time, shared files
  write_size_imbalance,    // P21: bytes written by the ranks of one file, max vs min
  read_size_imbalance,     // P22
  independent_reads,       // M02: MPI-IO files read independently
  independent_writes,      // M03
  count_
};
inline constexpr std::size_t file_metric_count = static_cast<std::size_t>(file_metric::count_);

struct module_summary {
  source_module info;
  std::uint64_t records = 0;
  // Sums of the current layout's counters over every record (negative values, Darshan's
  // "not monitored", left out); float counters summed likewise (times; timestamps are not).
  std::vector<double> ints, floats;
  double sum(int index) const { return index >= 0 && std::size_t(index) < ints.size() ? ints[index] : 0; }
  double fsum(int index) const {
    return index >= 0 && std::size_t(index) < floats.size() ? floats[index] : 0;
  }
  double reads = 0, writes = 0, bytes_read = 0, bytes_written = 0;
  double read_time = 0, write_time = 0, meta_time = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> common_sizes;  // (size, count), top 4
  bool common_sizes_approximate = false;  // more distinct sizes than were kept
  file_counts files;
  std::array<case_list, file_metric_count> cases;
  const case_list& at(file_metric m) const { return cases[static_cast<std::size_t>(m)]; }
  // darshan-parser --perf's estimate (POSIX, MPI-IO, STDIO): MiB/s by the slowest rank.
  double perf_mib_per_s = -1;
  double slowest_rank_seconds = 0;
};

// Bytes read and written on one mount point (POSIX and STDIO).
struct mount_usage {
  std::string point, type;
  double bytes_read = 0, bytes_written = 0;
  std::uint64_t records = 0;
};

// Ranks drawn as rows: `ranks_per_row` consecutive ranks per row.
struct rank_rows {
  std::int64_t ranks_per_row = 1;
  std::int64_t rows = 0;
};

// I/O time of each process (POSIX and STDIO, the calls themselves), by row of ranks:
// a file every rank shared counts its time evenly on every rank.
struct rank_costs {
  rank_rows layout;
  std::vector<double> read, write, meta;  // seconds per row (sum over its ranks)
};

// Bytes over time and ranks: a HEATMAP module's API, or a DXT module's segments.
struct heatmap {
  std::string name;        // "POSIX", "STDIO", "MPIIO", "DXT_POSIX"...
  double bin_width = 0;    // seconds
  rank_rows layout;
  std::vector<std::vector<double>> bytes;  // [row][bin]: read + written
  std::vector<double> read_bins, write_bins;  // over all ranks
  std::uint64_t records = 0;
};

// A DXT module's traces.
struct dxt_summary {
  std::string module;  // DXT_POSIX or DXT_MPIIO
  std::uint64_t records = 0, read_segments = 0, write_segments = 0;
  double bytes_read = 0, bytes_written = 0, last_end = 0;
  heatmap map;
  std::vector<file_case> top;  // files by segments (count: segments, bytes, seconds: time in calls)
};

struct job_summary {
  source_job job;
  std::vector<module_summary> modules;  // in the log's order
  std::vector<mount_usage> mounts;      // by bytes, largest first
  rank_costs costs;
  std::vector<double> rank_meta_time;   // seconds per rank (P17), at most nprocs entries
  std::vector<heatmap> heatmaps;
  std::vector<dxt_summary> dxt;
  std::vector<std::string> notes;       // what could not be read
  std::uint64_t file_passes = 0;        // passes over the records the per-file tables took
  // The job's I/O time: POSIX and STDIO (and other modules that are not layered over them)
  // summed over every process, in seconds.
  double io_time = 0;

  const module_summary* find(int module) const {
    for (const auto& m : modules)
      if (m.info.id == module) return &m;
    return nullptr;
  }
};

}  // namespace perfdm::iosummary
