#include "iosummary/summary_builder.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_set>

#include "darshan/darshan_format.hpp"
#include "darshan/darshan_layouts.hpp"
#include "darshan/darshan_totals.hpp"
#include "iosummary/module_counters.hpp"

namespace perfdm::iosummary {

rank_rows rows_for(std::int64_t nprocs, std::int64_t max_rows) {
  rank_rows r;
  nprocs = std::max<std::int64_t>(nprocs, 1);
  max_rows = std::max<std::int64_t>(max_rows, 1);
  r.ranks_per_row = (nprocs + max_rows - 1) / max_rows;
  r.rows = (nprocs + r.ranks_per_row - 1) / r.ranks_per_row;
  return r;
}

namespace {

double nonnegative(double v) { return v < 0 ? 0 : v; }

// The row of `rank` (ranks outside the job, which a damaged log may hold, go to the last).
std::size_t row_of(const rank_rows& l, std::int64_t rank) {
  if (rank < 0) return 0;
  return std::size_t(std::min(rank / l.ranks_per_row, l.rows - 1));
}

// Adds `bytes` spread over [t0, t1] to `bins` of `width` seconds, in proportion to the time
// each bin overlaps (all of it to one bin when t1 <= t0), as Darshan's heatmap spreads them.
void spread(std::vector<double>& bins, double width, double t0, double t1, double bytes) {
  if (bins.empty() || width <= 0 || bytes <= 0) return;
  const std::size_t last = bins.size() - 1;
  auto bin = [&](double t) {
    double b = std::floor(std::max(t, 0.0) / width);
    return std::size_t(std::min<double>(b, double(last)));
  };
  if (!(t1 > t0)) {
    bins[bin(t0)] += bytes;
    return;
  }
  const std::size_t b0 = bin(t0), b1 = bin(t1);
  if (b0 == b1) {
    bins[b0] += bytes;
    return;
  }
  const double span = t1 - t0;
  for (std::size_t b = b0; b <= b1; ++b) {
    double lo = std::max(t0, double(b) * width), hi = b == last ? t1 : std::min(t1, double(b + 1) * width);
    if (hi > lo) bins[b] += bytes * (hi - lo) / span;
  }
}

class builder {
 public:
  builder(io_source& src, const summary_options& o) : src_(src), o_(o) {
    s_.job = src.job();
    nprocs_ = std::max<std::int64_t>(s_.job.nprocs, 1);
    s_.costs.layout = rows_for(nprocs_, o.max_rank_rows);
    const auto rows = std::size_t(s_.costs.layout.rows);
    s_.costs.read.assign(rows, 0);
    s_.costs.write.assign(rows, 0);
    s_.costs.meta.assign(rows, 0);
    s_.rank_meta_time.assign(std::size_t(nprocs_), 0);
  }

  job_summary run() {
    for (const auto& m : src_.modules()) {
      if (m.id == darshan::HEATMAP_MOD && m.readable) {
        heatmaps(m);
      } else if ((m.id == darshan::DXT_POSIX_MOD || m.id == darshan::DXT_MPIIO_MOD) && m.readable) {
        dxt(m);
      }
      module_summary ms;
      ms.info = m;
      if (m.readable && counters_of(m.id)) counters(ms);
      s_.modules.push_back(std::move(ms));
    }
    finish();
    return std::move(s_);
  }

 private:
  void counters(module_summary& ms) {
    const module_counters& c = *counters_of(ms.info.id);
    const darshan::record_layout* cur = darshan::current_layout(ms.info.id);
    ms.ints.assign(cur->ints.size(), 0);
    ms.floats.assign(cur->floats.size(), 0);
    const bool with_mounts = ms.info.id == darshan::POSIX_MOD || ms.info.id == darshan::STDIO_MOD;
    const bool has_perf = darshan::has_totals(ms.info.id);
    darshan::perf_summary perf;
    std::map<std::int64_t, std::int64_t> sizes;
    file_table files(ms.info.id, o_.files);
    files.next_pass();
    src_.for_each_record(ms.info.id, true, [&](const darshan::record& r, std::optional<std::string_view> name) {
      ++ms.records;
      for (std::size_t i = 0; i < ms.ints.size(); ++i) {
        std::int64_t v = r.counter(i);
        if (v > 0) ms.ints[i] += double(v);
      }
      for (std::size_t i = 0; i < ms.floats.size(); ++i) {
        double v = r.fcounter(i);
        if (v > 0) ms.floats[i] += v;
      }
      if (has_perf) perf.add(r);
      files.add(r);
      const double rt = c.read_time >= 0 ? nonnegative(r.fcounter(std::size_t(c.read_time))) : 0;
      const double wt = c.write_time >= 0 ? nonnegative(r.fcounter(std::size_t(c.write_time))) : 0;
      const double mt = c.meta_time >= 0 ? nonnegative(r.fcounter(std::size_t(c.meta_time))) : 0;
      if (!c.layered) cost(r.rank, rt, wt, mt);
      if (with_mounts) {
        const double br = c.bytes_read >= 0 ? nonnegative(double(r.counter(std::size_t(c.bytes_read)))) : 0;
        const double bw =
            c.bytes_written >= 0 ? nonnegative(double(r.counter(std::size_t(c.bytes_written)))) : 0;
        const darshan::mount* mnt = name ? mount_of(s_.job.mounts, *name) : nullptr;
        mount_usage& u = mounts_[mnt ? mnt->point : "UNKNOWN"];
        if (u.point.empty()) {
          u.point = mnt ? mnt->point : "UNKNOWN";
          u.type = mnt ? mnt->type : "UNKNOWN";
        }
        u.bytes_read += br;
        u.bytes_written += bw;
        ++u.records;
      }
      for (std::size_t k = 0; k < c.access_sizes.size(); ++k) {
        if (c.access_sizes[k] < 0 || c.access_counts[k] < 0) continue;
        std::int64_t size = r.counter(std::size_t(c.access_sizes[k]));
        std::int64_t count = r.counter(std::size_t(c.access_counts[k]));
        if (count <= 0 || size < 0) continue;
        sizes[size] += count;
        if (sizes.size() > o_.max_common_sizes) prune(sizes, ms);
      }
    });
    while (files.next_pass())
      src_.for_each_record(ms.info.id, false,
                           [&](const darshan::record& r, std::optional<std::string_view>) { files.add(r); });
    files.results_into(ms);
    s_.file_passes += files.passes();

    for (int k : c.reads) ms.reads += ms.sum(k);
    for (int k : c.writes) ms.writes += ms.sum(k);
    ms.bytes_read = ms.sum(c.bytes_read);
    ms.bytes_written = ms.sum(c.bytes_written);
    ms.read_time = ms.fsum(c.read_time);
    ms.write_time = ms.fsum(c.write_time);
    ms.meta_time = ms.fsum(c.meta_time);
    if (!c.layered) s_.io_time += ms.read_time + ms.write_time + ms.meta_time;
    std::vector<std::pair<std::int64_t, std::int64_t>> by_count(sizes.begin(), sizes.end());
    std::sort(by_count.begin(), by_count.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    if (by_count.size() > 4) by_count.resize(4);
    ms.common_sizes = std::move(by_count);
    if (has_perf && ms.records > 0) {
      auto p = perf.summarize();
      ms.perf_mib_per_s = p.agg_perf_by_slowest;
      ms.slowest_rank_seconds = p.agg_time_by_slowest;
    }
  }

  // Keeps the sizes counted most when there are too many distinct ones.
  static void prune(std::map<std::int64_t, std::int64_t>& sizes, module_summary& ms) {
    std::vector<std::int64_t> counts;
    counts.reserve(sizes.size());
    for (const auto& [size, count] : sizes) counts.push_back(count);
    std::nth_element(counts.begin(), counts.begin() + counts.size() / 2, counts.end());
    const std::int64_t median = counts[counts.size() / 2];
    for (auto it = sizes.begin(); it != sizes.end();) it = it->second <= median ? sizes.erase(it) : std::next(it);
    ms.common_sizes_approximate = true;
  }

  void cost(std::int64_t rank, double read, double write, double meta) {
    if (rank < 0) {
      shared_read_ += read;
      shared_write_ += write;
      shared_meta_ += meta;
      return;
    }
    const std::size_t row = row_of(s_.costs.layout, rank);
    s_.costs.read[row] += read;
    s_.costs.write[row] += write;
    s_.costs.meta[row] += meta;
    if (rank < nprocs_) s_.rank_meta_time[std::size_t(rank)] += meta;
  }

  void heatmaps(const source_module& m) {
    std::map<std::string, heatmap> by_api;
    src_.for_each_record(m.id, true, [&](const darshan::record& r, std::optional<std::string_view> name) {
      std::string api = name ? std::string(*name) : "unnamed";
      if (api.rfind("heatmap:", 0) == 0) api = api.substr(8);
      heatmap& h = by_api[api];
      if (h.name.empty()) {
        h.name = api;
        h.layout = s_.costs.layout;
        h.bytes.assign(std::size_t(h.layout.rows), {});
      }
      ++h.records;
      h.bin_width = std::max(h.bin_width, r.bin_width_seconds);
      const std::size_t n = r.nbins > 0 ? std::size_t(r.nbins) : 0;
      if (h.read_bins.size() < n) {
        h.read_bins.resize(n, 0);
        h.write_bins.resize(n, 0);
      }
      auto& row = h.bytes[row_of(h.layout, r.rank)];
      if (row.size() < n) row.resize(n, 0);
      for (std::size_t b = 0; b < n; ++b) {
        const double rd = nonnegative(double(r.read_bins[b])), wr = nonnegative(double(r.write_bins[b]));
        h.read_bins[b] += rd;
        h.write_bins[b] += wr;
        row[b] += rd + wr;
      }
    });
    for (auto& [api, h] : by_api) {
      for (auto& row : h.bytes) row.resize(h.read_bins.size(), 0);
      s_.heatmaps.push_back(std::move(h));
    }
  }

  void dxt(const source_module& m) {
    dxt_summary d;
    d.module = m.name;
    d.map.name = m.name;
    d.map.layout = s_.costs.layout;
    const std::size_t bins = std::max<std::size_t>(o_.dxt_bins, 1);
    const double span = s_.job.run_time > 0 ? s_.job.run_time : 1;
    d.map.bin_width = span / double(bins);
    d.map.bytes.assign(std::size_t(d.map.layout.rows), std::vector<double>(bins, 0));
    d.map.read_bins.assign(bins, 0);
    d.map.write_bins.assign(bins, 0);
    const std::size_t keep = o_.files.top_files;
    src_.for_each_record(m.id, false, [&](const darshan::record& r, std::optional<std::string_view>) {
      ++d.records;
      ++d.map.records;
      file_case fc;
      fc.id = r.id;
      auto& row = d.map.bytes[row_of(d.map.layout, r.rank)];
      std::int64_t seen = 0;
      if (r.for_each_segment)
        r.for_each_segment([&](const darshan::dxt_segment* seg, std::size_t n) {
          for (std::size_t i = 0; i < n; ++i, ++seen) {
            const bool write = seen < r.write_count;
            const double len = nonnegative(double(seg[i].length));
            spread(row, d.map.bin_width, seg[i].start_time, seg[i].end_time, len);
            spread(write ? d.map.write_bins : d.map.read_bins, d.map.bin_width, seg[i].start_time,
                   seg[i].end_time, len);
            (write ? d.bytes_written : d.bytes_read) += len;
            (write ? d.write_segments : d.read_segments) += 1;
            d.last_end = std::max(d.last_end, seg[i].end_time);
            fc.count += 1;
            fc.bytes += len;
            fc.seconds += nonnegative(seg[i].end_time - seg[i].start_time);
          }
        });
      fc.of = double(r.rank);  // the rank of this trace
      auto better = [](const file_case& a, const file_case& b) { return a.count > b.count; };
      if (d.top.size() < keep || (!d.top.empty() && better(fc, d.top.back()))) {
        d.top.insert(std::upper_bound(d.top.begin(), d.top.end(), fc, better), fc);
        if (d.top.size() > keep) d.top.pop_back();
      }
    });
    s_.dxt.push_back(std::move(d));
  }

  void finish() {
    // Files every rank shared: their time counts evenly on every rank.
    const auto& l = s_.costs.layout;
    for (std::int64_t row = 0; row < l.rows; ++row) {
      const double ranks = double(std::min(l.ranks_per_row, nprocs_ - row * l.ranks_per_row));
      s_.costs.read[std::size_t(row)] += shared_read_ * ranks / double(nprocs_);
      s_.costs.write[std::size_t(row)] += shared_write_ * ranks / double(nprocs_);
      s_.costs.meta[std::size_t(row)] += shared_meta_ * ranks / double(nprocs_);
    }
    for (double& t : s_.rank_meta_time) t += shared_meta_ / double(nprocs_);
    for (auto& [point, u] : mounts_) s_.mounts.push_back(u);
    std::sort(s_.mounts.begin(), s_.mounts.end(), [](const mount_usage& a, const mount_usage& b) {
      return a.bytes_read + a.bytes_written > b.bytes_read + b.bytes_written;
    });
    // The names of every file the summary shows.
    std::unordered_set<std::uint64_t> ids;
    for (const auto& m : s_.modules)
      for (const auto& c : m.cases)
        for (const auto& f : c.top) ids.insert(f.id);
    for (const auto& d : s_.dxt)
      for (const auto& f : d.top) ids.insert(f.id);
    auto names = src_.names_of(ids);
    auto name = [&](file_case& f) {
      auto it = names.find(f.id);
      f.name = it != names.end() ? it->second : "<id " + std::to_string(f.id) + ">";
    };
    for (auto& m : s_.modules)
      for (auto& c : m.cases)
        for (auto& f : c.top) name(f);
    for (auto& d : s_.dxt)
      for (auto& f : d.top) name(f);
    s_.notes = src_.notes();
  }

  io_source& src_;
  const summary_options& o_;
  job_summary s_;
  std::int64_t nprocs_ = 1;
  double shared_read_ = 0, shared_write_ = 0, shared_meta_ = 0;
  std::map<std::string, mount_usage> mounts_;
};

}  // namespace

job_summary build_summary(io_source& source, const summary_options& options) {
  return builder(source, options).run();
}

}  // namespace perfdm::iosummary
