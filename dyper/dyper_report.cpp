#include "dyper/dyper_report.hpp"

#include <algorithm>
#include <cmath>

namespace perfdm {

namespace {

// DyPer's report carries finite numbers only: what cannot be computed reads 0.
double finite(double x) {
  return std::isfinite(x) ? x : 0.0;
}

// An ITEM name of the profile is module@function or module@function@line.
std::size_t at_signs(const std::string& name) {
  return static_cast<std::size_t>(std::count(name.begin(), name.end(), '@'));
}

struct state_counts {
  std::uint64_t samples = 0, blocks = 0, runs = 0, waits = 0, ios = 0, sleeps = 0;
};

}  // namespace

void dyper_report_history::add_usage(const std::string& name, double used, double committed) {
  auto [i, added] = usages_.try_emplace(name);
  auto& u = i->second;
  if (added) {
    usage_order_.push_back(name);
    u.init = committed;
  }
  ++u.count;
  u.used += used;
  u.used2 += used * used;
  u.comm += committed;
  u.comm2 += committed * committed;
  u.last_used = used;
  u.last_comm = committed;
}

// COUNTERS: the CPU profile, functions as DyPer's methods and modules as its classes.
agent_report_counters dyper_report_history::counters(const dyper_report_readings& r) const {
  const cpu_profile_report empty;
  const auto& p = r.profile ? *r.profile : empty;
  agent_report_counters out;
  out.pid = r.pid;
  out.montime_ms = std::llround(p.montime * 1e3);
  out.samples = p.samples;
  out.active = p.active;
  out.last_ms = r.now_ms;
  out.stacks = p.stacks;
  out.detailed = p.detailed;
  auto& totals = out.totals;
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> modules;  // total, base
  for (auto& i : p.items) {
    auto ats = at_signs(i.name);
    if (ats == 1) {
      totals.method_total += i.total;
      totals.method_base += i.base;
      auto& m = modules[i.name.substr(0, i.name.find('@'))];
      m.first += i.total;
      m.second += i.base;
    } else if (ats == 2) {
      totals.line_total += i.total;
      totals.line_base += i.base;
    }
    if (i.total >= r.min_counter) out.items.push_back({i.name, i.total, i.base, i.type});
  }
  for (auto& [name, tb] : modules) {
    if (tb.first >= r.min_counter) out.items.push_back({name, tb.first, tb.second, std::nullopt});
    totals.class_total += tb.first;
    totals.class_base += tb.second;
  }
  return out;
}

// THREADS: each thread's states over the stack samples (DyPer's per-thread counts), with
// what /proc says of it now. Threads that ended follow, STATE='ended'.
agent_report_threads dyper_report_history::threads(const dyper_report_readings& r) {
  std::map<std::int32_t, state_counts> counted;
  std::map<std::int32_t, std::string> counted_names;
  if (r.profile)
    for (auto& t : r.profile->threads) {
      counted[t.tid] = {t.samples, t.blocks, t.runs, t.waits, t.ios, t.sleeps};
      counted_names[t.tid] = t.name;
    }
  std::set<std::int32_t> live;
  for (auto& t : r.threads) live.insert(t.tid);
  for (auto& [tid, t] : seen_)
    if (!live.count(tid)) ended_ms_.try_emplace(tid, r.now_ms);
  for (auto& [tid, name] : counted_names)
    if (!live.count(tid) && !seen_.count(tid)) {
      dyper_thread_reading gone;
      gone.tid = tid;
      gone.name = name;
      gone.start_ms = start_ms_;
      seen_[tid] = gone;
      ended_ms_.try_emplace(tid, r.now_ms);
    }
  agent_report_threads out;
  out.count = r.threads.size();
  auto add = [&](const dyper_thread_reading& t, bool ended) {
    auto c = counted.count(t.tid) ? counted[t.tid] : state_counts{};
    out.classes.push_back({t.tid, t.name.empty() ? "*UNKNOWN*" : t.name});
    report_thread x;
    x.id = t.tid;
    x.name = t.name;
    x.state = ended ? "ended" : t.state;
    if (!ended)
      x.cpu = report_thread_cpu{finite(t.user_ms / 1e3), finite(t.system_ms / 1e3), t.voluntary,
                                t.involuntary};
    x.thread = t.name;
    x.start_ms = t.start_ms;
    x.last_ms = ended ? ended_ms_[t.tid] : r.now_ms;
    if (ended) x.end_ms = x.last_ms;
    // TOTBLKS: a native process counts no lock acquisitions that blocked; TOTWAITS: the
    // times it gave up the processor of its own accord (voluntary context switches).
    x.states = {c.samples, 0, t.voluntary, c.samples, c.blocks, c.runs, c.waits, c.ios, c.sleeps};
    out.threads.push_back(std::move(x));
  };
  for (auto& t : r.threads) {
    seen_[t.tid] = t;
    ended_ms_.erase(t.tid);
    add(t, false);
  }
  for (auto& [tid, ms] : ended_ms_) add(seen_[tid], true);
  return out;
}

// TIMING: each thread's CPU time; the live-thread count summed over the reports.
agent_report_timing dyper_report_history::timing(const dyper_report_readings& r) {
  double live = static_cast<double>(r.threads.size());
  if (r.have_proc) {
    live_sum_ += live;
    live_sum2_ += live * live;
    ++live_count_;
  }
  agent_report_timing out;
  out.clock_ms = finite(static_cast<double>(r.now_ms - start_ms_));
  out.processors = r.processors;
  out.live_sum = finite(live_sum_);
  out.live_sum2 = finite(live_sum2_);
  out.live_count = live_count_;
  out.total = seen_.size();
  for (auto& [tid, t] : seen_)
    if (!first_seen_.count(tid)) ++out.created;
  out.died = ended_ms_.size();
  out.active = r.threads.size();
  for (auto& t : r.threads)
    out.threads.push_back({t.tid, t.name, t.start_ms, r.now_ms,
                           finite(static_cast<double>(r.now_ms - t.start_ms)),
                           finite(t.user_ms + t.system_ms), finite(t.user_ms)});
  return out;
}

// MEMORY: the native heap (anonymous memory: brk heap and malloc's mappings), the rest of
// the mappings (code, files, shared memory) and the main stack, averaged over the reports.
// A native process has no collector: no GC elements.
agent_report_memory dyper_report_history::memory(const dyper_report_readings& r) {
  auto& m = r.memory;
  if (r.have_proc) {
    auto d = [](std::uint64_t x) { return static_cast<double>(x); };
    add_usage("HEAP", d(m.rss_anon), d(m.vm_data));
    add_usage("NONHEAP", d(m.rss_file + m.rss_shmem),
              d(m.vm_size > m.vm_data ? m.vm_size - m.vm_data : 0));
    add_usage("POOL_STACK", d(m.vm_stack), d(m.vm_stack));
  }
  agent_report_memory out;
  out.start_ms = start_ms_;
  out.montime_ms = r.profile ? std::llround(r.profile->montime * 1e3) : r.now_ms - start_ms_;
  out.last_ms = r.now_ms;
  for (auto& name : usage_order_) {
    auto& u = usages_[name];
    auto n = static_cast<double>(u.count);
    out.usages.push_back({name, finite(u.init), 0, finite(u.used / n), finite(u.used2 / n),
                          finite(u.comm / n), finite(u.comm2 / n), u.count, finite(u.last_used),
                          finite(u.last_comm)});
  }
  return out;
}

agent_report_monitor dyper_report_history::monitor(const dyper_report_readings& r) {
  if (first_) {  // the threads there before the first report were not CREATED since
    for (auto& t : r.threads) first_seen_.insert(t.tid);
    if (r.profile)
      for (auto& t : r.profile->threads) first_seen_.insert(t.tid);
    first_ = false;
  }
  const cpu_profile_report empty;
  const auto& p = r.profile ? *r.profile : empty;
  agent_report_monitor out;
  // The sampler's own figures: what its samples cost the program (ms), and how far apart
  // they are. DyPer's controller re-tunes CHECKTIME and REPORTTIME from these.
  double total_ms = p.cost * 1e3;
  double per_check_ms = p.samples ? total_ms / static_cast<double>(p.samples) : 0.0;
  out.sampling = {r.now_ms,
                  r.nano,
                  std::llround(total_ms),
                  finite(per_check_ms),
                  finite(per_check_ms),
                  finite(total_ms),
                  finite(r.report_cost_ms),
                  finite(p.checktime * 1e3)};
  out.counters = counters(r);
  out.threads = threads(r);
  out.timing = timing(r);
  out.memory = memory(r);
  std::uint64_t runs = 0, ios = 0, waits = 0;
  for (auto& t : p.threads) {
    runs += t.runs;
    ios += t.ios;
    waits += t.waits + t.sleeps + t.blocks;
  }
  std::int64_t montime = std::llround(p.montime * 1e3);
  out.iocounters = {r.io_read, r.io_write, r.storage_read, r.storage_write,
                    montime,   p.samples,  r.now_ms,       ios};
  // REACTIONS: the totals of the thread states; perfdm's profile keeps no call tree, so the
  // TRIE is empty.
  out.reactions = {montime, p.samples, p.stacks, r.now_ms, runs, ios, waits};
  return out;
}

}  // namespace perfdm
