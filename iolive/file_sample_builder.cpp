#include "iolive/file_sample_builder.hpp"

#include <algorithm>

#include "native/pc_resources.hpp"

namespace perfdm::iolive {

const std::array<file_metric, file_sample_builder::metric_count>& file_sample_builder::metrics() {
  static const std::array<file_metric, metric_count> all{{
      {"file.read_bytes", "bytes", &file_counts::read_bytes},
      {"file.write_bytes", "bytes", &file_counts::write_bytes},
      {"file.read_ops", "operations", &file_counts::read_ops},
      {"file.write_ops", "operations", &file_counts::write_ops},
      {"file.meta_ops", "operations", &file_counts::meta_ops},
      {"file.read_time", "seconds", &file_counts::read_time},
      {"file.write_time", "seconds", &file_counts::write_time},
      {"file.meta_time", "seconds", &file_counts::meta_time},
      {"file.mpiio_read_bytes", "bytes", &file_counts::mpiio_read_bytes},
      {"file.mpiio_write_bytes", "bytes", &file_counts::mpiio_write_bytes},
      {"file.mpiio_read_ops", "operations", &file_counts::mpiio_read_ops},
      {"file.mpiio_write_ops", "operations", &file_counts::mpiio_write_ops},
      {"file.mpiio_collective_ops", "operations", &file_counts::mpiio_collective_ops},
      {"file.mpiio_meta_ops", "operations", &file_counts::mpiio_meta_ops},
      {"file.mpiio_read_time", "seconds", &file_counts::mpiio_read_time},
      {"file.mpiio_write_time", "seconds", &file_counts::mpiio_write_time},
      {"file.mpiio_meta_time", "seconds", &file_counts::mpiio_meta_time},
  }};
  return all;
}

file_sample_builder::file_sample_builder(native::sampled_process process)
    : process_(std::move(process)) {}

void file_sample_builder::set_collecting(const std::vector<collecting_mi>& mis) {
  std::vector<route> routes;
  for (auto& m : mis) {
    const auto& all = metrics();
    auto it = std::find_if(all.begin(), all.end(),
                           [&](const file_metric& f) { return m.metric == f.name; });
    if (it == all.end()) continue;
    auto old = std::find_if(routes_.begin(), routes_.end(), [&](const route& r) {
      return r.mi.id == m.mi.id && all[r.metric].name == m.metric;
    });
    if (old != routes_.end()) {
      routes.push_back(*old);
      continue;
    }
    route r;
    r.mi = m.mi;
    r.metric = std::size_t(it - all.begin());
    r.focus = native::parse_pc_focus(m.focus);
    // Per process: a thread, a function or a sync object is not something the library
    // counts by.
    // Another process (or host) is another source's: not even zeros from this one.
    const bool elsewhere =
        std::any_of(r.focus.machine.begin(), r.focus.machine.end(), [&](auto& p) {
          return p.tid != 0 || !p.thread.empty() || p.host != process_.host ||
                 (p.pid != 0 ? p.pid != process_.pid
                             : !p.process.empty() && p.process != native::resource_part(process_.name));
        });
    if (r.focus.matches_nothing || elsewhere || !r.focus.code.empty() || !r.focus.sync.empty())
      continue;
    routes.push_back(std::move(r));
  }
  routes_ = std::move(routes);
}

file_sample_builder::focus_total file_sample_builder::total(const route& r) const {
  native::sampled_thread where;  // the process as a whole: no thread, stack or wait
  focus_total sum;
  for (auto& [segment, files] : segments_) {
    // The files under the focus's first /File part are one run of the sorted map.
    auto from = files.begin();
    std::string prefix;
    if (!r.focus.file.empty()) {
      prefix = r.focus.file.front();
      from = files.lower_bound(prefix);
    }
    for (auto it = from; it != files.end(); ++it) {
      if (!prefix.empty() && it->first.compare(0, prefix.size(), prefix) != 0) break;
      where.file = it->first;
      if (!native::focus_matches(r.focus, process_, where)) continue;
      const double v = it->second.*metrics()[r.metric].field;
      const std::int64_t first = it->second.first_realtime_ns;
      sum.value += v;
      if (v > 0 && first != 0 && (sum.first_realtime_ns == 0 || first < sum.first_realtime_ns))
        sum.first_realtime_ns = first;
    }
  }
  return sum;
}

std::vector<std::string> file_sample_builder::add(const live_reading& reading,
                                                  time_ns realtime_offset, time_ns t,
                                                  std::vector<sample>& out) {
  segments_[reading.segment] = reading.files;
  std::vector<std::string> fresh;
  for (auto& [resource, counts] : reading.files)
    if (known_.insert(resource).second) fresh.push_back(resource);
  for (auto& r : routes_) {
    const auto [now, first] = total(r);
    time_ns from = r.last_t;
    if (!r.sent) {
      const time_ns start = first == 0 ? t : first - realtime_offset;
      from = std::clamp<time_ns>(start, 0, t);
    }
    const double amount = std::max(0.0, now - r.last);
    out.push_back(sample{r.mi, to_seconds(from), to_seconds(t), amount});
    r.last = std::max(r.last, now);
    r.last_t = t;
    r.sent = true;
  }
  return fresh;
}

}  // namespace perfdm::iolive
