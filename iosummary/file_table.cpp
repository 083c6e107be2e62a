#include "iosummary/file_table.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "darshan/darshan_buckets.hpp"
#include "darshan/darshan_layouts.hpp"
#include "iosummary/module_counters.hpp"

namespace perfdm::iosummary {

// The counters a file's totals come from, by name with the module's prefix (-1: none).
struct file_table::indexes {
  std::vector<int> reads, writes, small_reads, small_writes;
  int bytes_read = -1, bytes_written = -1, max_byte_read = -1, max_byte_written = -1;
  int seq_reads = -1, seq_writes = -1, mem_not_aligned = -1, file_not_aligned = -1;
  int slowest_bytes = -1, fastest_bytes = -1;
  int read_time = -1, write_time = -1, meta_time = -1, slowest_time = -1, fastest_time = -1;
  int indep_reads = -1, indep_writes = -1;
  std::vector<int> coll_reads, coll_writes;
};

namespace {

std::string prefix_of(int module) {
  const darshan::record_layout* l = darshan::current_layout(module);
  if (!l || l->ints.empty()) return "";
  std::string first = l->ints[0];
  // The prefix is the first counter's name up to the last '_' before its own word.
  for (const char* p : {"POSIX_", "MPIIO_", "STDIO_", "H5F_", "H5D_", "PNETCDF_FILE_",
                        "PNETCDF_VAR_", "BGQ_"})
    if (first.rfind(p, 0) == 0) return p;
  return "";
}

const file_table::indexes& indexes_of(int module) {
  static std::map<int, file_table::indexes> all;
  auto it = all.find(module);
  if (it != all.end()) return it->second;
  file_table::indexes x;
  const std::string p = prefix_of(module);
  auto i = [&](const std::string& n) { return int_counter(module, p + n); };
  auto f = [&](const std::string& n) { return float_counter(module, p + "F_" + n); };
  if (const module_counters* c = counters_of(module)) {
    x.reads = c->reads;
    x.writes = c->writes;
    const ioinsights::thresholds t;
    for (std::size_t b = 0; b < c->read_sizes.size() && b + 1 < darshan::size_bucket_count; ++b) {
      if (darshan::size_bucket_upper_edges[b] > t.small_bytes) break;
      if (c->read_sizes[b] >= 0) x.small_reads.push_back(c->read_sizes[b]);
      if (c->write_sizes[b] >= 0) x.small_writes.push_back(c->write_sizes[b]);
    }
  }
  x.bytes_read = i("BYTES_READ");
  x.bytes_written = i("BYTES_WRITTEN");
  x.max_byte_read = i("MAX_BYTE_READ");
  x.max_byte_written = i("MAX_BYTE_WRITTEN");
  x.seq_reads = i("SEQ_READS");
  x.seq_writes = i("SEQ_WRITES");
  x.mem_not_aligned = i("MEM_NOT_ALIGNED");
  x.file_not_aligned = i("FILE_NOT_ALIGNED");
  x.slowest_bytes = i("SLOWEST_RANK_BYTES");
  x.fastest_bytes = i("FASTEST_RANK_BYTES");
  x.read_time = f("READ_TIME");
  x.write_time = f("WRITE_TIME");
  x.meta_time = f("META_TIME");
  x.slowest_time = f("SLOWEST_RANK_TIME");
  x.fastest_time = f("FASTEST_RANK_TIME");
  x.indep_reads = i("INDEP_READS");
  x.indep_writes = i("INDEP_WRITES");
  for (const char* k : {"COLL_", "SPLIT_", "NB_"}) {
    if (int r = i(std::string(k) + "READS"); r >= 0) x.coll_reads.push_back(r);
    if (int w = i(std::string(k) + "WRITES"); w >= 0) x.coll_writes.push_back(w);
  }
  return all.emplace(module, std::move(x)).first->second;
}

// A counter's value, with Darshan's -1 ("not monitored") and absent counters as 0.
double value(const darshan::record& r, int index) {
  if (index < 0) return 0;
  std::int64_t v = r.counter(static_cast<std::size_t>(index));
  return v < 0 ? 0 : double(v);
}
double fvalue(const darshan::record& r, int index) {
  if (index < 0) return 0;
  double v = r.fcounter(static_cast<std::size_t>(index));
  return v < 0 ? 0 : v;
}
double sum_of(const darshan::record& r, const std::vector<int>& indexes) {
  double s = 0;
  for (int k : indexes) s += value(r, k);
  return s;
}

// Spreads the file's ids over passes evenly whatever their low bits (splitmix64's finish).
std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double share(double part, double whole) { return whole > 0 ? part / whole : 0; }

}  // namespace

file_table::file_table(int module, file_table_options options)
    : module_(module), options_(options), ix_(indexes_of(module)) {}

bool file_table::next_pass() {
  if (in_pass_) finish_pass();
  if (pending_.empty()) return false;
  std::tie(residue_, modulus_) = pending_.front();
  pending_.pop_front();
  in_pass_ = true;
  ++passes_;
  return true;
}

void file_table::add(const darshan::record& r) {
  if (!in_pass_ || mix(r.id) % modulus_ != residue_) return;
  auto [it, added] = files_.try_emplace(r.id);
  if (added && files_.size() > std::max<std::size_t>(options_.max_files, 1)) {
    // Too many files: keep half the ids in this pass and leave the other half to another,
    // until this pass holds few enough.
    while (files_.size() > std::max<std::size_t>(options_.max_files, 1)) {
      pending_.emplace_back(residue_ + modulus_, modulus_ * 2);
      modulus_ *= 2;
      for (auto f = files_.begin(); f != files_.end();)
        f = mix(f->first) % modulus_ != residue_ ? files_.erase(f) : std::next(f);
    }
    it = files_.find(r.id);
    if (it == files_.end()) return;
  }
  file& f = it->second;
  const indexes& x = ix_;
  const double reads = sum_of(r, x.reads), writes = sum_of(r, x.writes);
  const double small_reads = sum_of(r, x.small_reads), small_writes = sum_of(r, x.small_writes);
  const double read_time = fvalue(r, x.read_time), write_time = fvalue(r, x.write_time);
  const double meta_time = fvalue(r, x.meta_time);
  const double bytes_read = value(r, x.bytes_read), bytes_written = value(r, x.bytes_written);
  f.reads += reads;
  f.writes += writes;
  f.small_reads += small_reads;
  f.small_writes += small_writes;
  f.bytes_read += bytes_read;
  f.bytes_written += bytes_written;
  if (x.max_byte_read >= 0)
    f.max_byte_read = std::max(f.max_byte_read, double(r.counter(std::size_t(x.max_byte_read))));
  if (x.max_byte_written >= 0)
    f.max_byte_written =
        std::max(f.max_byte_written, double(r.counter(std::size_t(x.max_byte_written))));
  f.seq_reads += value(r, x.seq_reads);
  f.seq_writes += value(r, x.seq_writes);
  f.mem_not_aligned += value(r, x.mem_not_aligned);
  f.file_not_aligned += value(r, x.file_not_aligned);
  f.read_time += read_time;
  f.write_time += write_time;
  f.meta_time += meta_time;
  f.indep_reads += value(r, x.indep_reads);
  f.indep_writes += value(r, x.indep_writes);
  f.coll_reads += sum_of(r, x.coll_reads);
  f.coll_writes += sum_of(r, x.coll_writes);
  if (r.rank < 0) {
    f.shared = true;
    f.sh_reads += reads;
    f.sh_writes += writes;
    f.sh_small_reads += small_reads;
    f.sh_small_writes += small_writes;
    f.sh_bytes += bytes_read + bytes_written;
    f.sh_slowest_bytes = value(r, x.slowest_bytes);
    f.sh_fastest_bytes = value(r, x.fastest_bytes);
    f.sh_time += read_time + write_time + meta_time;
    f.sh_read_time += read_time;
    f.sh_write_time += write_time;
    f.sh_slowest_time = fvalue(r, x.slowest_time);
    f.sh_fastest_time = fvalue(r, x.fastest_time);
  } else {
    f.ranks += 1;
    f.own_read_time += read_time;
    f.own_write_time += write_time;
    f.min_read = f.min_read < 0 ? bytes_read : std::min(f.min_read, bytes_read);
    f.max_read = std::max(f.max_read, bytes_read);
    f.min_written = f.min_written < 0 ? bytes_written : std::min(f.min_written, bytes_written);
    f.max_written = std::max(f.max_written, bytes_written);
  }
}

void file_table::finish_pass() {
  for (const auto& [id, f] : files_) fold(id, f);
  files_.clear();
  files_.rehash(0);
  in_pass_ = false;
}

void file_table::fold(std::uint64_t id, const file& f) {
  const ioinsights::thresholds& t = options_.limits;
  const double bytes = f.bytes_read + f.bytes_written;
  auto put = [&](file_metric m, double count, double of, double seconds, bool is_case) {
    case_list& c = cases_[static_cast<std::size_t>(m)];
    c.count += count;
    c.of += of;
    if (!is_case) return;
    c.seconds += seconds;
    ++c.files;
    file_case fc{id, "", count, of, seconds, bytes};
    auto better = [](const file_case& a, const file_case& b) {
      return a.seconds != b.seconds ? a.seconds > b.seconds
                                    : a.count != b.count ? a.count > b.count : a.id < b.id;
    };
    auto& top = c.top;
    if (top.size() >= options_.top_files && (top.empty() || !better(fc, top.back()))) return;
    top.insert(std::upper_bound(top.begin(), top.end(), fc, better), fc);
    if (top.size() > options_.top_files) top.pop_back();
  };

  // The file count summary (darshan-util's accumulator: bytes moved, highest offset).
  {
    const double max_offset = std::max(f.max_byte_read, f.max_byte_written);
    auto add = [&](file_kind& k) {
      ++k.count;
      k.total_size += bytes;
      k.max_size = std::max<std::int64_t>(k.max_size, std::int64_t(max_offset >= 0 ? max_offset : 0));
    };
    add(counts_.total);
    if (f.bytes_read > 0 && f.bytes_written == 0) add(counts_.read_only);
    else if (f.bytes_written > 0 && f.bytes_read == 0) add(counts_.write_only);
    else if (f.bytes_written > 0 && f.bytes_read > 0) add(counts_.read_write);
  }

  const double rw_time = f.read_time + f.write_time;
  const double io_time = rw_time + f.meta_time;
  put(file_metric::io_time, f.reads + f.writes, f.reads + f.writes, io_time,
      io_time > 0 || f.reads + f.writes > 0 || bytes > 0);
  put(file_metric::small_reads, f.small_reads, f.reads,
      f.read_time * share(f.small_reads, f.reads), f.small_reads > 0);
  put(file_metric::small_writes, f.small_writes, f.writes,
      f.write_time * share(f.small_writes, f.writes), f.small_writes > 0);
  const double ops = f.reads + f.writes;
  put(file_metric::misaligned_memory, f.mem_not_aligned, ops,
      rw_time * share(f.mem_not_aligned, ops), f.mem_not_aligned > 0);
  put(file_metric::misaligned_file, f.file_not_aligned, ops,
      rw_time * share(f.file_not_aligned, ops), f.file_not_aligned > 0);
  if (f.max_byte_read >= 0) {
    const double again = std::max(0.0, f.bytes_read - (f.max_byte_read + 1));
    put(file_metric::redundant_reads, again, f.bytes_read,
        f.read_time * share(again, f.bytes_read), again > 0);
  }
  if (f.max_byte_written >= 0) {
    const double again = std::max(0.0, f.bytes_written - (f.max_byte_written + 1));
    put(file_metric::redundant_writes, again, f.bytes_written,
        f.write_time * share(again, f.bytes_written), again > 0);
  }
  if (ix_.seq_reads >= 0) {
    const double random_reads = std::max(0.0, f.reads - f.seq_reads);
    const double random_writes = std::max(0.0, f.writes - f.seq_writes);
    put(file_metric::random_reads, random_reads, f.reads,
        f.read_time * share(random_reads, f.reads), random_reads > 0);
    put(file_metric::random_writes, random_writes, f.writes,
        f.write_time * share(random_writes, f.writes), random_writes > 0);
  }
  if (f.shared) {
    put(file_metric::shared_small_reads, f.sh_small_reads, f.sh_reads,
        f.sh_read_time * share(f.sh_small_reads, f.sh_reads), f.sh_small_reads > 0);
    put(file_metric::shared_small_writes, f.sh_small_writes, f.sh_writes,
        f.sh_write_time * share(f.sh_small_writes, f.sh_writes), f.sh_small_writes > 0);
    const double lag = std::max(0.0, f.sh_slowest_time - f.sh_fastest_time);
    if (f.sh_bytes > 0) {
      const double d = std::fabs(f.sh_slowest_bytes - f.sh_fastest_bytes);
      put(file_metric::shared_bytes_imbalance, d, f.sh_bytes, lag,
          d / f.sh_bytes > t.imbalance_stragglers);
    }
    if (f.sh_time > 0) {
      const double d = std::fabs(f.sh_slowest_time - f.sh_fastest_time);
      put(file_metric::shared_time_imbalance, d, f.sh_time, d, d / f.sh_time > t.imbalance_stragglers);
    }
  }
  put(file_metric::meta_time, 0, 0, f.meta_time, f.meta_time > 0);
  if (f.ranks > 0 && f.max_written > 0) {
    const double d = f.max_written - std::max(0.0, f.min_written);
    put(file_metric::write_size_imbalance, d, f.max_written, f.own_write_time * d / f.max_written,
        d / f.max_written > t.imbalance_size);
  }
  if (f.ranks > 0 && f.max_read > 0) {
    const double d = f.max_read - std::max(0.0, f.min_read);
    put(file_metric::read_size_imbalance, d, f.max_read, f.own_read_time * d / f.max_read,
        d / f.max_read > t.imbalance_size);
  }
  if (ix_.indep_reads >= 0) {
    const double indep = f.indep_reads + f.indep_writes;
    auto is_case = [&](double n) {
      return indep > 0 && n / indep > t.collective_operations && indep > t.collective_operations_absolute;
    };
    put(file_metric::independent_reads, f.indep_reads, indep,
        f.read_time * share(f.indep_reads, f.indep_reads + f.coll_reads), is_case(f.indep_reads));
    put(file_metric::independent_writes, f.indep_writes, indep,
        f.write_time * share(f.indep_writes, f.indep_writes + f.coll_writes),
        is_case(f.indep_writes));
  }
}

void file_table::results_into(module_summary& m) const {
  m.files = counts_;
  m.cases = cases_;
}

}  // namespace perfdm::iosummary
