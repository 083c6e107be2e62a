#include "trace/log_trace.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "log/log_print.hpp"
#include "log/output_file.hpp"

namespace perfdm {

namespace {

// The engine's own tracks: process 1 (no observed program has pid 1 while perfdm runs).
constexpr long long engine_pid = 1;
constexpr long long phases_tid = 1;

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::vector<std::string> words(const std::string& s, std::size_t at_most) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (begin <= s.size() && out.size() + 1 < at_most) {
    auto end = s.find(' ', begin);
    if (end == std::string::npos) break;
    out.push_back(s.substr(begin, end - begin));
    begin = end + 1;
  }
  out.push_back(s.substr(std::min(begin, s.size())));
  return out;
}

double get(const std::map<std::string, double>& r, const std::string& key, double fallback) {
  auto it = r.find(key);
  return it == r.end() ? fallback : it->second;
}

}  // namespace

long long process_of_resource(std::string_view resource) {
  if (!starts_with(resource, "/Process/")) return 0;
  auto rest = resource.substr(9);
  auto slash = rest.find('/');
  auto process = rest.substr(0, slash);
  auto open = process.rfind('{');
  if (open == std::string_view::npos || process.back() != '}') return 0;
  long long pid = 0;
  auto digits = process.substr(open + 1, process.size() - open - 2);
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
  return ec == std::errc() && p == digits.data() + digits.size() ? pid : 0;
}

bool parse_log_row(std::string_view line, std::string_view module, log_trace_row& row) {
  if (line.empty() || line[0] == '#') return false;
  std::string_view cols[5];
  for (int i = 0; i < 4; ++i) {
    auto tab = line.find('\t');
    if (tab == std::string_view::npos) return false;
    cols[i] = line.substr(0, tab);
    line.remove_prefix(tab + 1);
  }
  cols[4] = line;
  if (cols[0] != module) return false;
  std::string value(cols[3]);
  char* end = nullptr;
  row.value = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0') return false;
  row.counter = std::string(cols[2]);
  row.record = std::string(cols[4]);
  return true;
}

void log_trace_builder::add(const log_trace_row& row) {
  records_[row.record][row.counter] = row.value;
}

std::size_t log_trace_builder::write(trace_event_writer& out) const {
  double now = 0;
  if (auto e = records_.find("engine"); e != records_.end()) now = get(e->second, "now", 0);
  struct phase {
    double start, end;
    std::string name;
  };
  std::vector<phase> phases;
  std::map<std::string, std::pair<std::string, std::string>> mis;  // id → metric, focus
  std::set<long long> processes;
  for (auto& [name, counters] : records_) {
    if (starts_with(name, "phase ")) {
      auto w = words(name, 3);
      double start = get(counters, "start", 0), end = get(counters, "end", -1);
      phases.push_back({start, end < 0 ? std::max(now, start) : end, w.size() > 2 ? w[2] : name});
    } else if (starts_with(name, "mi ")) {
      auto w = words(name, 4);
      if (w.size() == 4) mis[w[1]] = {w[2], w[3]};
    }
  }
  out.process_name(engine_pid, "perfdm engine");
  out.thread_name(engine_pid, phases_tid, "phases");
  // The session holds its phases: slices nest by time on one thread.
  double end_of_all = now;
  for (auto& p : phases) end_of_all = std::max(end_of_all, p.end);
  out.slice(engine_pid, phases_tid, "session", 0, end_of_all);
  std::sort(phases.begin(), phases.end(), [](auto& a, auto& b) { return a.start < b.start; });
  for (auto& p : phases) out.slice(engine_pid, phases_tid, p.name, p.start, p.end - p.start);
  // Observed processes and their threads (resources /Process/<name>{<pid>}/<tid>).
  for (auto& [name, counters] : records_) {
    if (!starts_with(name, "resource /Process/")) continue;
    auto resource = std::string_view(name).substr(9);
    auto pid = process_of_resource(resource);
    if (pid <= 0) continue;
    auto rest = resource.substr(9);
    auto slash = rest.find('/');
    if (slash == std::string_view::npos) {
      if (processes.insert(pid).second) out.process_name(pid, rest);
      continue;
    }
    auto thread = rest.substr(slash + 1);
    long long tid = 0;
    auto [p, ec] = std::from_chars(thread.data(), thread.data() + thread.size(), tid);
    if (ec == std::errc() && p == thread.data() + thread.size() && tid > 0)
      out.thread_name(pid, tid, "thread " + std::string(thread));
  }
  // One counter track per histogram, in the process of its focus (the engine's otherwise).
  std::size_t buckets = 0;
  for (auto& [name, counters] : records_) {
    if (!starts_with(name, "histogram ")) continue;
    auto w = words(name, 3);
    if (w.size() < 3) continue;
    auto mi = mis.find(w[1]);
    std::string metric = mi == mis.end() ? "?" : mi->second.first;
    std::string focus = mi == mis.end() ? "/" : mi->second.second;
    long long pid = engine_pid;
    std::size_t begin = 0;
    while (begin <= focus.size()) {  // the focus lists one resource per hierarchy
      auto comma = std::min(focus.find(',', begin), focus.size());
      if (auto p = process_of_resource(std::string_view(focus).substr(begin, comma - begin)); p > 0)
        pid = p;
      begin = comma + 1;
    }
    auto track = "MI " + w[1] + " " + metric + " @ " + focus + " (" + w[2] + ")";
    double start = get(counters, "start", 0), width = get(counters, "width", 0);
    std::vector<std::pair<long long, double>> values;
    for (auto& [counter, value] : counters)
      if (starts_with(counter, "bucket."))
        values.emplace_back(std::atoll(counter.c_str() + 7), value);
    std::sort(values.begin(), values.end());
    for (auto& [i, v] : values) {
      out.counter(pid, track, start + static_cast<double>(i) * width, v);
      ++buckets;
    }
  }
  return buckets;
}

void write_log_trace(const std::string& file, std::ostream& out) {
  log_print_options p;
  p.modules = {"dm"};
  std::stringstream rows;
  print_log(file, p, rows);
  log_trace_builder builder;
  log_trace_row row;
  for (std::string line; std::getline(rows, line);)
    if (parse_log_row(line, "dm", row)) builder.add(row);
  trace_event_writer writer(out);
  builder.write(writer);
  writer.finish({{"source", "perfdm log " + file}});
}

int run_log_trace_command(const std::string& file, const std::string& out, std::ostream& err) {
  const auto partial = partial_path_for(out);
  try {
    std::ofstream trace(partial, std::ios::binary | std::ios::trunc);
    if (!trace) {
      err << "perfdm log: cannot write " << out << '\n';
      return 1;
    }
    write_log_trace(file, trace);
    trace.close();
    if (!trace) {
      err << "perfdm log: cannot write " << out << '\n';
      std::remove(partial.c_str());
      return 1;
    }
    put_in_place(partial, out);
    return 0;
  } catch (const std::exception& e) {
    err << "perfdm log: " << file << ": " << e.what() << '\n';
  }
  std::remove(partial.c_str());
  return 1;
}

}  // namespace perfdm
