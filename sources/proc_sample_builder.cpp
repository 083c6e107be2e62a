#include "sources/proc_sample_builder.hpp"

#include <algorithm>
#include <charconv>

#include "sources/frame_sample_builder.hpp"  // resource_within

namespace perfdm {

namespace {

enum metric_index : std::size_t {
  cpu_user, cpu_system, rss, io_read, io_write, ctx_voluntary, ctx_involuntary, threads
};

std::array<double, proc_sample_builder::metric_count> process_values(const native::process_stats& p) {
  return {static_cast<double>(p.cpu_user_ns) / 1e9,   static_cast<double>(p.cpu_system_ns) / 1e9,
          static_cast<double>(p.rss_bytes),           static_cast<double>(p.io_read_bytes),
          static_cast<double>(p.io_write_bytes),      static_cast<double>(p.ctx_voluntary),
          static_cast<double>(p.ctx_involuntary),     static_cast<double>(p.threads)};
}

std::array<double, proc_sample_builder::metric_count> thread_values(const native::thread_stats& t) {
  return {static_cast<double>(t.cpu_user_ns) / 1e9, static_cast<double>(t.cpu_system_ns) / 1e9,
          0, 0, 0, static_cast<double>(t.ctx_voluntary), static_cast<double>(t.ctx_involuntary), 0};
}

}  // namespace

const std::array<proc_metric, proc_sample_builder::metric_count>& proc_sample_builder::metrics() {
  static const std::array<proc_metric, metric_count> all = {{
      {"proc.cpu_user", metric_style::counter, "s", true},
      {"proc.cpu_system", metric_style::counter, "s", true},
      {"proc.rss", metric_style::sampled, "bytes", false},
      {"proc.io_read_bytes", metric_style::counter, "bytes", false},
      {"proc.io_write_bytes", metric_style::counter, "bytes", false},
      {"proc.ctx_voluntary", metric_style::counter, "switches", true},
      {"proc.ctx_involuntary", metric_style::counter, "switches", true},
      {"proc.threads", metric_style::sampled, "threads", false},
  }};
  return all;
}

proc_sample_builder::proc_sample_builder(std::string process_resource) : resource_(std::move(process_resource)) {}

std::string proc_sample_builder::thread_resource(int tid) const {
  return resource_ + "/" + std::to_string(tid);
}

void proc_sample_builder::set_collecting(const std::vector<collecting_mi>& mis) {
  std::vector<route> routes;
  for (auto& m : mis) {
    auto& all = metrics();
    auto it = std::find_if(all.begin(), all.end(),
                           [&](const proc_metric& p) { return m.metric == p.name; });
    if (it == all.end()) continue;
    auto metric = static_cast<std::size_t>(it - all.begin());
    // The process, when every focus resource is the process or one of its ancestors.
    bool process = std::all_of(m.focus.begin(), m.focus.end(), [&](const std::string& f) {
      return resource_within(resource_, f);
    });
    if (process) {
      routes.push_back(route{m.mi, metric, 0});
      continue;
    }
    // One thread: a focus resource below the process names it; every other one must hold it.
    int tid = 0;
    for (auto& f : m.focus) {
      if (f.size() <= resource_.size() + 1 || f.compare(0, resource_.size(), resource_) != 0 ||
          f[resource_.size()] != '/')
        continue;
      auto digits = std::string_view(f).substr(resource_.size() + 1);
      int x = 0;
      auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), x);
      if (ec == std::errc{} && p == digits.data() + digits.size() && x > 0) tid = x;
    }
    if (tid == 0 || !it->per_thread) continue;
    auto thread = thread_resource(tid);
    bool within = std::all_of(m.focus.begin(), m.focus.end(), [&](const std::string& f) {
      return resource_within(thread, f);
    });
    if (within) routes.push_back(route{m.mi, metric, tid});
  }
  auto before = needs();
  routes_ = std::move(routes);
  // Figures read with other options (no I/O, the main thread's switches only) are no
  // baseline for the new ones.
  auto after = needs();
  if (before.io != after.io || before.threads != after.threads) previous_.clear();
}

native::proc_read_options proc_sample_builder::needs() const {
  native::proc_read_options o{false, false};
  for (auto& r : routes_) {
    if (r.metric == io_read || r.metric == io_write) o.io = true;
    if (r.target != 0 || r.metric == ctx_voluntary || r.metric == ctx_involuntary) o.threads = true;
  }
  return o;
}

void proc_sample_builder::record(int target, const std::array<double, metric_count>& values, time_ns t,
                          std::vector<sample>& out) {
  auto prev = previous_.find(target);
  if (prev != previous_.end() && t > prev->second.t) {
    for (auto& r : routes_) {
      if (r.target != target) continue;
      double v = values[r.metric];
      if (metrics()[r.metric].style == metric_style::counter)
        v = std::max(0.0, v - prev->second.values[r.metric]);
      out.push_back(sample{r.mi, to_seconds(prev->second.t), to_seconds(t), v});
    }
  }
  previous_[target] = reading{t, values};
}

void proc_sample_builder::add(const native::process_stats& p, time_ns t, std::vector<sample>& out) {
  record(0, process_values(p), t, out);
  for (auto& th : p.per_thread) record(th.tid, thread_values(th), t, out);
}

time_ns next_reading_delay(time_ns now, time_ns interval) {
  if (now < 0 || interval <= 0) return interval;
  return (now / interval + 1) * interval - now + 1'000'000;
}

}  // namespace perfdm
