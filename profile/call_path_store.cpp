#include "profile/call_path_store.hpp"

#include <algorithm>
#include <cmath>
#include <queue>
#include <set>
#include <tuple>

namespace perfdm::profile {

namespace {

constexpr const char* state_names[state_count] = {"running", "lock", "io", "sleep", "other"};
// The last thread index stands for every thread beyond it (a process with 65535 threads).
constexpr std::uint16_t overflow_thread = 0xffff;

// Rough costs of what the store holds, for max_bytes: an unordered_map entry (node, hash,
// bucket pointer), a tree node with its child-map entry, a run.
constexpr std::size_t entry_bytes = 48;
constexpr std::size_t node_bytes = sizeof(std::uint32_t) * 3 + 48;
constexpr std::size_t run_bytes = 80;

std::uint64_t make_key(std::uint32_t node, std::uint16_t thread, sample_state s) {
  return (static_cast<std::uint64_t>(node) << 32) | (static_cast<std::uint64_t>(thread) << 8) |
         static_cast<std::uint64_t>(s);
}
std::uint32_t node_of(std::uint64_t k) { return static_cast<std::uint32_t>(k >> 32); }
std::uint16_t thread_of(std::uint64_t k) { return static_cast<std::uint16_t>((k >> 8) & 0xffff); }
sample_state state_of(std::uint64_t k) { return static_cast<sample_state>(k & 0xff); }

}  // namespace

const char* to_string(sample_state s) {
  return state_names[static_cast<std::size_t>(s)];
}

std::optional<sample_state> parse_state(std::string_view s) {
  for (std::size_t i = 0; i < state_count; ++i)
    if (s == state_names[i]) return static_cast<sample_state>(i);
  return std::nullopt;
}

std::optional<state_mask> view_mask(std::string_view v) {
  auto bit = [](sample_state s) { return static_cast<state_mask>(1u << static_cast<unsigned>(s)); };
  if (v == "cpu") return bit(sample_state::running);
  if (v == "offcpu")
    return bit(sample_state::lock) | bit(sample_state::io) | bit(sample_state::sleep) |
           bit(sample_state::other);
  if (v == "all") return static_cast<state_mask>(0x1f);
  if (auto s = parse_state(v); s && *s != sample_state::running) return bit(*s);
  return std::nullopt;
}

std::string folded_path(const std::vector<std::string>& frames) {
  std::string out;
  for (auto& f : frames) {
    if (!out.empty()) out += ';';
    out += f;
  }
  return out;
}

call_path_store::call_path_store(store_limits limits) : limits_(limits) {
  nodes_.push_back(node{0, 0, 0});
  phases_.push_back(phase_rec{0, 0, -1, {}});
}

void call_path_store::start_phase(std::uint64_t phase, double time) {
  if (!phases_.empty() && phases_.back().id == phase) return;
  if (!phases_.empty()) phases_.back().end = time;
  // The open slice ends where its phase does.
  if (!slices_.empty() && slices_.back().end > time)
    slices_.back().end = std::max(slices_.back().start, time);
  phases_.push_back(phase_rec{phase, time, -1, {}});
  current_phase_ = phase;
}

std::uint32_t call_path_store::intern_frame(const std::string& f) {
  auto [i, fresh] = frame_ids_.try_emplace(f, static_cast<std::uint32_t>(frames_.size()));
  if (fresh) {
    frames_.push_back(f);
    frame_bytes_ += 2 * f.size() + 64;
  }
  return i->second;
}

std::uint32_t call_path_store::path_node(const std::vector<std::string>& frames) {
  std::uint32_t at = 0;
  for (auto& f : frames) {
    auto frame = intern_frame(f);
    auto k = (static_cast<std::uint64_t>(at) << 32) | frame;
    if (auto i = children_.find(k); i != children_.end()) {
      at = i->second;
      continue;
    }
    if (nodes_.size() >= limits_.max_nodes) {
      ++counters_.truncated_stacks;
      return at;
    }
    auto id = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back(node{at, frame, nodes_[at].depth + 1});
    children_.emplace(k, id);
    at = id;
  }
  return at;
}

std::uint16_t call_path_store::thread_index(int tid, const std::string& name) {
  if (auto i = thread_ids_.find(tid); i != thread_ids_.end()) {
    threads_[i->second].name = name;
    return i->second;
  }
  if (threads_.size() >= overflow_thread) {
    if (threads_.size() == overflow_thread) threads_.push_back(thread_rec{-1, "other threads", {}});
    return overflow_thread;
  }
  auto id = static_cast<std::uint16_t>(threads_.size());
  threads_.push_back(thread_rec{tid, name, {}});
  thread_ids_.emplace(tid, id);
  return id;
}

call_path_store::slice& call_path_store::slice_at(double time) {
  if (!slices_.empty()) {
    auto& s = slices_.back();
    if (s.phase == current_phase_ && time < s.end) return s;
  }
  // Slices are aligned to whole multiples of the width, cut at the phase's start.
  double w = limits_.slice_seconds;
  double start = std::floor(time / w) * w;
  start = std::max(start, phases_.back().start);
  if (!slices_.empty()) start = std::max(start, slices_.back().end);
  if (start > time) start = time;
  slices_.push_back(slice{current_phase_, start, std::floor(time / w) * w + w, {}});
  return slices_.back();
}

void call_path_store::fold_oldest_slice() {
  auto& s = slices_.front();
  slice_entries_ -= s.c.size();
  for (auto& p : phases_)
    if (p.id == s.phase) {
      folded_entries_ -= p.folded.size();
      for (auto& [k, n] : s.c) p.folded[k] += n;
      folded_entries_ += p.folded.size();
      break;
    }
  // A slice whose phase was dropped already goes with it (its samples counted then).
  slices_.pop_front();
}

void call_path_store::enforce_bounds(double now) {
  while (!slices_.empty() && slices_.front().end < now - limits_.window_seconds)
    fold_oldest_slice();
  while (bytes() > limits_.max_bytes && slices_.size() > 1) {
    fold_oldest_slice();
    ++counters_.folded_slices;
  }
  while (bytes() > limits_.max_bytes && phases_.size() > 1) {
    auto& p = phases_.front();
    for (auto& [k, n] : p.folded) counters_.dropped_samples += n;
    for (auto i = slices_.begin(); i != slices_.end();) {
      if (i->phase != p.id) { ++i; continue; }
      for (auto& [k, n] : i->c) counters_.dropped_samples += n;
      slice_entries_ -= i->c.size();
      i = slices_.erase(i);
    }
    folded_entries_ -= p.folded.size();
    phases_.pop_front();
    ++counters_.dropped_phases;
  }
  double horizon = now - limits_.window_seconds;
  for (auto& t : threads_)
    while (!t.runs.empty() && t.runs.front().to < horizon) {
      t.runs.pop_front();
      --runs_;
    }
  while (runs_ > limits_.max_runs) {
    thread_rec* oldest = nullptr;
    for (auto& t : threads_)
      if (!t.runs.empty() && (!oldest || t.runs.front().from < oldest->runs.front().from))
        oldest = &t;
    oldest->runs.pop_front();
    --runs_;
    ++counters_.dropped_runs;
  }
}

void call_path_store::add_run(thread_rec& t, double time, sample_state state,
                              std::uint32_t leaf) {
  if (!t.runs.empty() && t.runs.back().state == state) {
    auto& r = t.runs.back();
    r.to = time;
    ++r.samples;
    leaf_tally* least = &r.leaves[0];
    for (auto& l : r.leaves) {
      if (l.n > 0 && l.frame == leaf) {
        ++l.n;
        return;
      }
      if (l.n < least->n) least = &l;
    }
    // A leaf not tallied yet takes a free place; once four are taken, later ones are not
    // tallied (a cheap estimate of the most frequent leaf).
    if (least->n == 0) *least = leaf_tally{leaf, 1};
    return;
  }
  if (!t.runs.empty()) t.runs.back().to = time;  // the old state lasted until now
  run r{time, time, state, 1, {}};
  r.leaves[0] = leaf_tally{leaf, 1};
  t.runs.push_back(r);
  ++runs_;
}

void call_path_store::add(double time, int tid, const std::string& thread_name,
                          sample_state state, const std::vector<std::string>& frames) {
  if (time < latest_) time = latest_;  // times only grow: a late clock reading counts now
  latest_ = time;
  auto n = path_node(frames);
  auto th = thread_index(tid, thread_name);
  auto& s = slice_at(time);
  auto [i, fresh] = s.c.try_emplace(make_key(n, th, state), 0);
  ++i->second;
  if (fresh) ++slice_entries_;
  ++counters_.samples;
  add_run(threads_[th], time, state, n == 0 ? UINT32_MAX : nodes_[n].frame);
  enforce_bounds(time);
}

std::size_t call_path_store::bytes() const {
  return nodes_.size() * node_bytes + frame_bytes_ +
         (slice_entries_ + folded_entries_) * entry_bytes + runs_ * run_bytes +
         slices_.size() * 96 + phases_.size() * 96;
}

std::pair<double, double> call_path_store::sliced_range() const {
  if (slices_.empty()) return {-1, -1};
  return {slices_.front().start, slices_.back().end};
}

const call_path_store::phase_rec* call_path_store::find_phase(std::uint64_t id) const {
  for (auto& p : phases_)
    if (p.id == id) return &p;
  return nullptr;
}

std::vector<std::string> call_path_store::frames_of(std::uint32_t n) const {
  std::vector<std::string> out(nodes_[n].depth);
  for (auto i = out.size(); n != 0; n = nodes_[n].parent) out[--i] = frames_[nodes_[n].frame];
  return out;
}

flame_result call_path_store::flamegraph(const flame_query& q) const {
  flame_result r;
  r.phase = q.phase.value_or(current_phase_);
  auto* phase = find_phase(r.phase);
  if (phase == nullptr) return r;
  r.phase_known = true;
  bool ranged = q.from || q.to;
  double lo = q.from.value_or(-INFINITY), hi = q.to.value_or(INFINITY);
  std::optional<std::uint16_t> thread;
  if (q.tid != 0) {
    auto i = thread_ids_.find(q.tid);
    if (i == thread_ids_.end()) thread = overflow_thread;  // matches nothing kept by that tid
    else thread = i->second;
  }
  std::map<std::pair<std::uint32_t, sample_state>, std::uint64_t> sums;
  auto take = [&](const counts& c) {
    for (auto& [k, n] : c) {
      if (thread && thread_of(k) != *thread) continue;
      r.total += n;
      if ((q.states >> static_cast<unsigned>(state_of(k)) & 1) == 0) continue;
      sums[{node_of(k), state_of(k)}] += n;
    }
  };
  r.from = phase->start;
  r.to = phase->end >= 0 ? phase->end : latest_;
  if (!ranged) {
    take(phase->folded);
    for (auto& s : slices_)
      if (s.phase == r.phase) take(s.c);
  } else {
    r.from = INFINITY;
    r.to = -INFINITY;
    for (auto& s : slices_) {
      double mid = (s.start + std::min(s.end, std::max(latest_, s.start))) / 2;
      if (s.phase != r.phase || mid < lo || mid >= hi) continue;
      take(s.c);
      r.from = std::min(r.from, s.start);
      r.to = std::max(r.to, s.end);
    }
    if (r.from > r.to) r.from = r.to = lo > -INFINITY ? lo : hi;
  }
  // Within max_paths: the rarest path (deepest first among equals) moves into its parent,
  // until few enough remain. A path at the root (no frame) stays.
  if (sums.size() > q.max_paths) {
    using item = std::tuple<std::uint64_t, std::uint32_t, std::uint32_t, sample_state>;
    auto order = [](const item& a, const item& b) {  // min-heap by count, then depth desc
      if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) > std::get<0>(b);
      return std::get<1>(a) < std::get<1>(b);
    };
    std::priority_queue<item, std::vector<item>, decltype(order)> heap(order);
    for (auto& [k, n] : sums) heap.emplace(n, nodes_[k.first].depth, k.first, k.second);
    while (sums.size() > q.max_paths && !heap.empty()) {
      auto [n, depth, node, state] = heap.top();
      heap.pop();
      auto i = sums.find({node, state});
      if (i == sums.end() || i->second != n || node == 0) continue;  // stale or the root
      sums.erase(i);
      ++r.truncated;
      auto parent = nodes_[node].parent;
      auto& p = sums[{parent, state}];
      p += n;
      heap.emplace(p, nodes_[parent].depth, parent, state);
    }
  }
  for (auto& [k, n] : sums) {
    r.samples += n;
    r.paths.push_back(flame_path{frames_of(k.first), k.second, n});
  }
  std::sort(r.paths.begin(), r.paths.end(), [](const flame_path& a, const flame_path& b) {
    return std::tie(b.count, a.frames, a.state) < std::tie(a.count, b.frames, b.state);
  });
  return r;
}

std::vector<timeline_thread> call_path_store::timeline(std::optional<double> from,
                                                       std::optional<double> to) const {
  double lo = from.value_or(-INFINITY), hi = to.value_or(INFINITY);
  std::vector<timeline_thread> out;
  for (auto& t : threads_) {
    timeline_thread x{t.tid, t.name, {}};
    for (auto& r : t.runs) {
      if (r.to < lo || r.from > hi) continue;
      const leaf_tally* best = &r.leaves[0];
      for (auto& l : r.leaves)
        if (l.n > best->n) best = &l;
      std::string leaf = best->n == 0 || best->frame == UINT32_MAX ? "" : frames_[best->frame];
      x.runs.push_back(timeline_run{r.from, r.to, r.state, std::move(leaf), r.samples});
    }
    if (!x.runs.empty()) out.push_back(std::move(x));
  }
  std::sort(out.begin(), out.end(),
            [](const timeline_thread& a, const timeline_thread& b) { return a.tid < b.tid; });
  return out;
}

std::vector<phase_paths> call_path_store::export_phases(state_mask states,
                                                          std::size_t max_paths) const {
  std::vector<phase_paths> out;
  for (auto& p : phases_) {
    flame_query q;
    q.states = states;
    q.phase = p.id;
    q.max_paths = max_paths;
    auto f = flamegraph(q);
    if (f.paths.empty()) continue;
    out.push_back(phase_paths{p.id, p.start, p.end, std::move(f.paths)});
  }
  return out;
}

}  // namespace perfdm::profile
