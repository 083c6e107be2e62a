#include "darshan/darshan_totals.hpp"

#include <algorithm>
#include <string>

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

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The rules of POSIX, MPI-IO or STDIO, from their counter names (darshan-util folds the
// three alike: only MPI-IO's and STDIO's missing counters differ).
fold_rules rules_for(int module) {
  const record_layout& cur = *current_layout(module);
  const std::string prefix = module == POSIX_MOD ? "POSIX_" : module == MPIIO_MOD ? "MPIIO_" : "STDIO_";
  auto int_at = [&](const std::string& name) {
    for (std::size_t i = 0; i < cur.ints.size(); ++i)
      if (prefix + name == cur.ints[i]) return static_cast<int>(i);
    return -1;
  };
  auto float_at = [&](const std::string& name) {
    for (std::size_t i = 0; i < cur.floats.size(); ++i)
      if (prefix + "F_" + name == cur.floats[i]) return static_cast<int>(i);
    return -1;
  };
  fold_rules r;
  for (const char* full : cur.ints) {
    const std::string n = std::string(full).substr(prefix.size());
    int_role role = int_role::sum;
    if (n == "RENAMED_FROM" || n == "MODE" || n == "MEM_ALIGNMENT" || n == "FILE_ALIGNMENT")
      role = int_role::set;
    else if (n.rfind("MAX_BYTE_", 0) == 0)
      role = int_role::max;
    else if (n == "STRIDE1_STRIDE" || n == "ACCESS1_ACCESS")
      role = int_role::top4;
    else if (n.find("_RANK") != std::string::npos || ends_with(n, "_TIME_SIZE") ||
             n.rfind("STRIDE", 0) == 0 || n.rfind("ACCESS", 0) == 0)
      role = int_role::keep;  // set with the float counters, or with the first of a block
    r.ints.push_back(role);
  }
  for (const char* full : cur.floats) {
    const std::string n = std::string(full).substr(prefix.size() + 2);
    float_role role = float_role::keep;
    if (n == "READ_TIME" || n == "WRITE_TIME" || n == "META_TIME") role = float_role::sum;
    else if (ends_with(n, "_START_TIMESTAMP")) role = float_role::min_nonzero;
    else if (ends_with(n, "_END_TIMESTAMP")) role = float_role::max;
    else if (n == "MAX_READ_TIME" || n == "MAX_WRITE_TIME") role = float_role::max_time;
    else if (n == "FASTEST_RANK_TIME") role = float_role::fastest;
    else if (n == "SLOWEST_RANK_TIME") role = float_role::slowest;
    else if (n.rfind("VARIANCE_", 0) == 0) role = float_role::zero;
    r.floats.push_back(role);
  }
  r.clamp_sums = module == POSIX_MOD;
  r.top4_needs_first = module == MPIIO_MOD;
  r.bytes_read = int_at("BYTES_READ");
  r.bytes_written = int_at("BYTES_WRITTEN");
  r.read_time = float_at("READ_TIME");
  r.write_time = float_at("WRITE_TIME");
  r.meta_time = float_at("META_TIME");
  r.max_read_time = float_at("MAX_READ_TIME");
  r.max_read_size = int_at("MAX_READ_TIME_SIZE");
  r.max_write_time = float_at("MAX_WRITE_TIME");
  r.max_write_size = int_at("MAX_WRITE_TIME_SIZE");
  r.fastest_rank = int_at("FASTEST_RANK");
  r.fastest_bytes = int_at("FASTEST_RANK_BYTES");
  r.slowest_rank = int_at("SLOWEST_RANK");
  r.slowest_bytes = int_at("SLOWEST_RANK_BYTES");
  r.fastest_time = float_at("FASTEST_RANK_TIME");
  r.slowest_time = float_at("SLOWEST_RANK_TIME");
  r.max_byte_read = int_at("MAX_BYTE_READ");
  r.max_byte_written = int_at("MAX_BYTE_WRITTEN");
  return r;
}

const fold_rules& rules_of(int module) {
  static const fold_rules posix = rules_for(POSIX_MOD), mpiio = rules_for(MPIIO_MOD),
                          stdio = rules_for(STDIO_MOD);
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
