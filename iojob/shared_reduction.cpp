#include "iojob/shared_reduction.hpp"

namespace perfdm::io {

namespace {

// Earliest non-zero start of two (Darshan: "min non-zero (if available)").
double min_non_zero(double in, double inout) {
  return ((in < inout && in > 0) || inout == 0) ? in : inout;
}

// Where a module keeps the fastest and slowest process and the variances.
struct rank_fields {
  int fastest, fastest_bytes, slowest, slowest_bytes, f_fastest, f_slowest, f_variance_time,
      f_variance_bytes;
};
constexpr rank_fields posix_fields{POSIX_FASTEST_RANK,         POSIX_FASTEST_RANK_BYTES,
                                   POSIX_SLOWEST_RANK,         POSIX_SLOWEST_RANK_BYTES,
                                   POSIX_F_FASTEST_RANK_TIME,  POSIX_F_SLOWEST_RANK_TIME,
                                   POSIX_F_VARIANCE_RANK_TIME, POSIX_F_VARIANCE_RANK_BYTES};
constexpr rank_fields stdio_fields{STDIO_FASTEST_RANK,         STDIO_FASTEST_RANK_BYTES,
                                   STDIO_SLOWEST_RANK,         STDIO_SLOWEST_RANK_BYTES,
                                   STDIO_F_FASTEST_RANK_TIME,  STDIO_F_SLOWEST_RANK_TIME,
                                   STDIO_F_VARIANCE_RANK_TIME, STDIO_F_VARIANCE_RANK_BYTES};
constexpr rank_fields mpiio_fields{MPIIO_FASTEST_RANK,         MPIIO_FASTEST_RANK_BYTES,
                                   MPIIO_SLOWEST_RANK,         MPIIO_SLOWEST_RANK_BYTES,
                                   MPIIO_F_FASTEST_RANK_TIME,  MPIIO_F_SLOWEST_RANK_TIME,
                                   MPIIO_F_VARIANCE_RANK_TIME, MPIIO_F_VARIANCE_RANK_BYTES};

// The fastest/slowest fields every rank sets on its own record before the reduction.
template <class Record>
void mark_rank(Record& r, const rank_fields& k, double time, std::int64_t bytes) {
  r.counters[k.fastest] = r.rank;
  r.counters[k.fastest_bytes] = bytes;
  r.counters[k.slowest] = r.rank;
  r.counters[k.slowest_bytes] = bytes;
  r.fcounters[k.f_fastest] = time;
  r.fcounters[k.f_slowest] = time;
}

// Fastest: the smaller time (ties keep `inout`); slowest: the larger.
template <class Record>
void fastest_slowest(Record& out, const Record& in, const Record& inout, const rank_fields& k) {
  const Record& f = in.fcounters[k.f_fastest] < inout.fcounters[k.f_fastest] ? in : inout;
  out.counters[k.fastest] = f.counters[k.fastest];
  out.counters[k.fastest_bytes] = f.counters[k.fastest_bytes];
  out.fcounters[k.f_fastest] = f.fcounters[k.f_fastest];
  const Record& s = in.fcounters[k.f_slowest] > inout.fcounters[k.f_slowest] ? in : inout;
  out.counters[k.slowest] = s.counters[k.slowest];
  out.counters[k.slowest_bytes] = s.counters[k.slowest_bytes];
  out.fcounters[k.f_slowest] = s.fcounters[k.f_slowest];
}

double population_variance(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double mean = 0;
  for (const double x : v) mean += x;
  mean /= double(v.size());
  double s = 0;
  for (const double x : v) s += (x - mean) * (x - mean);
  return s / double(v.size());
}

double posix_time(const posix_record& r) {
  return r.fcounters[POSIX_F_READ_TIME] + r.fcounters[POSIX_F_WRITE_TIME] +
         r.fcounters[POSIX_F_META_TIME];
}
std::int64_t posix_bytes(const posix_record& r) {
  return r.counters[POSIX_BYTES_READ] + r.counters[POSIX_BYTES_WRITTEN];
}
double stdio_time(const stdio_record& r) {
  return r.fcounters[STDIO_F_READ_TIME] + r.fcounters[STDIO_F_WRITE_TIME] +
         r.fcounters[STDIO_F_META_TIME];
}
std::int64_t stdio_bytes(const stdio_record& r) {
  return r.counters[STDIO_BYTES_READ] + r.counters[STDIO_BYTES_WRITTEN];
}

// The longest read and write of two records, each with its size (Darshan's "max (special
// case)").
template <class Record>
void longest_calls(Record& t, const Record& in, const Record& inout, int f_read, int f_write,
                   int read_size, int write_size) {
  const Record& mr = in.fcounters[f_read] > inout.fcounters[f_read] ? in : inout;
  t.fcounters[f_read] = mr.fcounters[f_read];
  t.counters[read_size] = mr.counters[read_size];
  const Record& mw = in.fcounters[f_write] > inout.fcounters[f_write] ? in : inout;
  t.fcounters[f_write] = mw.fcounters[f_write];
  t.counters[write_size] = mw.counters[write_size];
}

// posix_record_reduction_op: `in` folded into `inout`.
posix_record reduce_pair(posix_record in, posix_record inout) {
  posix_record t{};
  t.id = in.id;
  t.rank = -1;
  for (int j = POSIX_OPENS; j <= POSIX_RENAME_TARGETS; ++j) {
    t.counters[j] = in.counters[j] + inout.counters[j];
    if (t.counters[j] < 0) t.counters[j] = -1;  // counters not kept (POSIX_MMAPS) stay -1
  }
  t.counters[POSIX_RENAMED_FROM] = in.counters[POSIX_RENAMED_FROM];
  t.counters[POSIX_MODE] = in.counters[POSIX_MODE];
  for (int j = POSIX_BYTES_READ; j <= POSIX_BYTES_WRITTEN; ++j)
    t.counters[j] = in.counters[j] + inout.counters[j];
  for (int j = POSIX_MAX_BYTE_READ; j <= POSIX_MAX_BYTE_WRITTEN; ++j)
    t.counters[j] = in.counters[j] > inout.counters[j] ? in.counters[j] : inout.counters[j];
  for (int j = POSIX_CONSEC_READS; j <= POSIX_MEM_NOT_ALIGNED; ++j)
    t.counters[j] = in.counters[j] + inout.counters[j];
  t.counters[POSIX_MEM_ALIGNMENT] = in.counters[POSIX_MEM_ALIGNMENT];
  t.counters[POSIX_FILE_NOT_ALIGNED] =
      in.counters[POSIX_FILE_NOT_ALIGNED] + inout.counters[POSIX_FILE_NOT_ALIGNED];
  t.counters[POSIX_FILE_ALIGNMENT] = in.counters[POSIX_FILE_ALIGNMENT];
  for (int j = POSIX_SIZE_READ_0_100; j <= POSIX_SIZE_WRITE_1G_PLUS; ++j)
    t.counters[j] = in.counters[j] + inout.counters[j];
  // Top-4 strides and sizes: `inout`'s slots merged with `in`'s (Darshan's order).
  for (const int base : {int(POSIX_STRIDE1_STRIDE), int(POSIX_ACCESS1_ACCESS)}) {
    merge_common_values(&inout.counters[base], &inout.counters[base + 4], &in.counters[base],
                        &in.counters[base + 4]);
    for (int j = 0; j < 8; ++j) t.counters[base + j] = inout.counters[base + j];
  }
  for (int j = POSIX_F_OPEN_START_TIMESTAMP; j <= POSIX_F_CLOSE_START_TIMESTAMP; ++j)
    t.fcounters[j] = min_non_zero(in.fcounters[j], inout.fcounters[j]);
  for (int j = POSIX_F_OPEN_END_TIMESTAMP; j <= POSIX_F_CLOSE_END_TIMESTAMP; ++j)
    t.fcounters[j] = in.fcounters[j] > inout.fcounters[j] ? in.fcounters[j] : inout.fcounters[j];
  for (int j = POSIX_F_READ_TIME; j <= POSIX_F_META_TIME; ++j)
    t.fcounters[j] = in.fcounters[j] + inout.fcounters[j];
  longest_calls(t, in, inout, POSIX_F_MAX_READ_TIME, POSIX_F_MAX_WRITE_TIME,
                POSIX_MAX_READ_TIME_SIZE, POSIX_MAX_WRITE_TIME_SIZE);
  fastest_slowest(t, in, inout, posix_fields);
  for (int j = 0; j < POSIX_EXTRA_NUM_INDICES; ++j) t.extra[j] = in.extra[j] + inout.extra[j];
  return t;
}

double mpiio_time(const mpiio_record& r) {
  return r.fcounters[MPIIO_F_READ_TIME] + r.fcounters[MPIIO_F_WRITE_TIME] +
         r.fcounters[MPIIO_F_META_TIME];
}
std::int64_t mpiio_bytes(const mpiio_record& r) {
  return r.counters[MPIIO_BYTES_READ] + r.counters[MPIIO_BYTES_WRITTEN];
}

// mpiio_record_reduction_op: `in` folded into `inout`.
mpiio_record reduce_pair(mpiio_record in, mpiio_record inout) {
  mpiio_record t{};
  t.id = in.id;
  t.rank = -1;
  for (int j = MPIIO_INDEP_OPENS; j <= MPIIO_VIEWS; ++j)
    t.counters[j] = in.counters[j] + inout.counters[j];
  t.counters[MPIIO_MODE] = in.counters[MPIIO_MODE];
  for (int j = MPIIO_BYTES_READ; j <= MPIIO_RW_SWITCHES; ++j)
    t.counters[j] = in.counters[j] + inout.counters[j];
  for (int j = MPIIO_SIZE_READ_AGG_0_100; j <= MPIIO_SIZE_WRITE_AGG_1G_PLUS; ++j)
    t.counters[j] = in.counters[j] + inout.counters[j];
  merge_common_values(&inout.counters[MPIIO_ACCESS1_ACCESS], &inout.counters[MPIIO_ACCESS1_COUNT],
                      &in.counters[MPIIO_ACCESS1_ACCESS], &in.counters[MPIIO_ACCESS1_COUNT]);
  for (int j = 0; j < 8; ++j)
    t.counters[MPIIO_ACCESS1_ACCESS + j] = inout.counters[MPIIO_ACCESS1_ACCESS + j];
  for (int j = MPIIO_F_OPEN_START_TIMESTAMP; j <= MPIIO_F_CLOSE_START_TIMESTAMP; ++j)
    t.fcounters[j] = min_non_zero(in.fcounters[j], inout.fcounters[j]);
  for (int j = MPIIO_F_OPEN_END_TIMESTAMP; j <= MPIIO_F_CLOSE_END_TIMESTAMP; ++j)
    t.fcounters[j] = in.fcounters[j] > inout.fcounters[j] ? in.fcounters[j] : inout.fcounters[j];
  for (int j = MPIIO_F_READ_TIME; j <= MPIIO_F_META_TIME; ++j)
    t.fcounters[j] = in.fcounters[j] + inout.fcounters[j];
  longest_calls(t, in, inout, MPIIO_F_MAX_READ_TIME, MPIIO_F_MAX_WRITE_TIME,
                MPIIO_MAX_READ_TIME_SIZE, MPIIO_MAX_WRITE_TIME_SIZE);
  fastest_slowest(t, in, inout, mpiio_fields);
  return t;
}

// stdio_record_reduction_op.
stdio_record reduce_pair(const stdio_record& in, const stdio_record& inout) {
  stdio_record t{};
  t.id = in.id;
  t.rank = -1;
  for (int j = STDIO_OPENS; j <= STDIO_BYTES_READ; ++j)
    t.counters[j] = in.counters[j] + inout.counters[j];
  for (int j = STDIO_MAX_BYTE_READ; j <= STDIO_MAX_BYTE_WRITTEN; ++j)
    t.counters[j] = in.counters[j] > inout.counters[j] ? in.counters[j] : inout.counters[j];
  for (int j = STDIO_F_META_TIME; j <= STDIO_F_READ_TIME; ++j)
    t.fcounters[j] = in.fcounters[j] + inout.fcounters[j];
  for (int j = STDIO_F_OPEN_START_TIMESTAMP; j <= STDIO_F_READ_START_TIMESTAMP; ++j)
    t.fcounters[j] = min_non_zero(in.fcounters[j], inout.fcounters[j]);
  for (int j = STDIO_F_OPEN_END_TIMESTAMP; j <= STDIO_F_READ_END_TIMESTAMP; ++j)
    t.fcounters[j] = in.fcounters[j] > inout.fcounters[j] ? in.fcounters[j] : inout.fcounters[j];
  fastest_slowest(t, in, inout, stdio_fields);
  return t;
}

// Darshan's shutdown for one file: each rank marks itself fastest and slowest, the records
// fold pairwise, then the variances across ranks.
template <class Record, class Time, class Bytes>
Record reduce_ranks(std::vector<Record> per_rank, const rank_fields& k, Time&& time,
                    Bytes&& bytes) {
  std::vector<double> times, moved;
  for (auto& r : per_rank) {
    mark_rank(r, k, time(r), bytes(r));
    times.push_back(time(r));
    moved.push_back(double(bytes(r)));
  }
  Record acc = per_rank.front();
  for (std::size_t i = 1; i < per_rank.size(); ++i) acc = reduce_pair(per_rank[i], acc);
  acc.rank = -1;
  acc.fcounters[k.f_variance_time] = population_variance(times);
  acc.fcounters[k.f_variance_bytes] = population_variance(moved);
  return acc;
}

}  // namespace

posix_record reduce_shared(std::vector<posix_record> per_rank) {
  return reduce_ranks(std::move(per_rank), posix_fields, posix_time, posix_bytes);
}

stdio_record reduce_shared(std::vector<stdio_record> per_rank) {
  return reduce_ranks(std::move(per_rank), stdio_fields, stdio_time, stdio_bytes);
}

mpiio_record reduce_shared(std::vector<mpiio_record> per_rank) {
  return reduce_ranks(std::move(per_rank), mpiio_fields, mpiio_time, mpiio_bytes);
}

}  // namespace perfdm::io
