#include "iojob/mpiio_summary.hpp"

#include <algorithm>
#include <cstdio>

#include "iojob/io_summary.hpp"

namespace perfdm::io {

using namespace perfdm::darshan;

void mpiio_view::add(const log_mpiio_record& r) {
  rank_ids.insert(r.rank < 0 ? -1 : r.rank);
  bytes_read += r.counters[MPIIO_BYTES_READ];
  bytes_written += r.counters[MPIIO_BYTES_WRITTEN];
  read_time += r.fcounters[MPIIO_F_READ_TIME];
  write_time += r.fcounters[MPIIO_F_WRITE_TIME];
  meta_time += r.fcounters[MPIIO_F_META_TIME];
  independent_opens += r.counters[MPIIO_INDEP_OPENS];
  collective_opens += r.counters[MPIIO_COLL_OPENS];
  reads.independent += r.counters[MPIIO_INDEP_READS];
  reads.collective += r.counters[MPIIO_COLL_READS];
  reads.split += r.counters[MPIIO_SPLIT_READS];
  reads.nonblocking += r.counters[MPIIO_NB_READS];
  writes.independent += r.counters[MPIIO_INDEP_WRITES];
  writes.collective += r.counters[MPIIO_COLL_WRITES];
  writes.split += r.counters[MPIIO_SPLIT_WRITES];
  writes.nonblocking += r.counters[MPIIO_NB_WRITES];
  sizes.add(&r.counters[MPIIO_ACCESS1_ACCESS], &r.counters[MPIIO_ACCESS1_COUNT]);
}

void mpiio_view::finish(std::size_t job_ranks) {
  ranks = rank_ids.count(-1) != 0 ? std::max(job_ranks, rank_ids.size() - 1) : rank_ids.size();
}

double mpiio_view::collective_share() const {
  const std::int64_t all = reads.total() + writes.total();
  if (all == 0) return 0;
  return double(reads.collective + reads.split + writes.collective + writes.split) / double(all);
}

std::string operations_in_words(const mpiio_ops& ops, const char* direction) {
  std::string w;
  auto part = [&](std::int64_t n, const char* kind) {
    if (n == 0) return;
    w += (w.empty() ? "" : ", ") + std::to_string(n) + " " + kind;
  };
  part(ops.collective, "collective");
  part(ops.split, "split collective");
  part(ops.independent, "independent");
  part(ops.nonblocking, "non-blocking");
  return w.empty() ? std::string("no ") + direction : w + " " + direction;
}

namespace {

std::string ranks_in_words(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " rank" : " ranks");
}

// The direction that moved more bytes first, the other after it when it has operations.
std::string both_directions(const mpiio_view& v) {
  const std::string w = operations_in_words(v.writes, "writes");
  const std::string r = operations_in_words(v.reads, "reads");
  if (v.bytes_read > v.bytes_written) return v.writes.total() > 0 ? r + "; " + w : r;
  return v.reads.total() > 0 ? w + "; " + r : w;
}

}  // namespace

std::string mpiio_totals_text(const mpiio_view& v) {
  std::string o = "MPI-IO: " + size_in_words(v.bytes_written) + " written, " +
                  size_in_words(v.bytes_read) + " read by " + ranks_in_words(v.ranks) + " in " +
                  std::to_string(v.files) + (v.files == 1 ? " file: " : " files: ") +
                  both_directions(v) + "\n";
  o += "MPI-IO time: read " + seconds_in_words(v.read_time) + ", write " +
       seconds_in_words(v.write_time) + ", metadata " + seconds_in_words(v.meta_time) +
       " (the POSIX calls beneath included)\n";
  return o;
}

std::string mpiio_file_text(const mpiio_view& v) {
  std::string o = "MPI-IO by " + ranks_in_words(v.ranks);
  if (v.reads.total() + v.writes.total() == 0) return o + ": opened, no reads or writes";
  o += ", " + percent_in_words(v.collective_share()) + " collective: " + both_directions(v);
  if (!v.sizes.empty()) o += "; mostly " + size_in_words(v.sizes.most_frequent(0)) + " accesses";
  return o;
}

nlohmann::json mpiio_json(const mpiio_view& v) {
  auto ops = [](const mpiio_ops& o) {
    return nlohmann::json{{"independent", o.independent},
                          {"collective", o.collective},
                          {"split", o.split},
                          {"nonblocking", o.nonblocking}};
  };
  return {{"ranks", v.ranks},
          {"files", v.files},
          {"bytes_read", v.bytes_read},
          {"bytes_written", v.bytes_written},
          {"read_seconds", v.read_time},
          {"write_seconds", v.write_time},
          {"metadata_seconds", v.meta_time},
          {"opens", {{"independent", v.independent_opens}, {"collective", v.collective_opens}}},
          {"reads", ops(v.reads)},
          {"writes", ops(v.writes)},
          {"collective_share", v.collective_share()}};
}

}  // namespace perfdm::io
