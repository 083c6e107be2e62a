// Paradyn's component aggregation. See component_aggregator.hpp.
#include "dm/component_aggregator.hpp"

#include <algorithm>

namespace perfdm {

bool component_aggregator::add_component(const std::string& name) {
  if (!live_.insert(name).second) return false;
  // A component of that name that was removed and comes back starts again at each MI's
  // aggregated time; what it left pending stays.
  for (auto& [id, m] : mis_) {
    auto p = m.parts.find(name);
    if (p == m.parts.end()) continue;
    if (p->second.pieces.empty())
      m.parts.erase(p);
    else
      p->second.reported = std::max(p->second.reported, m.done);
  }
  return true;
}

bool component_aggregator::remove_component(const std::string& name, std::vector<sample>& out) {
  if (live_.erase(name) == 0) return false;
  watermarks_.erase(name);
  // What it lost no longer matters: one taking over from it now is cut by what it passed on.
  for (auto i = lost_.begin(); i != lost_.end();) i = i->first == name ? lost_.erase(i) : ++i;  // one that comes back under that name promises nothing yet
  auto& left = left_[name];
  for (auto& [id, m] : mis_)
    if (auto p = m.parts.find(name); p != m.parts.end()) {
      left[id] = std::max(left[id], p->second.reported);
      advance(id, m, out);
    }
  // Takers that waited for this one's end go in now, cut by what it passed on; one that
  // itself went first goes in as it came.
  for (auto i = waiting_.begin(); i != waiting_.end();) {
    if (i->second.replaced != name && i->first != name) {
      ++i;
      continue;
    }
    auto component = i->first;
    auto t = std::move(i->second);
    i = waiting_.erase(i);
    if (t.replaced == name) cut(component, name, t.reached);
    if (!t.held.empty()) add_samples(component, t.held, out);
    if (t.watermark) add_watermark(component, *t.watermark, out);
    if (component == name && live_.count(name)) remove_component(name, out);  // re-added above
  }
  return true;
}

void component_aggregator::take_over(const std::string& component, const std::string& replaced,
                                     const std::map<std::uint64_t, time_ns>& reached) {
  if (replaced.empty() || replaced == component) return;
  if (live_.count(replaced)) {  // its end not seen yet: wait for it
    waiting_[component] = taker{replaced, reached, {}, std::nullopt};
    if (lost_.count({replaced, component})) {  // unless it lives on and lost this one
      std::vector<sample> none;  // nothing held yet: nothing becomes complete
      release(component, none);
    }
    return;
  }
  cut(component, replaced, reached);
}

bool component_aggregator::child_lost(const std::string& parent, const std::string& child,
                                      std::vector<sample>& out) {
  if (!live_.count(parent)) return false;
  lost_.insert({parent, child});
  auto w = waiting_.find(child);
  if (w == waiting_.end() || w->second.replaced != parent) return false;
  release(child, out);
  return true;
}

// A taker of a live component that lost it: cut where that one received its samples (it
// passes all of those on itself), then in with what it held.
void component_aggregator::release(const std::string& component, std::vector<sample>& out) {
  auto i = waiting_.find(component);
  if (i == waiting_.end()) return;
  auto t = std::move(i->second);
  waiting_.erase(i);
  lost_.erase({t.replaced, component});
  auto& clips = clips_[component];
  for (auto& [id, received] : t.reached) {
    auto& clip = clips.try_emplace(id, received).first->second;
    clip = std::max(clip, received);
  }
  if (!t.held.empty()) add_samples(component, t.held, out);
  if (t.watermark) add_watermark(component, *t.watermark, out);
}

void component_aggregator::cut(const std::string& component, const std::string& replaced,
                               const std::map<std::uint64_t, time_ns>& reached) {
  std::map<std::uint64_t, time_ns> reported;
  if (auto l = left_.find(replaced); l != left_.end()) reported = l->second;
  auto& clips = clips_[component];
  for (auto& [id, received] : reached)
    if (auto r = reported.find(id); r != reported.end()) {
      auto& clip = clips.try_emplace(id, std::min(r->second, received)).first->second;
      clip = std::max(clip, std::min(r->second, received));
    }
}

void component_aggregator::add_samples(const std::string& component, const std::vector<sample>& in,
                                       std::vector<sample>& out) {
  if (!live_.count(component)) add_component(component);
  if (auto w = waiting_.find(component); w != waiting_.end()) {
    w->second.held.insert(w->second.held.end(), in.begin(), in.end());
    return;
  }
  std::set<std::uint64_t> touched;
  for (auto& s : in) {
    add_one(component, s, out);
    touched.insert(s.mi.id);
  }
  for (auto id : touched)  // (an MI whose samples were all clipped may have no state)
    if (auto m = mis_.find(id); m != mis_.end()) advance(id, m->second, out);
}

void component_aggregator::add_watermark(const std::string& component, time_ns until,
                                         std::vector<sample>& out) {
  if (!live_.count(component)) add_component(component);
  if (auto t = waiting_.find(component); t != waiting_.end()) {
    t->second.watermark = std::max(t->second.watermark.value_or(until), until);
    return;
  }
  auto w = watermarks_.try_emplace(component, until).first;
  w->second = std::max(w->second, until);
  for (auto& [id, m] : mis_) {
    auto p = m.parts.find(component);
    if (p == m.parts.end() || p->second.reported >= until) continue;
    p->second.reported = until;
    advance(id, m, out);
  }
}

time_ns component_aggregator::aggregated_time(mi_handle mi) const {
  auto i = mis_.find(mi.id);
  return i == mis_.end() || !i->second.started ? -1 : i->second.done;
}

std::size_t component_aggregator::pending() const {
  std::size_t n = 0;
  for (auto& [id, m] : mis_)
    for (auto& [name, p] : m.parts) n += p.pieces.size();
  return n;
}

void component_aggregator::add_one(const std::string& component, const sample& s,
                                   std::vector<sample>& out) {
  const bool counter = style_(s.mi) == metric_style::counter;
  time_ns t0 = to_ns(s.start);
  const time_ns t1 = to_ns(s.end);
  double value = s.value;
  if (auto c = clips_.find(component); c != clips_.end())
    if (auto i = c->second.find(s.mi.id); i != c->second.end() && t0 < i->second) {
      // Counted already, through the component this one took over from.
      ++clipped_;
      if (t1 <= i->second) return;
      if (counter)
        value *= static_cast<double>(t1 - i->second) / static_cast<double>(t1 - t0);
      t0 = i->second;
    }
  if (t0 == to_ns(s.start)) return add_clipped(component, s, t0, t1, counter, out);
  add_clipped(component, sample{s.mi, to_seconds(t0), s.end, value}, t0, t1, counter, out);
}

void component_aggregator::add_clipped(const std::string& component, const sample& s, time_ns t0,
                                       time_ns t1, bool counter, std::vector<sample>& out) {
  auto& m = mis_[s.mi.id];
  if (!m.started) {  // the first sample of any component starts the MI's aggregated time
    m.started = true;
    m.done = t0;
  }
  // A component joins the MI at its aggregated time, or at its watermark if later: it
  // promised nothing more before that.
  time_ns joined = m.done;
  if (auto w = watermarks_.find(component); w != watermarks_.end())
    joined = std::max(joined, w->second);
  auto& p = m.parts.try_emplace(component, part{joined, {}}).first->second;
  p.reported = std::max(p.reported, t1);
  time_ns from = t0;
  double amount = counter ? s.value : s.value * static_cast<double>(t1 - t0);
  if (t0 < m.done) {
    // Late: the part before the aggregated time goes out at once, as it came.
    if (t1 <= m.done) {
      out.push_back(s);
      return;
    }
    const double length = static_cast<double>(t1 - t0);
    const double late = static_cast<double>(m.done - t0) / length;
    out.push_back(sample{s.mi, s.start, to_seconds(m.done), counter ? s.value * late : s.value});
    amount *= 1 - late;
    from = m.done;
  }
  p.pieces.push_back(piece{from, t1, amount});
}

void component_aggregator::advance(std::uint64_t id, mi_state& m, std::vector<sample>& out) {
  // t' = the least of what the live components reported; none live: everything pending.
  bool any_live = false;
  time_ns until = 0;
  bool any_piece = false;
  time_ns last_end = m.done;
  for (auto& [name, p] : m.parts) {
    if (live_.count(name)) {
      until = any_live ? std::min(until, p.reported) : p.reported;
      any_live = true;
    }
    for (auto& x : p.pieces) {
      any_piece = true;
      last_end = std::max(last_end, x.end);
    }
  }
  const bool all = !any_live;
  if (all) {
    if (!any_piece) return;
    until = last_end;
  }
  if (until < m.done) return;

  const mi_handle mi{id};
  const bool counter = style_(mi) == metric_style::counter;
  // [t, t') is emitted split at every boundary a component reported inside it.
  std::vector<time_ns> bounds{m.done, until};
  for (auto& [name, p] : m.parts)
    for (auto& x : p.pieces)
      for (auto b : {x.start, x.end})
        if (b > m.done && b < until) bounds.push_back(b);
  std::sort(bounds.begin(), bounds.end());
  bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
  // Each piece spreads its amount over the segments it overlaps: a binary search for the
  // first, then a walk, so a batch of n pieces costs O(n log n), not n segments times n.
  const std::size_t segments = bounds.size() - 1;
  std::vector<double> sums(segments, 0.0);
  std::vector<char> any(segments, 0);
  for (auto& [name, p] : m.parts)
    for (auto& x : p.pieces) {
      if (x.start >= until) continue;  // after t': waits
      // The segment holding x.start: the last bound <= x.start.
      auto j = static_cast<std::size_t>(std::upper_bound(bounds.begin(), bounds.end(), x.start) -
                                        bounds.begin() - 1);
      if (x.start == x.end) {  // a COUNTER amount at one instant (a SAMPLED one weighs 0)
        if (counter && j < segments) sums[j] += x.amount, any[j] = 1;
        continue;
      }
      const double length = static_cast<double>(x.end - x.start);
      for (; j < segments && bounds[j] < x.end; ++j) {
        const time_ns overlap = std::min(x.end, bounds[j + 1]) - std::max(x.start, bounds[j]);
        if (overlap <= 0) continue;
        sums[j] += x.amount * static_cast<double>(overlap) / length;
        any[j] = 1;
      }
    }
  for (std::size_t j = 0; j < segments; ++j)
    if (any[j])
      out.push_back(
          sample{mi, to_seconds(bounds[j]), to_seconds(bounds[j + 1]),
                 counter ? sums[j] : sums[j] / static_cast<double>(bounds[j + 1] - bounds[j])});
  // What was emitted leaves the pieces; a straddling piece keeps its share after t'.
  for (auto& [name, p] : m.parts) {
    auto& ps = p.pieces;
    for (auto& x : ps) {
      if (x.start == x.end) {
        if (all && x.start == until && counter)  // the very end, when flushing
          out.push_back(sample{mi, to_seconds(x.start), to_seconds(x.start), x.amount});
        continue;
      }
      if (x.start < until && x.end > until) {
        x.amount *= static_cast<double>(x.end - until) / static_cast<double>(x.end - x.start);
        x.start = until;
      }
    }
    ps.erase(std::remove_if(ps.begin(), ps.end(),
                            [&](const piece& x) {
                              return x.start == x.end ? (x.start < until || all) : x.end <= until;
                            }),
             ps.end());
  }
  m.done = until;
  // A removed component with nothing pending is done with.
  for (auto i = m.parts.begin(); i != m.parts.end();)
    i = !live_.count(i->first) && i->second.pieces.empty() ? m.parts.erase(i) : std::next(i);
}

}  // namespace perfdm
