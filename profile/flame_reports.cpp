#include "profile/flame_reports.hpp"

namespace perfdm {

std::variant<flamegraph_report, std::string> flamegraph_of(const profile::call_path_store& store,
                                                           const flamegraph_request& x) {
  profile::flame_query q;
  auto mask = profile::view_mask(x.view);
  if (!mask) return "unknown VIEW '" + x.view + "' (cpu, offcpu, lock, io, sleep, other, all)";
  q.states = *mask;
  q.tid = x.tid;
  if (x.has_phase) q.phase = x.phase;
  if (x.has_from) q.from = x.from;
  if (x.has_to) q.to = x.to;
  auto r = store.flamegraph(q);
  if (!r.phase_known)
    return "phase " + std::to_string(x.phase) + " is not kept for process " +
           std::to_string(x.pid);
  flamegraph_report out;
  out.pid = x.pid;
  out.view = x.view;
  out.phase = r.phase;
  out.from = r.from;
  out.to = r.to;
  out.samples = r.samples;
  out.total = r.total;
  out.truncated = r.truncated;
  out.paths.reserve(r.paths.size());
  for (auto& p : r.paths)
    out.paths.push_back(
        flame_path_entry{profile::folded_path(p.frames), profile::to_string(p.state), p.count});
  return out;
}

timeline_report timeline_of(const profile::call_path_store& store, const timeline_request& x) {
  std::optional<double> from, to;
  if (x.has_from) from = x.from;
  if (x.has_to) to = x.to;
  timeline_report out;
  out.pid = x.pid;
  auto range = store.sliced_range();
  out.from = x.has_from ? x.from : 1e300;
  out.to = x.has_to ? x.to : -1e300;
  for (auto& t : store.timeline(from, to)) {
    timeline_thread_entry e{t.tid, t.name, {}};
    for (auto& r : t.runs) {
      if (!x.has_from) out.from = std::min(out.from, r.from);
      if (!x.has_to) out.to = std::max(out.to, r.to);
      e.runs.push_back(timeline_run_entry{r.from, r.to, profile::to_string(r.state), r.function});
    }
    out.threads.push_back(std::move(e));
  }
  if (out.from > out.to) out.from = out.to = range.second < 0 ? 0 : range.second;
  return out;
}

flame_export flame_export_of(const profile::call_path_store& store, std::int32_t pid) {
  flame_export out;
  out.pid = pid;
  for (auto& p : store.export_phases()) {
    flame_phase_entry e{p.phase, p.start, p.end, {}};
    for (auto& f : p.paths)
      e.paths.push_back(
          flame_path_entry{profile::folded_path(f.frames), profile::to_string(f.state), f.count});
    out.phases.push_back(std::move(e));
  }
  return out;
}

}  // namespace perfdm
