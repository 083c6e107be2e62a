// A watched process's I/O counters while it runs: the segment the preloaded I/O library
// counts into (iocounters/io_segment.hpp, docs/IO.md §5), found through the process's
// memory map, and its records summed per file as the Data Manager's file.* metrics take
// them (bytes, operations and time, by read, write and metadata; POSIX and STDIO together,
// MPI-IO apart: its bytes also pass through the POSIX calls beneath it).
// Plain C++: the native source reads, tests feed snapshots.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "iojob/segment_snapshot.hpp"

namespace perfdm::iolive {

// One file's totals in one process since its first call. Times in seconds.
struct file_counts {
  double read_bytes = 0, write_bytes = 0;
  double read_ops = 0, write_ops = 0, meta_ops = 0;
  double read_time = 0, write_time = 0, meta_time = 0;
  // MPI-IO's own, apart from the POSIX and STDIO sums above: the MPI library's POSIX calls
  // beneath carry the same bytes, so one sum of both would count them twice.
  double mpiio_read_bytes = 0, mpiio_write_bytes = 0;
  double mpiio_read_ops = 0, mpiio_write_ops = 0, mpiio_collective_ops = 0, mpiio_meta_ops = 0;
  double mpiio_read_time = 0, mpiio_write_time = 0, mpiio_meta_time = 0;
  // Its first open, read or write (CLOCK_REALTIME ns), 0 when none: where its counts start.
  std::int64_t first_realtime_ns = 0;
  file_counts& operator+=(const file_counts& o);  // sums; the earlier first
};

// One reading of a process's segment.
struct live_reading {
  std::string segment;  // its path: a process that execs counts into a new one
  std::int64_t start_realtime_ns = 0;  // the process's first call (CLOCK_REALTIME)
  bool ended = false;                  // the process exited or exec'd: nothing more comes
  std::map<std::string, file_counts> files;  // by /File resource (native::file_resource)
};

// The I/O segments mapped in a /proc/PID/maps text, in map order: files named
// `PID.TICKS.seg` in a `perfdm-io.*` directory, not deleted.
std::vector<std::string> segment_paths_in_maps(const std::string& maps);

// The job directory a process was started in (PERFDM_IO_JOB of its initial environment, as
// perfdm search and top set it), "" when none: a process that started a job itself sets it
// later, and its map names its segment.
std::string io_job_dir_of(int pid);

// The segment process `pid` counts into: the last one its map holds (its own pid's, if any);
// else, in `job_dir` (given), its newest `PID.TICKS.seg` (so that a process that ended before
// its map was read is still found). "" when there is none (no library, or no call yet).
std::string find_io_segment(int pid, const std::string& job_dir = "");

// The per-file totals of a snapshot. Ticks become seconds through the process's start
// (ticks, realtime) pair and a later one: its end's once it ended, else (`now_ticks`,
// `now_realtime_ns`) read by the caller at the copy.
//   read_*   POSIX reads (POSIX_READS, _BYTES_READ, POSIX_F_READ_TIME) + STDIO's
//   write_*  POSIX writes (fsync's time is write time, as Darshan counts it) + STDIO's
//   meta_ops POSIX opens, seeks, stats, syncs, rename sources, truncates, unlinks, mkdirs;
//            STDIO opens, seeks, flushes
//   meta_time POSIX_F_META_TIME + STDIO_F_META_TIME
//   mpiio_read_*/_write_*  MPIIO_BYTES_READ / _WRITTEN; MPIIO_INDEP_, COLL_, SPLIT_ and
//            NB_READS / _WRITES; MPIIO_F_READ_TIME / _WRITE_TIME (MPI_File_sync's is write time)
//   mpiio_collective_ops  MPIIO_COLL_ and SPLIT_READS and _WRITES
//   mpiio_meta_ops  MPIIO_INDEP_OPENS, _COLL_OPENS, _SYNCS, _VIEWS; mpiio_meta_time
//            MPIIO_F_META_TIME (opens, closes, views with hints)
live_reading totals_of(const io::segment_snapshot& snapshot, std::uint64_t now_ticks,
                       std::int64_t now_realtime_ns);

}  // namespace perfdm::iolive
