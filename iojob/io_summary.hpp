// The one-screen summary `perfdm io` prints at the end of a run (docs/IO.md §2): files,
// bytes, I/O time by read, write and metadata, the files that took the most I/O time each with
// its access pattern in words ("4 KiB random reads, 92 % not sequential"), and whatever the
// log lacks (partial modules, uncounted calls, processes that did not exit); in an MPI job,
// MPI-IO's bytes, times and operations for the job and for each top file (mpiio_summary.hpp).
// As text or JSON.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "iojob/io_log_contents.hpp"
#include "iojob/mpiio_summary.hpp"

namespace perfdm::io {

struct file_summary {
  std::string name;
  bool shared = false;  // every process had it (rank -1)
  std::size_t processes = 0;
  std::int64_t bytes_read = 0;
  std::int64_t bytes_written = 0;
  std::int64_t reads = 0;
  std::int64_t writes = 0;
  double read_time = 0;
  double write_time = 0;
  double meta_time = 0;
  std::string pattern;  // in words
  mpiio_view mpiio;     // empty without an MPI-IO record
  // The POSIX and STDIO time, or MPI-IO's when longer (it includes the POSIX calls beneath).
  double io_time() const { return std::max(read_time + write_time + meta_time, mpiio.io_time()); }
};

struct io_summary {
  std::string command;
  double run_seconds = 0;
  std::size_t processes = 0;  // the log's nprocs: the ranks in an MPI job
  bool mpi = false;           // the log's processes are MPI ranks
  // An MPI job's processes that are no rank (mpirun, its daemons, the forks before they exec
  // a rank): left out of the records, their counts in the job record (outside_ranks).
  struct outside {
    std::size_t processes = 0;
    std::string programs;   // their executables' names, each once
    std::size_t files = 0;  // their records
    std::int64_t bytes_read = 0;
    std::int64_t bytes_written = 0;
  } outside_ranks;
  std::size_t files = 0;
  std::size_t files_read = 0;
  std::size_t files_written = 0;
  std::int64_t bytes_read = 0;
  std::int64_t bytes_written = 0;
  double read_time = 0;
  double write_time = 0;
  double meta_time = 0;
  mpiio_view mpiio;                  // the job's MPI-IO; empty without an MPI-IO record
  std::vector<file_summary> top;     // by I/O time, longest first
  bool partial = false;              // a module of the log is partial
  std::vector<std::string> missing;  // what the log lacks, one sentence each
};

// `top` files at most.
io_summary summarize(const io_log_contents& log, std::size_t top);

// The access pattern of a POSIX record in words.
std::string access_pattern(const log_posix_record& r);

// "4 KiB", "1.5 MiB", "100 B".
std::string size_in_words(std::int64_t bytes);
// "92 %" of a fraction; "0.125 s".
std::string percent_in_words(double fraction);
std::string seconds_in_words(double seconds);

std::string summary_text(const io_summary& s);
std::string summary_json(const io_summary& s);

}  // namespace perfdm::io
