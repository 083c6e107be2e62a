#include "dyper/dyper_report.hpp"

#include <algorithm>
#include <cmath>

#include "messages/xml_codec.hpp"

namespace perfdm {

namespace {

std::string attr(const char* key, const std::string& value) {
  return std::string(" ") + key + "='" + xml_escaped(value) + "'";
}
std::string attr(const char* key, std::int64_t value) {
  return attr(key, std::to_string(value));
}
std::string attr(const char* key, std::uint64_t value) {
  return attr(key, std::to_string(value));
}
std::string attr(const char* key, double value) {
  return attr(key, format_number(std::isfinite(value) ? value : 0.0));
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
std::string dyper_report_history::counters(const dyper_report_readings& r) const {
  const cpu_profile_report empty;
  const auto& p = r.profile ? *r.profile : empty;
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> modules;  // total, base
  std::uint64_t method_total = 0, method_base = 0, line_total = 0, line_base = 0;
  std::string items;
  for (auto& i : p.items) {
    auto ats = at_signs(i.name);
    if (ats == 1) {
      method_total += i.total;
      method_base += i.base;
      auto& m = modules[i.name.substr(0, i.name.find('@'))];
      m.first += i.total;
      m.second += i.base;
    } else if (ats == 2) {
      line_total += i.total;
      line_base += i.base;
    }
    if (i.total < r.min_counter) continue;
    items += "<ITEM" + attr("NAME", i.name) + attr("TOTAL", i.total) + attr("BASE", i.base) +
             attr("TYPE", i.type) + "/>";
  }
  for (auto& [name, tb] : modules)
    if (tb.first >= r.min_counter)
      items +=
          "<ITEM" + attr("NAME", name) + attr("TOTAL", tb.first) + attr("BASE", tb.second) + "/>";
  std::uint64_t class_total = 0, class_base = 0;
  for (auto& [name, tb] : modules) {
    class_total += tb.first;
    class_base += tb.second;
  }
  return "<COUNTERS" + attr("PID", static_cast<std::int64_t>(r.pid)) +
         attr("MONTIME", static_cast<std::int64_t>(std::llround(p.montime * 1e3))) +
         attr("SAMPLES", p.samples) + attr("ACTIVE", p.active) + attr("LAST", r.now_ms) +
         attr("STACKS", p.stacks) + attr("DETAILED", p.detailed) + "><TOTALS" +
         attr("CLASS", class_total) + attr("METHOD", method_total) + attr("LINE", line_total) +
         attr("CBASE", class_base) + attr("MBASE", method_base) + attr("LBASE", line_base) + "/>" +
         items + "</COUNTERS>";
}

// THREADS: each thread's states over the stack samples (DyPer's per-thread counts), with
// what /proc says of it now. Threads that ended follow, STATE='ended'.
std::string dyper_report_history::threads(const dyper_report_readings& r) {
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
  std::string data, out;
  auto element = [&](const dyper_thread_reading& t, bool ended) {
    auto c = counted.count(t.tid) ? counted[t.tid] : state_counts{};
    data += "<THREADDATA" + attr("TID", static_cast<std::int64_t>(t.tid)) +
            attr("CLASS", t.name.empty() ? "*UNKNOWN*" : t.name) + "/>";
    out += "<THREAD" + attr("ID", static_cast<std::int64_t>(t.tid)) + attr("NAME", t.name) +
           attr("STATE", ended ? "ended" : t.state);
    if (!ended)
      out += attr("USER", t.user_ms / 1e3) + attr("SYSTEM", t.system_ms / 1e3) +
             attr("SWITCHES", t.voluntary) + attr("PREEMPTIONS", t.involuntary);
    auto last = ended ? ended_ms_[t.tid] : r.now_ms;
    out += attr("THREAD", t.name) + attr("START", t.start_ms) + attr("LAST", last);
    if (ended) out += attr("END", last) + attr("TERMINATED", "true");
    // TOTBLKS: a native process counts no lock acquisitions that blocked; TOTWAITS: the
    // times it gave up the processor of its own accord (voluntary context switches).
    out += attr("TOTAL", c.samples) + attr("TOTBLKS", std::uint64_t{0}) +
           attr("TOTWAITS", t.voluntary) + attr("SAMPLES", c.samples) + attr("BLOCKS", c.blocks) +
           attr("RUNS", c.runs) + attr("WAITS", c.waits) + attr("IOS", c.ios) +
           attr("SLEEPS", c.sleeps) + "/>";
  };
  for (auto& t : r.threads) {
    seen_[t.tid] = t;
    ended_ms_.erase(t.tid);
    element(t, false);
  }
  for (auto& [tid, ms] : ended_ms_) element(seen_[tid], true);
  return "<THREADS" + attr("COUNT", static_cast<std::uint64_t>(r.threads.size())) + ">" + data +
         out + "</THREADS>";
}

// TIMING: each thread's CPU time; the live-thread count averaged over the reports.
std::string dyper_report_history::timing(const dyper_report_readings& r) {
  double live = static_cast<double>(r.threads.size());
  if (r.have_proc) {
    live_sum_ += live;
    live_sum2_ += live * live;
    ++live_count_;
  }
  std::uint64_t created = 0;
  for (auto& [tid, t] : seen_)
    if (!first_seen_.count(tid)) ++created;
  auto clock = static_cast<double>(r.now_ms - start_ms_);
  std::string out =
      "<TIMING" + attr("CLOCK", clock) + attr("PROCS", static_cast<std::int64_t>(r.processors)) +
      attr("NLIVE", live_sum_) + attr("NLIVE2", live_sum2_) + attr("NCOUNT", live_count_) +
      attr("TOTAL", static_cast<std::uint64_t>(seen_.size())) + attr("CREATED", created) +
      attr("DIED", static_cast<std::uint64_t>(ended_ms_.size())) +
      attr("ACTIVE", static_cast<std::uint64_t>(r.threads.size())) + ">";
  for (auto& t : r.threads)
    out += "<THREAD" + attr("ID", static_cast<std::int64_t>(t.tid)) + attr("NAME", t.name) +
           attr("START", t.start_ms) + attr("LAST", r.now_ms) +
           attr("CLOCK", static_cast<double>(r.now_ms - t.start_ms)) +
           attr("CPU", t.user_ms + t.system_ms) + attr("USER", t.user_ms) + "/>";
  return out + "</TIMING>";
}

// MEMORY: the native heap (anonymous memory: brk heap and malloc's mappings), the rest of
// the mappings (code, files, shared memory) and the main stack, averaged over the reports.
// A native process has no collector: no GC elements.
std::string dyper_report_history::memory(const dyper_report_readings& r) {
  auto& m = r.memory;
  if (r.have_proc) {
    auto d = [](std::uint64_t x) { return static_cast<double>(x); };
    add_usage("HEAP", d(m.rss_anon), d(m.vm_data));
    add_usage("NONHEAP", d(m.rss_file + m.rss_shmem),
              d(m.vm_size > m.vm_data ? m.vm_size - m.vm_data : 0));
    add_usage("POOL_STACK", d(m.vm_stack), d(m.vm_stack));
  }
  auto montime = r.profile ? static_cast<std::int64_t>(std::llround(r.profile->montime * 1e3))
                           : r.now_ms - start_ms_;
  std::string out = "<MEMORY" + attr("START", start_ms_) + attr("MONTIME", montime) +
                    attr("LAST", r.now_ms) + ">";
  for (auto& name : usage_order_) {
    auto& u = usages_[name];
    auto n = static_cast<double>(u.count);
    out += "<USAGE" + attr("NAME", name) + attr("INIT", u.init) + attr("MAX", std::int64_t{0}) +
           attr("USED", u.used / n) + attr("USED2", u.used2 / n) + attr("COMM", u.comm / n) +
           attr("COMM2", u.comm2 / n) + attr("MODS", u.count) + attr("LUSED", u.last_used) +
           attr("LCOMM", u.last_comm) + "/>";
  }
  return out + "</MEMORY>";
}

std::string dyper_report_history::monitor(const dyper_report_readings& r,
                                          const std::string& extra_attributes,
                                          const std::string& extra) {
  if (first_) {  // the threads there before the first report were not CREATED since
    for (auto& t : r.threads) first_seen_.insert(t.tid);
    if (r.profile)
      for (auto& t : r.profile->threads) first_seen_.insert(t.tid);
    first_ = false;
  }
  const cpu_profile_report empty;
  const auto& p = r.profile ? *r.profile : empty;
  // The sampler's own figures: what its samples cost the program (ms), and how far apart
  // they are. DyPer's controller re-tunes CHECKTIME and REPORTTIME from these.
  double total_ms = p.cost * 1e3;
  double per_check_ms = p.samples ? total_ms / static_cast<double>(p.samples) : 0.0;
  std::string out = "<MONITOR" + attr("TIME", r.now_ms) + attr("NANO", r.nano) +
                    attr("OVERHEAD", static_cast<std::int64_t>(std::llround(total_ms))) +
                    attr("LASTCHECK", per_check_ms) + attr("CHECKTIME", per_check_ms) +
                    attr("CHECKTOTAL", total_ms) + attr("REPORTTIME", r.report_cost_ms) +
                    attr("DELAYAVG", p.checktime * 1e3) + extra_attributes + ">";
  out += counters(r);
  out += threads(r);
  out += timing(r);
  out += memory(r);
  std::uint64_t runs = 0, ios = 0, waits = 0;
  for (auto& t : p.threads) {
    runs += t.runs;
    ios += t.ios;
    waits += t.waits + t.sleeps + t.blocks;
  }
  auto montime = static_cast<std::int64_t>(std::llround(p.montime * 1e3));
  out += "<IOCOUNTERS" + attr("READ", r.io_read) + attr("WRITE", r.io_write) +
         attr("STORAGEREAD", r.storage_read) + attr("STORAGEWRITE", r.storage_write) +
         attr("MONTIME", montime) + attr("SAMPLES", p.samples) + attr("LAST", r.now_ms) +
         attr("TOTAL", ios) + "/>";
  // REACTIONS: the totals of the thread states; perfdm's profile keeps no call tree, so the
  // TRIE is empty.
  out += "<REACTIONS" + attr("MONTIME", montime) + attr("SAMPLES", p.samples) +
         attr("TSAMPLES", p.stacks) + attr("LAST", r.now_ms) + attr("TOTRUN", runs) +
         attr("TOTIO", ios) + attr("TOTWAIT", waits) + "><TRIE/></REACTIONS>";
  return out + extra + "</MONITOR>";
}

}  // namespace perfdm
