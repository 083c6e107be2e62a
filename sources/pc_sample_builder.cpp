#include "sources/pc_sample_builder.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "native/data_io.hpp"
#include "native/pc_resources.hpp"

namespace perfdm {

pc_sample_builder::pc_sample_builder(native::sampled_process process)
    : process_(std::move(process)) {}

std::vector<std::string> pc_sample_builder::initial_resources() const {
  return {native::code_root, native::sync_object_root, native::file_root,
          native::process_resource(process_.host, process_.name, process_.pid)};
}

void pc_sample_builder::set_collecting(const std::vector<collecting_mi>& mis) {
  // A route that goes on keeps what it gathered, and its focus is not read again: an update
  // lists every MI, and a search over many hosts sends one per enable.
  std::map<std::uint64_t, route*> old;
  for (auto& r : routes_) old.emplace(r.mi.id, &r);
  std::vector<route> routes;
  routes.reserve(mis.size());
  std::set<std::uint64_t> elsewhere;
  for (auto& m : mis) {
    if (elsewhere_.count(m.mi.id)) {
      elsewhere.insert(m.mi.id);
      continue;
    }
    if (auto o = old.find(m.mi.id); o != old.end()) {
      routes.push_back(std::move(*o->second));
      old.erase(o);
      continue;
    }
    auto metric = native::find_pc_metric(m.metric);
    if (!metric) continue;
    auto focus = native::parse_pc_focus(m.focus);
    if (focus.matches_nothing) continue;
    if (std::any_of(focus.machine.begin(), focus.machine.end(),
                    [&](const auto& part) { return part.host != process_.host; })) {
      elsewhere.insert(m.mi.id);
      continue;
    }
    routes.push_back(route{m.mi, *metric, std::move(focus)});
  }
  bool had_io = needs_io();
  routes_ = std::move(routes);
  elsewhere_ = std::move(elsewhere);
  if (!had_io) {  // readings from before are no baseline
    previous_io_.clear();
    uncharged_io_.clear();
  }
}

bool pc_sample_builder::needs_io() const {
  return io_always_ || std::any_of(routes_.begin(), routes_.end(), [](const route& r) {
    return r.metric == native::pc_metric::io_ops || r.metric == native::pc_metric::io_bytes;
  });
}

void pc_sample_builder::apply_io(std::vector<native::sampled_thread>& threads,
                                 const std::map<int, native::thread_io>& io) {
  auto delta = [](std::uint64_t now, std::uint64_t before) {
    return now >= before ? static_cast<double>(now - before) : 0.0;
  };
  std::map<int, native::thread_io> seen;
  std::map<int, io_counts> uncharged;
  for (auto& t : threads) {
    t.io_ops = t.io_bytes = t.stack_io_ops = t.stack_io_bytes = 0;
    auto now = io.find(t.tid);
    if (now == io.end()) continue;
    if (auto before = previous_io_.find(t.tid); before != previous_io_.end()) {
      t.io_ops = delta(now->second.syscr, before->second.syscr) +
                 delta(now->second.syscw, before->second.syscw);
      t.io_bytes = delta(now->second.rchar, before->second.rchar) +
                   delta(now->second.wchar, before->second.wchar);
    }
    seen[t.tid] = now->second;
    if (t.pseudo_io) {  // no data I/O: its counts are nobody's
      t.io_ops = t.io_bytes = 0;
      uncharged[t.tid] = uncharged_io_[t.tid];
      continue;
    }
    // Only a stack seen in I/O did the I/O: the counts wait for the thread's next one.
    auto carried = uncharged_io_[t.tid];
    carried.ops += t.io_ops;
    carried.bytes += t.io_bytes;
    if (t.in_io_call && !t.sync_call) {
      t.stack_io_ops = carried.ops;
      t.stack_io_bytes = carried.bytes;
    } else {
      uncharged[t.tid] = carried;
    }
  }
  previous_io_ = std::move(seen);
  uncharged_io_ = std::move(uncharged);
}

void pc_sample_builder::add(const std::vector<native::sampled_thread>& threads, double covered,
                            time_ns t) {
  time_ns start = t - to_ns(covered);
  for (auto& r : routes_) {
    double amount = 0;
    for (auto& th : threads)
      if (native::focus_matches(r.focus, process_, th))
        amount += native::thread_amount(r.metric, th, covered, r.focus.at_call());
    if (!r.open) {
      r.open = true;
      r.start = start;
      r.value = r.weight = 0;
    }
    r.end = t;
    if (r.metric == native::pc_metric::active_threads) {
      r.value += amount * covered;
      r.weight += covered;
      r.last_level = amount;
    } else {
      r.value += amount;
    }
  }
}

void pc_sample_builder::flush(time_ns interval, std::vector<sample>& out, bool force) {
  for (auto& r : routes_) {
    if (!r.open || (!force && r.end - r.start < interval)) continue;
    double v = r.value;
    if (r.metric == native::pc_metric::active_threads)
      v = r.weight > 0 ? r.value / r.weight : r.last_level;
    out.push_back(sample{r.mi, to_seconds(r.start), to_seconds(r.end), v});
    r.open = false;
  }
}

std::vector<std::string> pc_sample_builder::on_stack_sample(const native::stack_snapshot& snapshot,
                                                            const native::io_predicate& is_io,
                                                            double covered, time_ns t,
                                                            time_ns interval,
                                                            std::vector<sample>& out,
                                                            std::vector<native::sampled_thread>* described) {
  std::vector<native::sampled_thread> threads;
  std::map<int, native::thread_io> io;
  bool read_io = needs_io();
  for (auto& th : snapshot.threads) {
    auto activity = native::classify_thread(th.state, th.frames, is_io);
    auto syscall = native::parse_thread_syscall(th.syscall);
    threads.push_back(native::describe_thread(th, activity, syscall, &sync_names_));
    auto& t = threads.back();
    t.in_io_call = native::seen_in_io_call(activity, th.frames, is_io);
    // The file behind the I/O call it sleeps in (/File).
    if (t.in_io_call)
      if (auto fd = native::io_call_descriptor(syscall))
        t.file = native::file_resource(native::read_descriptor_target(snapshot.pid, *fd));
    // Reading /proc or hwloc's topology is not the program waiting for data: on the CPU it
    // runs (the kernel writes the text), asleep it is neither.
    if (t.in_io_call && (native::pseudo_file(t.file) || native::startup_discovery(th.frames))) {
      t.pseudo_io = true;
      t.in_io_call = false;
      if (t.activity == native::thread_activity::ios)
        t.activity =
            th.state == 'R' ? native::thread_activity::runs : native::thread_activity::other;
    }
    if (read_io)
      if (auto counters = native::read_thread_io(snapshot.pid, th.tid)) io[th.tid] = *counters;
  }
  if (read_io) apply_io(threads, io);
  if (collecting()) {
    add(threads, covered, t);
    flush(interval, out);
  }
  auto fresh = take_new_resources(threads);
  if (described) *described = std::move(threads);
  return fresh;
}

std::vector<std::string> pc_sample_builder::take_new_resources(
    const std::vector<native::sampled_thread>& threads) {
  std::vector<std::string> out;
  for (auto& t : threads)
    for (auto& name : native::thread_resources(process_, t))
      if (known_resources_.insert(name).second) out.push_back(name);
  return out;
}

}  // namespace perfdm
