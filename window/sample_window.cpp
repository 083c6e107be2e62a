#include "window/sample_window.hpp"

#include <algorithm>
#include <map>

namespace perfdm::window {

namespace {

// The bytes one held entry costs, roughly: what the bound counts.
constexpr std::size_t tick_bytes = sizeof(std::int64_t) + 2 * sizeof(std::uint32_t);
constexpr std::size_t record_bytes = 5 * sizeof(std::uint32_t);

std::string shape_key(const native::sampled_thread& t) {
  std::string k = std::to_string(t.tid) + '\x1f' + t.name + '\x1f' +
                  std::to_string(static_cast<int>(t.activity)) + (t.in_io_call ? "i" : "-") +
                  std::to_string(static_cast<int>(t.role)) + (t.serializer ? "s" : "-") + '\x1f' +
                  t.waits_on.kind + '\x1f' + t.waits_on.object;
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

namespace {

// A wait for a lock is contention whoever else runs: another thread holds it.
bool lock_kind(const std::string& kind) {
  return kind == "Mutex" || kind == "RWLock" || kind == "Spinlock" || kind == "FileLock";
}

// A parked thread was busy in at most this share of its samples; a thread that takes turns at
// an object waits on it in at least this share.
constexpr double parked_share = 0.02;
constexpr double turns_share = 0.2;

}  // namespace

sample_window::classes sample_window::classify(double since) const {
  classes k;
  auto since_ns = static_cast<std::int64_t>(since * 1e9);
  auto first = std::lower_bound(ticks_.begin(), ticks_.end(), since_ns,
                                [](const tick& t, std::int64_t x) { return t.t_ns < x; });
  k.first_tick = static_cast<std::size_t>(first - ticks_.begin());
  for (auto t = ticks_.begin(); t != first; ++t) k.first_record += t->records;
  // Each shape once: its class before the samples are looked at together, and the object it
  // waits on (kind and object).
  enum : std::int8_t { unknown = -1, busy_run, busy_io, wait, idle, none };
  std::vector<std::int8_t> base(shapes_.size(), unknown);
  std::vector<std::int32_t> object(shapes_.size(), -1);
  std::map<std::string, std::int32_t> objects;
  auto base_of = [&](std::uint32_t shape) {
    auto& b = base[shape];
    if (b != unknown) return b;
    auto& th = shapes_[shape].thread;
    if (native::counts_as_cpu(th)) {
      b = busy_run;
    } else if (native::counts_as_io(th)) {
      b = busy_io;
    } else if (native::counts_as_sync_wait(th)) {
      b = wait;
      auto key = th.waits_on.kind + '/' + th.waits_on.object;
      object[shape] = objects.emplace(key, static_cast<std::int32_t>(objects.size())).first->second;
    } else {
      b = native::counts_as_idle(th) ? idle : none;
    }
    return b;
  };
  // Per thread: its samples, those busy, and those waiting on each object.
  struct thread_seen {
    std::uint64_t samples = 0, busy = 0;
    std::map<std::int32_t, std::uint64_t> waits;
  };
  std::map<int, thread_seen> threads;
  for (std::size_t r = k.first_record; r < records_.size(); ++r) {
    auto shape = records_[r].shape;
    auto b = base_of(shape);
    auto& seen = threads[shapes_[shape].thread.tid];
    ++seen.samples;
    if (b == busy_run || b == busy_io) ++seen.busy;
    if (b == wait) ++seen.waits[object[shape]];
  }
  auto takes_turns = [&](int tid, std::int32_t obj) {
    auto& seen = threads[tid];
    auto w = seen.waits.find(obj);
    return w != seen.waits.end() &&
           static_cast<double>(w->second) >= turns_share * static_cast<double>(seen.samples);
  };
  k.of.reserve(records_.size() - k.first_record);
  std::size_t r = k.first_record;
  std::vector<int> busy_tids;
  for (auto t = first; t != ticks_.end(); ++t) {
    busy_tids.clear();
    for (std::uint32_t i = 0; i < t->records; ++i) {
      auto b = base_of(records_[r + i].shape);
      if (b == busy_run || b == busy_io)
        busy_tids.push_back(shapes_[records_[r + i].shape].thread.tid);
    }
    std::uint32_t busy = 0, caused = 0;
    for (std::uint32_t i = 0; i < t->records; ++i, ++r) {
      auto shape = records_[r].shape;
      auto& th = shapes_[shape].thread;
      sample_class c = sample_class::none;
      switch (base_of(shape)) {
        case busy_run:
          c = sample_class::run;
          break;
        case busy_io:
          c = sample_class::io;
          break;
        case idle:
          c = sample_class::idle;
          break;
        case wait: {
          auto& seen = threads[th.tid];
          if (lock_kind(th.waits_on.kind) || th.serializer) {
            c = sample_class::contended;
          } else if (th.role == native::wait_role::none &&
                     static_cast<double>(seen.busy) <=
                         parked_share * static_cast<double>(seen.samples)) {
            c = sample_class::idle;  // parked: a pool thread with nothing to do
          } else if (busy_tids.empty() ||
                     std::any_of(busy_tids.begin(), busy_tids.end(),
                                 [&](int tid) { return takes_turns(tid, object[shape]); })) {
            c = sample_class::contended;
          } else {
            c = sample_class::caused;
          }
          break;
        }
        default:
          break;
      }
      k.of.push_back(c);
      busy += c == sample_class::run || c == sample_class::io || c == sample_class::contended;
      caused += c == sample_class::caused;
    }
    k.busy.push_back(busy);
    k.caused.push_back(caused);
  }
  return k;
}

focus_counts sample_window::count(const native::pc_focus& focus, double since) const {
  return count_classified(focus, classify(since));
}

std::vector<focus_counts> sample_window::counts(const std::vector<native::pc_focus>& foci,
                                                double since) const {
  auto k = classify(since);
  std::vector<focus_counts> out;
  out.reserve(foci.size());
  for (auto& f : foci) out.push_back(count_classified(f, k));
  return out;
}

focus_counts sample_window::count_classified(const native::pc_focus& focus,
                                             const classes& k) const {
  focus_counts c;
  if (focus.matches_nothing) return c;
  auto scope_focus = focus;  // the threads the focus's /Machine part names
  scope_focus.code.clear();
  scope_focus.sync.clear();
  scope_focus.file.clear();
  // Whether each shape matches, decided once per shape, not once per sample.
  std::vector<std::int8_t> matches(shapes_.size(), -1), in_scope(shapes_.size(), -1);
  bool at_code = !focus.code.empty();
  std::size_t r = k.first_record;
  for (std::size_t ti = k.first_tick; ti < ticks_.size(); ++ti) {
    auto& t = ticks_[ti];
    std::size_t at = ti - k.first_tick;
    std::uint32_t scope = 0, active = 0, idle = 0, runs = 0, syncs = 0, ios = 0;
    for (std::uint32_t i = 0; i < t.records; ++i, ++r) {
      auto& rec = records_[r];
      auto& th = shapes_[rec.shape].thread;
      auto cls = k.of[r - k.first_record];
      auto& sc = in_scope[rec.shape];
      if (sc < 0) sc = native::focus_matches(scope_focus, process_, th) ? 1 : 0;
      if (sc) {
        ++scope;
        active += cls == sample_class::run || cls == sample_class::io ||
                  cls == sample_class::contended || cls == sample_class::caused;
        idle += cls == sample_class::idle;
      }
      auto& m = matches[rec.shape];
      if (m < 0) m = native::focus_matches(focus, process_, th) ? 1 : 0;
      if (!m) continue;
      double covered = t.covered;
      if (cls == sample_class::run) {
        ++runs;
        c.cpu_s += covered;
      } else if (cls == sample_class::contended) {
        ++syncs;
        c.sync_s += covered;
      } else if (cls == sample_class::io) {
        ++ios;
        c.io_s += covered;
      }
      c.io_ops += at_code ? rec.stack_io_ops : rec.io_ops;
      c.io_bytes += at_code ? rec.stack_io_bytes : rec.io_bytes;
    }
    if (c.ticks == 0) c.first = static_cast<double>(t.t_ns) / 1e9;
    c.last = static_cast<double>(t.t_ns) / 1e9;
    ++c.ticks;
    c.scope = std::max(c.scope, scope);
    c.runs += runs;
    c.syncs += syncs;
    c.ios += ios;
    c.runs_most = std::max(c.runs_most, runs);
    c.syncs_most = std::max(c.syncs_most, syncs);
    c.ios_most = std::max(c.ios_most, ios);
    double a = std::max<std::uint32_t>(1, active), n = std::max<std::uint32_t>(1, k.busy[at]);
    c.runs_share += runs / a;
    c.syncs_share += syncs / a;
    c.ios_share += ios / a;
    c.runs_saving += runs / n;
    c.syncs_saving += syncs / n;
    c.ios_saving += ios / n;
    c.runs_blamed += runs * k.caused[at] / n;
    c.ios_blamed += ios * k.caused[at] / n;
    c.idle += idle;
    c.active += active;
    c.busy += k.busy[at];
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
