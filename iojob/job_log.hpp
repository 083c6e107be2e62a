// One log for a whole run: the processes' segments reduced as Darshan's shutdown does
// (darshan-runtime/lib/darshan-core.c, darshan_core_shutdown) and written as a perfdm log
// (docs/LOG-FORMAT.md) with the I/O modules (log/log_io_records.hpp). Processes are ranks in
// the order they started, except in an MPI run, where the ranks are MPI_COMM_WORLD's and the
// processes that did not initialise MPI are left out (the job record lists what each counted);
// with more than one rank, a file every rank had becomes one record of rank -1
// (shared_reduction.hpp), the others stay per rank. A process's ticks become seconds
// with two clock readings far apart: its start and its end (or, for a process that did not
// exit, the time of this reduction). Timestamps count from the job's first process's start,
// an MPI rank's from its own MPI_Init, and an MPI job spans its ranks' MPI_Init to
// MPI_Finalize, as Darshan's MPI build counts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "iojob/segment_snapshot.hpp"
#include "log/log_codec.hpp"

namespace perfdm::io {

struct job_log_options {
  log_compression compression = log_compression::zlib;
  std::string command_line;  // empty: the first process's
  std::string host;          // empty: this machine's name
};

struct job_log_result {
  std::size_t processes = 0;
  std::size_t outside_ranks = 0;  // processes of an MPI run that are no rank (mpirun...)
  std::size_t unfinished = 0;     // processes that neither exited nor exec'd (killed)
  std::size_t posix_records = 0;
  std::size_t stdio_records = 0;
  std::size_t mpiio_records = 0;
  std::size_t shared_records = 0;
  std::uint64_t partial_modules = 0;  // bit per Darshan module id
  std::uint64_t uncounted_calls = 0;
  std::uint32_t torn_records = 0;
};

// Writes the log of `segments` to `path` (`path`.partial first). Throws log_error.
job_log_result write_job_log(const std::vector<segment_snapshot>& segments, const std::string& path,
                             const job_log_options& options = {});

}  // namespace perfdm::io
