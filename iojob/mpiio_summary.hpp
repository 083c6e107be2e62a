// MPI-IO in the summary `perfdm io` prints (docs/IO.md §2): the bytes, times and operations of
// Darshan's MPIIO records, for the job and for one file, the operations said in words
// ("4 collective, 16 independent writes"). MPI-IO's bytes also reach the file system through
// the POSIX calls beneath, so they are shown beside the POSIX and STDIO totals, never added.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "iojob/access_sizes.hpp"
#include "log/log_io_records.hpp"

namespace perfdm::io {

// Reads or writes of one direction by kind (Darshan's MPIIO_INDEP_, _COLL_, _SPLIT_, _NB_
// counters; a call counts in exactly one of them).
struct mpiio_ops {
  std::int64_t independent = 0;
  std::int64_t collective = 0;
  std::int64_t split = 0;  // split collectives (`_begin` ... `_end`)
  std::int64_t nonblocking = 0;
  std::int64_t total() const { return independent + collective + split + nonblocking; }
};

struct mpiio_view {
  std::size_t ranks = 0;  // ranks with a record; every rank when a record is shared (-1)
  std::size_t files = 0;
  std::int64_t bytes_read = 0;
  std::int64_t bytes_written = 0;
  double read_time = 0;
  double write_time = 0;
  double meta_time = 0;
  std::int64_t independent_opens = 0;
  std::int64_t collective_opens = 0;
  mpiio_ops reads;
  mpiio_ops writes;
  access_sizes sizes;
  std::set<std::int64_t> rank_ids;  // -1 for a shared record

  void add(const log_mpiio_record& r);
  // Sets `ranks` once every record is added; `job_ranks` is the job's nprocs.
  void finish(std::size_t job_ranks);
  double io_time() const { return read_time + write_time + meta_time; }
  // Collective (split included) reads and writes over all of them; 0 without any.
  double collective_share() const;
  bool empty() const { return rank_ids.empty(); }
};

// "4 collective, 4 split collective, 16 independent writes" (the kinds that occurred), or
// "no writes".
std::string operations_in_words(const mpiio_ops& ops, const char* direction);

// The job's line: "MPI-IO: 48.3 KiB written, 16.4 KiB read by 4 ranks in 5 files: ...".
std::string mpiio_totals_text(const mpiio_view& v);
// A file's line: collective share, the operations, the most frequent access size.
std::string mpiio_file_text(const mpiio_view& v);
nlohmann::json mpiio_json(const mpiio_view& v);

}  // namespace perfdm::io
