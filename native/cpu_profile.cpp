#include "native/cpu_profile.hpp"

#include <algorithm>
#include <set>

namespace perfdm::native {

std::string function_item(const stack_frame& frame) {
  auto module = frame.module.substr(frame.module.rfind('/') + 1);  // npos + 1 == 0
  if (module.empty()) module = "?";
  return module + "@" + (frame.function.empty() ? "?" : frame.function);
}

cpu_profile::cpu_profile(detail_settings settings) : settings_(settings) {}

void cpu_profile::add(const stack_snapshot& snapshot, double covered, double time) {
  for (auto& t : snapshot.threads) {
    ++stacks_;
    if (t.state == 'R' && !t.frames.empty()) add_stack(t.frames);
  }
  end_sample(covered, time);
}

void cpu_profile::add_stack(const std::vector<stack_frame>& frames) {
  if (frames.empty()) return;
  ++active_;
  std::set<std::string> seen;
  std::set<std::pair<std::string, int>> seen_lines;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    auto name = function_item(frames[i]);
    auto& f = functions_[name];
    bool innermost = i == 0;
    if (seen.insert(name).second) ++f.total;
    if (innermost) ++f.base;
    if (f.detailed && frames[i].line > 0) {
      auto& l = f.lines[frames[i].line];
      if (l.file.empty()) l.file = frames[i].file;
      if (seen_lines.insert({name, frames[i].line}).second) ++l.total;
      if (innermost) ++l.base;
    }
  }
}

void cpu_profile::end_sample(double covered, double time) {
  ++samples_;
  if (covered > 0) montime_ += covered;
  last_ = time;
  decide_detailing();
}

void cpu_profile::decide_detailing() {
  if (active_ < settings_.min_total) return;
  auto all = static_cast<double>(active_);
  for (auto& [name, f] : functions_) {
    auto share = static_cast<double>(f.total) / all;
    if (!f.detailed && f.total >= settings_.minimum && share >= settings_.threshold) {
      f.detailed = true;
    } else if (f.detailed && share < settings_.stop_threshold) {
      f.detailed = false;
      f.lines.clear();
    }
  }
}

bool cpu_profile::detailed(const std::string& function_item) const {
  auto i = functions_.find(function_item);
  return i != functions_.end() && i->second.detailed;
}

profile_summary cpu_profile::summary() const {
  profile_summary out{samples_, stacks_, active_, montime_, last_, {}};
  auto by_counts = [](const auto& a, const auto& b) {
    if (a.second->base != b.second->base) return a.second->base > b.second->base;
    if (a.second->total != b.second->total) return a.second->total > b.second->total;
    return a.first < b.first;
  };
  std::vector<std::pair<std::string, const function_counts*>> fs;
  for (auto& [name, f] : functions_) fs.emplace_back(name, &f);
  std::sort(fs.begin(), fs.end(), by_counts);
  for (auto& [name, f] : fs) {
    out.items.push_back(profile_item{name, "", f->total, f->base, f->detailed});
    std::vector<std::pair<int, const line_counts*>> ls;
    for (auto& [line, l] : f->lines) ls.emplace_back(line, &l);
    std::sort(ls.begin(), ls.end(), by_counts);
    for (auto& [line, l] : ls)
      out.items.push_back(
          profile_item{name + "@" + std::to_string(line), l->file, l->total, l->base, false});
  }
  return out;
}

void cpu_profile::clear() {
  functions_.clear();
  samples_ = stacks_ = active_ = 0;
  montime_ = 0;
  last_ = -1;
}

}  // namespace perfdm::native
