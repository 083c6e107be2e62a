#include "top/top_view.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

namespace perfdm::top {

namespace {

// Columns of UTF-8 text: one per character (a lead byte), which holds for the names and the
// em dash printed here.
bool is_lead(unsigned char c) {
  return (c & 0xC0) != 0x80;
}

std::string percent(double share) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%5.1f%%", share * 100);
  return buf;
}

std::string frame_name(const stack_entry& f) {
  std::string fn = f.function.empty() ? "?" : f.function;
  return f.module.empty() ? fn : fn + " (" + f.module + ")";
}

std::vector<std::string> function_table(const std::vector<function_row>& rows,
                                        const std::string& what, std::uint64_t samples,
                                        int width, int room) {
  std::vector<std::string> out;
  out.push_back(fit("  SELF   TOTAL  FUNCTION (" + std::to_string(samples) + " " + what + ")", width));
  if (rows.empty()) out.push_back(fit("  (no " + what + " yet)", width));
  for (auto& r : rows) {
    if (static_cast<int>(out.size()) >= room) break;
    out.push_back(fit(percent(r.self) + " " + percent(r.total) + "  " + r.name, width));
  }
  return out;
}

std::vector<function_row> ranked(const std::map<std::string, std::pair<std::uint64_t, std::uint64_t>>& counts,
                                 std::uint64_t samples) {
  std::vector<function_row> rows;
  if (samples == 0) return rows;
  for (auto& [name, c] : counts)
    rows.push_back({name, static_cast<double>(c.first) / static_cast<double>(samples),
                    static_cast<double>(c.second) / static_cast<double>(samples)});
  std::stable_sort(rows.begin(), rows.end(), [](const function_row& a, const function_row& b) {
    if (a.self != b.self) return a.self > b.self;
    if (a.total != b.total) return a.total > b.total;
    return a.name < b.name;
  });
  return rows;
}

}  // namespace

const char* view_name(view v) {
  switch (v) {
    case view::cpu:
      return "on-CPU";
    case view::offcpu:
      return "off-CPU";
    case view::threads:
      return "threads";
    case view::findings:
      return "findings";
  }
  return "";
}

std::string function_name(const std::string& n) {
  auto at = n.find('@');
  if (at == std::string::npos) return n;
  if (n.find('@', at + 1) != std::string::npos) return "";  // module@function@line
  return n.substr(at + 1) + " (" + n.substr(0, at) + ")";
}

std::string fit(const std::string& s, int columns) {
  std::string out;
  int used = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (is_lead(static_cast<unsigned char>(s[i]))) {
      if (used == columns) break;
      ++used;
    }
    out += s[i];
  }
  return out + std::string(static_cast<std::size_t>(std::max(0, columns - used)), ' ');
}

void top_model::profile(const cpu_profile_report& r) {
  profiles_[r.pid] = r;
}

void top_model::stacks(const stacks_report& r) {
  auto seen = stacks_seen_.find(r.pid);
  if (seen != stacks_seen_.end() && seen->second >= r.time) return;  // that sample is counted
  stacks_seen_[r.pid] = r.time;
  for (auto& t : r.threads) {
    thread_state_[t.tid] = t.state;
    if (t.state == "running" || t.stack.empty()) continue;
    ++off_samples_;
    ++off_[frame_name(t.stack.front())].first;
    std::set<std::string> on_stack;
    for (auto& f : t.stack) on_stack.insert(frame_name(f));
    for (auto& n : on_stack) ++off_[n].second;
  }
}

std::uint64_t top_model::on_cpu_samples() const {
  std::uint64_t n = 0;
  for (auto& [pid, p] : profiles_) n += p.active;
  return n;
}

std::vector<function_row> top_model::on_cpu() const {
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> counts;
  for (auto& [pid, p] : profiles_)
    for (auto& i : p.items) {
      auto name = function_name(i.name);
      if (name.empty()) continue;
      counts[name].first += i.base;
      counts[name].second += i.total;
    }
  return ranked(counts, on_cpu_samples());
}

std::vector<function_row> top_model::off_cpu() const {
  return ranked(off_, off_samples_);
}

std::vector<std::string> top_model::screen(view v, int width, int height) const {
  std::vector<std::string> out;
  if (width <= 0 || height <= 0) return out;
  out.push_back(fit("perfdm top \u2014 " + status_, width));
  std::string keys;
  for (auto [k, x] : {std::pair{'c', view::cpu}, std::pair{'o', view::offcpu},
                      std::pair{'t', view::threads}, std::pair{'f', view::findings}})
    keys += std::string(x == v ? "[" : " ") + k + (x == v ? "]" : " ") + view_name(x) + "  ";
  out.push_back(fit(keys + " q quit", width));
  // The answer first: the best findings on every view, all of them on the findings view.
  std::size_t shown = v == view::findings ? findings_.size() : std::min<std::size_t>(3, findings_.size());
  out.push_back(fit(findings_.empty() ? "findings: none yet"
                                      : "findings (" + std::to_string(findings_.size()) + "):",
                    width));
  for (std::size_t i = 0; i < shown && static_cast<int>(out.size()) < height; ++i)
    out.push_back(fit(" " + std::to_string(i + 1) + ". " + findings_[i], width));
  if (static_cast<int>(out.size()) < height) out.push_back(fit("", width));
  int room = height - static_cast<int>(out.size());
  std::vector<std::string> body;
  switch (v) {
    case view::cpu:
      body = function_table(on_cpu(), "running samples", on_cpu_samples(), width, room);
      break;
    case view::offcpu:
      body = function_table(off_cpu(), "blocked samples", off_samples_, width, room);
      break;
    case view::threads: {
      body.push_back(fit("    TID STATE       RUN  LOCK  WAIT   I/O SLEEP  NAME", width));
      for (auto& [pid, p] : profiles_)
        for (auto& t : p.threads) {
          if (static_cast<int>(body.size()) >= room) break;
          double n = t.samples ? static_cast<double>(t.samples) : 1;
          auto i = thread_state_.find(t.tid);
          char buf[128];
          std::snprintf(buf, sizeof buf, "%7d %-10.10s %4.0f%% %4.0f%% %4.0f%% %4.0f%% %4.0f%%  ",
                        t.tid, i == thread_state_.end() ? "?" : i->second.c_str(),
                        100 * t.runs / n, 100 * t.blocks / n, 100 * t.waits / n, 100 * t.ios / n,
                        100 * t.sleeps / n);
          body.push_back(fit(buf + t.name + "{" + std::to_string(t.tid) + "}", width));
        }
      break;
    }
    case view::findings:
      break;
  }
  for (auto& l : body)
    if (static_cast<int>(out.size()) < height) out.push_back(l);
  while (static_cast<int>(out.size()) < height) out.push_back(fit("", width));
  return out;
}

}  // namespace perfdm::top
