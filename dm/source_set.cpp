#include "dm/source_set.hpp"

#include <algorithm>

namespace perfdm {

bool source_set::add(const caf::actor& source, const std::string& component,
                     source_update current, const std::string& replaces,
                     const std::map<std::uint64_t, time_ns>& reached) {
  if (!source || std::find(sources_.begin(), sources_.end(), source) != sources_.end())
    return false;
  sources_.push_back(source);
  if (!component.empty()) {
    components_.emplace(source.address(), component);
    aggregator_.add_component(component);
    aggregator_.take_over(component, replaces, reached);
  }
  last_ = std::move(current);
  return true;
}

std::optional<std::string> source_set::remove(const caf::actor_addr& source,
                                              std::vector<sample>& complete) {
  sources_.erase(std::remove(sources_.begin(), sources_.end(), source), sources_.end());
  auto i = components_.find(source);
  if (i == components_.end()) return std::nullopt;
  auto name = i->second;
  components_.erase(i);
  for (auto& [addr, other] : components_)
    if (other == name) return std::nullopt;  // another live source shares the name
  aggregator_.remove_component(name, complete);
  return name;
}

std::optional<source_update> source_set::changed(source_update current) {
  if (sources_.empty()) return std::nullopt;
  auto same = [](const source_update& a, const source_update& b) {
    if (a.interval != b.interval || a.mis.size() != b.mis.size()) return false;
    for (std::size_t i = 0; i < a.mis.size(); ++i)
      if (a.mis[i].mi != b.mis[i].mi) return false;  // an MI's metric and focus never change
    return true;
  };
  if (same(current, last_)) return std::nullopt;
  last_ = std::move(current);
  return last_;
}

const std::string* source_set::component_of(const caf::actor_addr& source) const {
  auto i = components_.find(source);
  return i == components_.end() ? nullptr : &i->second;
}

void source_set::aggregate(const std::string& component, const std::vector<sample>& samples,
                           time_ns complete_until, std::vector<sample>& complete) {
  aggregator_.add_samples(component, samples, complete);
  if (complete_until != no_watermark)
    aggregator_.add_watermark(component, complete_until, complete);
}

}  // namespace perfdm
