#include "darshan/darshan_totals.hpp"

#include <algorithm>

#include "darshan/darshan_counters.hpp"

namespace perfdm::darshan {

namespace {

enum class int_role : std::uint8_t { keep, sum, set, max, top4 };
enum class float_role : std::uint8_t { keep, sum, min_nonzero, max, max_time, fastest, slowest, zero };

// How a module's counters fold into a total (darshan-util's log_agg_records).
struct fold_rules {
  std::vector<int_role> ints;
  std::vector<float_role> floats;
  bool clamp_sums = false;        // POSIX: a negative sum is -1 exactly
  bool top4_needs_first = false;  // MPI-IO: a record whose first common value is 0 adds none
  int bytes_read = 0, bytes_written = 0, read_time = 0, write_time = 0, meta_time = 0;
  int max_read_time = -1, max_read_size = 0, max_write_time = -1, max_write_size = 0;
  int fastest_rank = 0, fastest_bytes = 0, slowest_rank = 0, slowest_bytes = 0;
  int fastest_time = 0, slowest_time = 0;
  int max_byte_read = -1, max_byte_written = -1;
};

template <class E>
void assign(std::vector<E>& roles, std::initializer_list<int> at, E role) {
  for (int i : at) roles[static_cast<std::size_t>(i)] = role;
}

void range(std::vector<int_role>& roles, int from, int to, int_role role) {
  for (int i = from; i <= to; ++i) roles[static_cast<std::size_t>(i)] = role;
}

fold_rules posix_rules() {
  fold_rules r;
  r.ints.assign(POSIX_NUM_INDICES, int_role::keep);
  r.floats.assign(POSIX_F_NUM_INDICES, float_role::keep);
  range(r.ints, POSIX_OPENS, POSIX_RENAME_TARGETS, int_role::sum);
  assign(r.ints, {POSIX_BYTES_READ, POSIX_BYTES_WRITTEN, POSIX_CONSEC_READS,
                  POSIX_CONSEC_WRITES, POSIX_SEQ_READS, POSIX_SEQ_WRITES, POSIX_RW_SWITCHES,
                  POSIX_MEM_NOT_ALIGNED, POSIX_FILE_NOT_ALIGNED},
         int_role::sum);
  range(r.ints, POSIX_SIZE_READ_0_100, POSIX_SIZE_WRITE_1G_PLUS, int_role::sum);
  assign(r.ints, {POSIX_RENAMED_FROM, POSIX_MODE, POSIX_MEM_ALIGNMENT, POSIX_FILE_ALIGNMENT},
         int_role::set);
  assign(r.ints, {POSIX_MAX_BYTE_READ, POSIX_MAX_BYTE_WRITTEN}, int_role::max);
  assign(r.ints, {POSIX_STRIDE1_STRIDE, POSIX_ACCESS1_ACCESS}, int_role::top4);
  r.clamp_sums = true;
  assign(r.floats, {POSIX_F_READ_TIME, POSIX_F_WRITE_TIME, POSIX_F_META_TIME}, float_role::sum);
  assign(r.floats, {POSIX_F_OPEN_START_TIMESTAMP, POSIX_F_READ_START_TIMESTAMP,
                    POSIX_F_WRITE_START_TIMESTAMP, POSIX_F_CLOSE_START_TIMESTAMP},
         float_role::min_nonzero);
  assign(r.floats, {POSIX_F_OPEN_END_TIMESTAMP, POSIX_F_READ_END_TIMESTAMP,
                    POSIX_F_WRITE_END_TIMESTAMP, POSIX_F_CLOSE_END_TIMESTAMP},
         float_role::max);
  assign(r.floats, {POSIX_F_MAX_READ_TIME, POSIX_F_MAX_WRITE_TIME}, float_role::max_time);
  assign(r.floats, {POSIX_F_FASTEST_RANK_TIME}, float_role::fastest);
  assign(r.floats, {POSIX_F_SLOWEST_RANK_TIME}, float_role::slowest);
  assign(r.floats, {POSIX_F_VARIANCE_RANK_TIME, POSIX_F_VARIANCE_RANK_BYTES}, float_role::zero);
  r.bytes_read = POSIX_BYTES_READ;
  r.bytes_written = POSIX_BYTES_WRITTEN;
  r.read_time = POSIX_F_READ_TIME;
  r.write_time = POSIX_F_WRITE_TIME;
  r.meta_time = POSIX_F_META_TIME;
  r.max_read_time = POSIX_F_MAX_READ_TIME;
  r.max_read_size = POSIX_MAX_READ_TIME_SIZE;
  r.max_write_time = POSIX_F_MAX_WRITE_TIME;
  r.max_write_size = POSIX_MAX_WRITE_TIME_SIZE;
  r.fastest_rank = POSIX_FASTEST_RANK;
  r.fastest_bytes = POSIX_FASTEST_RANK_BYTES;
  r.slowest_rank = POSIX_SLOWEST_RANK;
  r.slowest_bytes = POSIX_SLOWEST_RANK_BYTES;
  r.fastest_time = POSIX_F_FASTEST_RANK_TIME;
  r.slowest_time = POSIX_F_SLOWEST_RANK_TIME;
  r.max_byte_read = POSIX_MAX_BYTE_READ;
  r.max_byte_written = POSIX_MAX_BYTE_WRITTEN;
  return r;
}

fold_rules mpiio_rules() {
  fold_rules r;
  r.ints.assign(MPIIO_NUM_INDICES, int_role::keep);
  r.floats.assign(MPIIO_F_NUM_INDICES, float_role::keep);
  range(r.ints, MPIIO_INDEP_OPENS, MPIIO_VIEWS, int_role::sum);
  assign(r.ints, {MPIIO_BYTES_READ, MPIIO_BYTES_WRITTEN, MPIIO_RW_SWITCHES}, int_role::sum);
  range(r.ints, MPIIO_SIZE_READ_AGG_0_100, MPIIO_SIZE_WRITE_AGG_1G_PLUS, int_role::sum);
  assign(r.ints, {MPIIO_MODE}, int_role::set);
  assign(r.ints, {MPIIO_ACCESS1_ACCESS}, int_role::top4);
  r.top4_needs_first = true;
  assign(r.floats, {MPIIO_F_READ_TIME, MPIIO_F_WRITE_TIME, MPIIO_F_META_TIME}, float_role::sum);
  assign(r.floats, {MPIIO_F_OPEN_START_TIMESTAMP, MPIIO_F_READ_START_TIMESTAMP,
                    MPIIO_F_WRITE_START_TIMESTAMP, MPIIO_F_CLOSE_START_TIMESTAMP},
         float_role::min_nonzero);
  assign(r.floats, {MPIIO_F_OPEN_END_TIMESTAMP, MPIIO_F_READ_END_TIMESTAMP,
                    MPIIO_F_WRITE_END_TIMESTAMP, MPIIO_F_CLOSE_END_TIMESTAMP},
         float_role::max);
  assign(r.floats, {MPIIO_F_MAX_READ_TIME, MPIIO_F_MAX_WRITE_TIME}, float_role::max_time);
  assign(r.floats, {MPIIO_F_FASTEST_RANK_TIME}, float_role::fastest);
  assign(r.floats, {MPIIO_F_SLOWEST_RANK_TIME}, float_role::slowest);
  assign(r.floats, {MPIIO_F_VARIANCE_RANK_TIME, MPIIO_F_VARIANCE_RANK_BYTES}, float_role::zero);
  r.bytes_read = MPIIO_BYTES_READ;
  r.bytes_written = MPIIO_BYTES_WRITTEN;
  r.read_time = MPIIO_F_READ_TIME;
  r.write_time = MPIIO_F_WRITE_TIME;
  r.meta_time = MPIIO_F_META_TIME;
  r.max_read_time = MPIIO_F_MAX_READ_TIME;
  r.max_read_size = MPIIO_MAX_READ_TIME_SIZE;
  r.max_write_time = MPIIO_F_MAX_WRITE_TIME;
  r.max_write_size = MPIIO_MAX_WRITE_TIME_SIZE;
  r.fastest_rank = MPIIO_FASTEST_RANK;
  r.fastest_bytes = MPIIO_FASTEST_RANK_BYTES;
  r.slowest_rank = MPIIO_SLOWEST_RANK;
  r.slowest_bytes = MPIIO_SLOWEST_RANK_BYTES;
  r.fastest_time = MPIIO_F_FASTEST_RANK_TIME;
  r.slowest_time = MPIIO_F_SLOWEST_RANK_TIME;
  return r;
}

fold_rules stdio_rules() {
  fold_rules r;
  r.ints.assign(STDIO_NUM_INDICES, int_role::keep);
  r.floats.assign(STDIO_F_NUM_INDICES, float_role::keep);
  range(r.ints, STDIO_OPENS, STDIO_BYTES_READ, int_role::sum);
  assign(r.ints, {STDIO_MAX_BYTE_READ, STDIO_MAX_BYTE_WRITTEN}, int_role::max);
  assign(r.floats, {STDIO_F_META_TIME, STDIO_F_WRITE_TIME, STDIO_F_READ_TIME}, float_role::sum);
  assign(r.floats, {STDIO_F_OPEN_START_TIMESTAMP, STDIO_F_CLOSE_START_TIMESTAMP,
                    STDIO_F_WRITE_START_TIMESTAMP, STDIO_F_READ_START_TIMESTAMP},
         float_role::min_nonzero);
  assign(r.floats, {STDIO_F_OPEN_END_TIMESTAMP, STDIO_F_CLOSE_END_TIMESTAMP,
                    STDIO_F_WRITE_END_TIMESTAMP, STDIO_F_READ_END_TIMESTAMP},
         float_role::max);
  assign(r.floats, {STDIO_F_FASTEST_RANK_TIME}, float_role::fastest);
  assign(r.floats, {STDIO_F_SLOWEST_RANK_TIME}, float_role::slowest);
  assign(r.floats, {STDIO_F_VARIANCE_RANK_TIME, STDIO_F_VARIANCE_RANK_BYTES}, float_role::zero);
  r.bytes_read = STDIO_BYTES_READ;
  r.bytes_written = STDIO_BYTES_WRITTEN;
  r.read_time = STDIO_F_READ_TIME;
  r.write_time = STDIO_F_WRITE_TIME;
  r.meta_time = STDIO_F_META_TIME;
  r.fastest_rank = STDIO_FASTEST_RANK;
  r.fastest_bytes = STDIO_FASTEST_RANK_BYTES;
  r.slowest_rank = STDIO_SLOWEST_RANK;
  r.slowest_bytes = STDIO_SLOWEST_RANK_BYTES;
  r.fastest_time = STDIO_F_FASTEST_RANK_TIME;
  r.slowest_time = STDIO_F_SLOWEST_RANK_TIME;
  r.max_byte_read = STDIO_MAX_BYTE_READ;
  r.max_byte_written = STDIO_MAX_BYTE_WRITTEN;
  return r;
}

const fold_rules& rules_of(int module) {
  static const fold_rules posix = posix_rules(), mpiio = mpiio_rules(), stdio = stdio_rules();
  return module == POSIX_MOD ? posix : module == MPIIO_MOD ? mpiio : stdio;
}

std::int64_t wrapping_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

// Merges an incoming record's four most common values (and their counts) into the total's,
// as darshan-util does: values both hold add their counts; each other incoming value (up to
// the first 0) is placed among the total's four by count, then value, both descending,
// with the incoming count (not the sum). `agg` and `in` point at the block's first value;
// the four counts follow the four values. `agg_end` bounds reads past the block.
void merge_common_values(std::int64_t* agg, const std::int64_t* in, std::size_t agg_left) {
  auto at = [&](std::size_t k) -> std::int64_t { return k < agg_left ? agg[k] : 0; };
  bool duplicate[4] = {false, false, false, false};
  for (int j = 0; j < 4; ++j)
    for (int k = 0; k < 4; ++k)
      if (agg[k] == in[j]) {
        agg[k + 4] = wrapping_add(agg[k + 4], in[j + 4]);
        duplicate[j] = true;
      }
  for (int j = 0; j < 4; ++j) {
    if (duplicate[j]) continue;
    if (in[j] == 0) break;
    std::int64_t total = in[j + 4];
    for (int k = 0; k < 4; ++k)
      if (agg[k] == in[j]) {
        total = wrapping_add(agg[k + 4], in[j + 4]);
        break;
      }
    std::int64_t val[4] = {0, 0, 0, 0}, cnt[4] = {0, 0, 0, 0};
    int n = 0;
    std::size_t k = 0;
    for (; k < 4; ++k) {
      if (agg[k + 4] > total || (agg[k + 4] == total && agg[k] > in[j])) {
        val[n] = agg[k];
        cnt[n] = agg[k + 4];
        ++n;
      } else {
        break;
      }
    }
    if (n == 4) break;
    val[n] = in[j];
    cnt[n] = in[j + 4];
    ++n;
    // The rest in order, without the incoming value (darshan-util's scan goes on past the
    // fourth slot when it skipped one).
    for (; n != 4 && k < agg_left; ++k) {
      if (at(k) != in[j]) {
        val[n] = at(k);
        cnt[n] = at(k + 4);
        ++n;
      }
    }
    for (int m = 0; m < 4; ++m) {
      agg[m] = val[m];
      agg[m + 4] = cnt[m];
    }
  }
}

}  // namespace

bool has_totals(int module) {
  return module == POSIX_MOD || module == MPIIO_MOD || module == STDIO_MOD;
}

total_record::total_record(int module) : module_(module) {
  const fold_rules& r = rules_of(module);
  ints_.assign(r.ints.size(), 0);
  floats_.assign(r.floats.size(), 0);
}

void total_record::add(const record& rec) {
  const fold_rules& r = rules_of(module_);
  in_ints_.resize(r.ints.size());
  in_floats_.resize(r.floats.size());
  for (std::size_t i = 0; i < in_ints_.size(); ++i) in_ints_[i] = rec.counter(i);
  for (std::size_t i = 0; i < in_floats_.size(); ++i) in_floats_[i] = rec.fcounter(i);
  const auto& in = in_ints_;
  const auto& fin = in_floats_;
  const bool first = records_ == 0;

  // A shared record (rank -1) carries its fastest and slowest rank; any other record is its
  // own rank's.
  std::int64_t fast_rank, slow_rank, fast_bytes, slow_bytes;
  double fast_time, slow_time;
  if (rec.rank == -1) {
    fast_rank = in[r.fastest_rank];
    slow_rank = in[r.slowest_rank];
    fast_bytes = in[r.fastest_bytes];
    slow_bytes = in[r.slowest_bytes];
    fast_time = fin[r.fastest_time];
    slow_time = fin[r.slowest_time];
  } else {
    fast_rank = slow_rank = rec.rank;
    fast_bytes = slow_bytes = wrapping_add(in[r.bytes_read], in[r.bytes_written]);
    fast_time = slow_time = fin[r.read_time] + fin[r.write_time] + fin[r.meta_time];
  }
  if (first) {
    rank_ = rec.rank;
    id_ = rec.id;
  }
  const bool same_file = id_ == rec.id;
  if (!same_file) id_ = 0;
  if (rank_ != rec.rank) rank_ = -1;

  for (std::size_t i = 0; i < r.ints.size(); ++i) {
    switch (r.ints[i]) {
      case int_role::sum:
        ints_[i] = wrapping_add(ints_[i], in[i]);
        if (r.clamp_sums && ints_[i] < 0) ints_[i] = -1;
        break;
      case int_role::set: ints_[i] = in[i]; break;
      case int_role::max: ints_[i] = std::max(ints_[i], in[i]); break;
      case int_role::top4:
        if (r.top4_needs_first && in[i] == 0) break;
        merge_common_values(ints_.data() + i, in.data() + i, ints_.size() - i);
        break;
      case int_role::keep: break;
    }
  }
  for (std::size_t i = 0; i < r.floats.size(); ++i) {
    const int idx = static_cast<int>(i);
    switch (r.floats[i]) {
      case float_role::sum: floats_[i] += fin[i]; break;
      case float_role::min_nonzero:
        if (fin[i] > 0 && (floats_[i] == 0 || fin[i] < floats_[i])) floats_[i] = fin[i];
        break;
      case float_role::max:
        if (fin[i] > floats_[i]) floats_[i] = fin[i];
        break;
      case float_role::max_time:
        if (fin[i] > floats_[i]) {
          floats_[i] = fin[i];
          int size = idx == r.max_read_time ? r.max_read_size : r.max_write_size;
          ints_[static_cast<std::size_t>(size)] = in[static_cast<std::size_t>(size)];
        }
        break;
      case float_role::fastest:
        if (!same_file) {
          ints_[r.fastest_rank] = -1;
          ints_[r.fastest_bytes] = -1;
          floats_[i] = 0.0;
        } else if (first || fast_time < floats_[i]) {
          ints_[r.fastest_rank] = fast_rank;
          ints_[r.fastest_bytes] = fast_bytes;
          floats_[i] = fast_time;
        }
        break;
      case float_role::slowest:
        if (!same_file) {
          ints_[r.slowest_rank] = -1;
          ints_[r.slowest_bytes] = -1;
          floats_[i] = 0.0;
        } else if (first || slow_time > floats_[i]) {
          ints_[r.slowest_rank] = slow_rank;
          ints_[r.slowest_bytes] = slow_bytes;
          floats_[i] = slow_time;
        }
        break;
      case float_role::zero: floats_[i] = 0; break;
      case float_role::keep: break;
    }
  }
  ++records_;
}

namespace {

struct metrics {
  std::int64_t read, written, max_offset;
  double io, meta, rw;
};

// darshan-util's log_record_metrics: what --file and --perf take from a record.
metrics metrics_of(const record& rec) {
  const fold_rules& r = rules_of(rec.module);
  metrics m{};
  m.read = rec.counter(static_cast<std::size_t>(r.bytes_read));
  m.written = rec.counter(static_cast<std::size_t>(r.bytes_written));
  m.max_offset = r.max_byte_read < 0
                     ? -1
                     : std::max(rec.counter(static_cast<std::size_t>(r.max_byte_read)),
                                rec.counter(static_cast<std::size_t>(r.max_byte_written)));
  if (rec.rank < 0) {
    m.io = rec.fcounter(static_cast<std::size_t>(r.slowest_time));
  } else {
    double meta = rec.fcounter(static_cast<std::size_t>(r.meta_time));
    double rw = rec.fcounter(static_cast<std::size_t>(r.read_time)) +
                rec.fcounter(static_cast<std::size_t>(r.write_time));
    m.io = meta + rw;
    m.meta = meta;
    m.rw = rw;
  }
  return m;
}

}  // namespace

void file_summary::add(const record& rec) {
  metrics m = metrics_of(rec);
  auto [it, added] = index_.try_emplace(rec.id, files_.size());
  if (added) files_.push_back({});
  file& f = files_[it->second];
  f.read = wrapping_add(f.read, m.read);
  f.written = wrapping_add(f.written, m.written);
  f.max_offset = m.max_offset == -1 ? -1 : std::max(f.max_offset, m.max_offset);
  f.nprocs = rec.rank < 0 ? -1 : f.nprocs + 1;
}

file_summary::counts file_summary::summarize() const {
  counts c;
  auto add = [](kind& k, const file& f) {
    ++k.count;
    k.bytes = wrapping_add(k.bytes, wrapping_add(f.read, f.written));
    k.max_offset = f.max_offset == -1 ? -1 : std::max(k.max_offset, f.max_offset);
  };
  kind part_shared;
  for (const file& f : files_) {
    add(c.total, f);
    if (f.read > 0 && f.written == 0) add(c.read_only, f);
    else if (f.written > 0 && f.read == 0) add(c.write_only, f);
    else if (f.written > 0 && f.read > 0) add(c.read_write, f);
    if (f.nprocs == 1) add(c.unique, f);
    else if (f.nprocs == -1) add(c.shared, f);
    else add(part_shared, f);
  }
  c.shared.count += part_shared.count;
  c.shared.bytes = wrapping_add(c.shared.bytes, part_shared.bytes);
  c.shared.max_offset = wrapping_add(c.shared.max_offset, part_shared.max_offset);
  return c;
}

void perf_summary::add(const record& rec) {
  metrics m = metrics_of(rec);
  total_bytes_ = wrapping_add(total_bytes_, wrapping_add(m.read, m.written));
  if (rec.rank < 0) {
    shared_ += m.io;
  } else {
    times& t = ranks_[rec.rank];
    t.io += m.io;
    t.rw += m.rw;
    t.meta += m.meta;
  }
}

perf_summary::result perf_summary::summarize() const {
  result r;
  r.total_bytes = total_bytes_;
  for (const auto& [rank, t] : ranks_) {
    if (t.io > r.slowest_rank_io_time) {
      r.slowest_rank_io_time = t.io;
      r.slowest_rank_rw_only_time = t.rw;
      r.slowest_rank_meta_only_time = t.meta;
      r.slowest_rank = rank;
    }
  }
  r.shared_time_by_slowest = shared_;
  r.agg_time_by_slowest = r.slowest_rank_io_time + shared_;
  if (r.agg_time_by_slowest != 0)
    r.agg_perf_by_slowest = (static_cast<double>(total_bytes_) / 1048576.0) / r.agg_time_by_slowest;
  return r;
}

}  // namespace perfdm::darshan
