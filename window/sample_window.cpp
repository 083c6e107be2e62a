#include "window/sample_window.hpp"

#include <algorithm>

namespace perfdm::window {

namespace {

// The bytes one held entry costs, roughly: what the bound counts.
constexpr std::size_t tick_bytes = sizeof(std::int64_t) + 2 * sizeof(std::uint32_t);
constexpr std::size_t record_bytes = 5 * sizeof(std::uint32_t);

std::string shape_key(const native::sampled_thread& t) {
  std::string k = std::to_string(t.tid) + '\x1f' + t.name + '\x1f' +
                  std::to_string(static_cast<int>(t.activity)) + (t.in_io_call ? "i" : "-") +
                  '\x1f' + t.waits_on.kind + '\x1f' + t.waits_on.object;
  for (auto& [m, f] : t.functions) k += '\x1e' + m + '\x1f' + f;
  return k;
}

}  // namespace

sample_window::sample_window(native::sampled_process process, window_limits limits)
    : process_(std::move(process)), limits_(limits) {}

std::uint32_t sample_window::intern(const native::sampled_thread& t) {
  auto key = shape_key(t);
  if (auto i = shape_ids_.find(key); i != shape_ids_.end()) {
    ++shapes_[i->second].uses;
    return i->second;
  }
  std::uint32_t id;
  if (!free_shapes_.empty()) {
    id = free_shapes_.back();
    free_shapes_.pop_back();
  } else {
    id = static_cast<std::uint32_t>(shapes_.size());
    shapes_.emplace_back();
  }
  auto& s = shapes_[id];
  s.thread = t;
  s.thread.io_ops = s.thread.io_bytes = s.thread.stack_io_ops = s.thread.stack_io_bytes = 0;
  // The key and the thread's strings (held twice, roughly) and the map's node.
  s.bytes = 2 * key.size() + sizeof(shape) + 64;
  s.key = key;
  s.uses = 1;
  shape_ids_.emplace(std::move(key), id);
  bytes_ += s.bytes;
  return id;
}

void sample_window::add(std::int64_t t_ns, double covered,
                        const std::vector<native::sampled_thread>& threads) {
  if (!ticks_.empty() && t_ns < ticks_.back().t_ns) return;  // out of order: not ours to fix
  for (auto& th : threads)
    records_.push_back({intern(th), static_cast<float>(th.io_ops), static_cast<float>(th.io_bytes),
                        static_cast<float>(th.stack_io_ops), static_cast<float>(th.stack_io_bytes)});
  ticks_.push_back({t_ns, static_cast<float>(covered), static_cast<std::uint32_t>(threads.size())});
  bytes_ += tick_bytes + threads.size() * record_bytes;
  enforce(t_ns);
}

void sample_window::evict_front() {
  auto& t = ticks_.front();
  for (std::uint32_t i = 0; i < t.records; ++i) {
    auto& s = shapes_[records_.front().shape];
    if (--s.uses == 0) {  // no sample holds it any more
      bytes_ -= s.bytes;
      evicted_.evicted_bytes += s.bytes;
      shape_ids_.erase(s.key);
      free_shapes_.push_back(records_.front().shape);
      s = shape{};
    }
    records_.pop_front();
  }
  std::size_t b = tick_bytes + t.records * record_bytes;
  bytes_ -= b;
  evicted_.evicted_bytes += b;
  evicted_.evicted_thread_samples += t.records;
  ++evicted_.evicted_ticks;
  ticks_.pop_front();
}

void sample_window::enforce(std::int64_t now_ns) {
  auto oldest_kept = now_ns - static_cast<std::int64_t>(limits_.span_s * 1e9);
  // The newest stack sample always stays: a window of nothing decides nothing.
  while (ticks_.size() > 1 && (ticks_.front().t_ns < oldest_kept || bytes_ > limits_.max_bytes))
    evict_front();
}

focus_counts sample_window::count(const native::pc_focus& focus, double since) const {
  focus_counts c;
  if (focus.matches_nothing) return c;
  auto scope_focus = focus;  // the threads the focus's /Machine part names
  scope_focus.code.clear();
  scope_focus.sync.clear();
  scope_focus.file.clear();
  // Whether each shape matches, decided once per shape, not once per sample.
  std::vector<std::int8_t> matches(shapes_.size(), -1), in_scope(shapes_.size(), -1);
  auto since_ns = static_cast<std::int64_t>(since * 1e9);
  bool at_code = !focus.code.empty();
  auto first = std::lower_bound(ticks_.begin(), ticks_.end(), since_ns,
                                [](const tick& t, std::int64_t x) { return t.t_ns < x; });
  std::size_t r = 0;
  for (auto t = ticks_.begin(); t != first; ++t) r += t->records;
  for (auto t = first; t != ticks_.end(); ++t) {
    std::uint32_t scope = 0, runs = 0, syncs = 0, ios = 0;
    for (std::uint32_t i = 0; i < t->records; ++i, ++r) {
      auto& rec = records_[r];
      auto& th = shapes_[rec.shape].thread;
      auto& sc = in_scope[rec.shape];
      if (sc < 0) sc = native::focus_matches(scope_focus, process_, th) ? 1 : 0;
      scope += static_cast<std::uint32_t>(sc);
      auto& m = matches[rec.shape];
      if (m < 0) m = native::focus_matches(focus, process_, th) ? 1 : 0;
      if (!m) continue;
      double covered = t->covered;
      switch (th.activity) {
        case native::thread_activity::runs:
          ++runs;
          c.cpu_s += covered;
          break;
        case native::thread_activity::blocks:
        case native::thread_activity::waits:
          if (native::counts_as_sync_wait(th)) {
            ++syncs;
            c.sync_s += covered;
          }
          break;
        case native::thread_activity::ios:
          ++ios;
          c.io_s += covered;
          break;
        default:
          break;
      }
      c.io_ops += at_code ? rec.stack_io_ops : rec.io_ops;
      c.io_bytes += at_code ? rec.stack_io_bytes : rec.io_bytes;
    }
    if (c.ticks == 0) c.first = static_cast<double>(t->t_ns) / 1e9;
    c.last = static_cast<double>(t->t_ns) / 1e9;
    ++c.ticks;
    c.scope = std::max(c.scope, scope);
    c.runs += runs;
    c.syncs += syncs;
    c.ios += ios;
    c.runs_most = std::max(c.runs_most, runs);
    c.syncs_most = std::max(c.syncs_most, syncs);
    c.ios_most = std::max(c.ios_most, ios);
  }
  // A process none of whose threads the focus's /Machine part names is outside the focus: it
  // gives no samples, so a rate per process is not divided by it (a thread of one process
  // busy 90 % is 90 %, whatever else is watched).
  if (c.scope == 0) return focus_counts{};
  return c;
}

window_stats sample_window::stats() const {
  auto s = evicted_;
  s.ticks = ticks_.size();
  s.thread_samples = records_.size();
  s.shapes = shape_ids_.size();
  s.bytes = bytes_;
  s.oldest = ticks_.empty() ? 0 : static_cast<double>(ticks_.front().t_ns) / 1e9;
  return s;
}

}  // namespace perfdm::window
