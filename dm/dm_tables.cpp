#include "dm/dm_tables.hpp"

#include <algorithm>

#include "messages/dm_error.hpp"

namespace perfdm {

dm_tables::dm_tables() {
  add_resource("/", nullptr);
}

caf::expected<metric_info> dm_tables::define(const define_metric& x, bool& added) {
  added = false;
  if (x.name.empty()) return make_dm_error(dm_error::bad_argument, "a metric needs a NAME");
  if (auto i = metric_names_.find(x.name); i != metric_names_.end()) {
    auto& m = metrics_[i->second.id];
    if (m.style != x.style)
      return make_dm_error(dm_error::bad_argument,
                           "metric '" + x.name + "' is already " + to_string(m.style));
    return m;
  }
  metric_info m{metric_handle{metrics_.size()}, x.name, x.style, x.units};
  metrics_.push_back(m);
  metric_names_.emplace(m.name, m.id);
  added = true;
  return m;
}

caf::expected<resource_info> dm_tables::define(const define_resource& x,
                                               std::vector<resource_info>& added) {
  auto& name = x.name;
  auto valid = !name.empty() && name[0] == '/' && name.find("//") == std::string::npos &&
               (name.size() == 1 || name.back() != '/');
  if (!valid)
    return make_dm_error(dm_error::bad_argument,
                         "resource name '" + name + "' is not of the form /a/b");
  // Parents are created first, each announced to the streams.
  for (std::size_t slash = name.find('/', 1); slash != std::string::npos;
       slash = name.find('/', slash + 1))
    add_resource(name.substr(0, slash), &added);
  return resources_[add_resource(name, &added).id];
}

resource_handle dm_tables::add_resource(const std::string& name,
                                        std::vector<resource_info>* added) {
  if (auto i = resource_names_.find(name); i != resource_names_.end()) return i->second;
  std::string parent;
  if (name != "/") {
    auto slash = name.rfind('/');
    parent = slash == 0 ? "/" : name.substr(0, slash);
  }
  resource_info r{resource_handle{resources_.size()}, name, parent};
  resources_.push_back(r);
  resource_names_.emplace(name, r.id);
  if (added) added->push_back(r);
  return r.id;
}

std::optional<metric_handle> dm_tables::metric_named(const std::string& name) const {
  if (auto i = metric_names_.find(name); i != metric_names_.end()) return i->second;
  return std::nullopt;
}

caf::expected<focus_handle> dm_tables::find_focus(const std::vector<std::string>& names) {
  std::vector<std::string> sorted;
  for (auto& n : names) {
    if (resource_names_.count(n) == 0)
      return make_dm_error(dm_error::unknown_handle, "no resource named '" + n + "'");
    if (n != "/") sorted.push_back(n);
  }
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string key;
  for (auto& n : sorted) key += (key.empty() ? "" : ",") + n;
  if (key.empty()) key = "/";
  auto [i, added] = focus_names_.emplace(key, focus_handle{foci_.size()});
  if (added) foci_.push_back(key);
  return i->second;
}

mi_entry* dm_tables::find_mi(mi_handle h) {
  return h.id < mis_.size() && mis_[h.id] ? &*mis_[h.id] : nullptr;
}

const mi_entry* dm_tables::find_mi(mi_handle h) const {
  return h.id < mis_.size() && mis_[h.id] ? &*mis_[h.id] : nullptr;
}

std::optional<caf::error> dm_tables::check_mi(mi_handle h) const {
  if (find_mi(h)) return std::nullopt;
  if (h.id < mis_.size())
    return make_dm_error(dm_error::unknown_handle,
                         "metric instance " + to_string(h) + " was deleted");  // H4
  return make_dm_error(dm_error::unknown_handle, "no metric instance " + to_string(h));
}

mi_handle dm_tables::mi_for(metric_handle metric, focus_handle focus, bool& added) {
  auto key = std::make_pair(metric.id, focus.id);
  if (auto i = pairs_.find(key); i != pairs_.end()) {
    added = false;
    return i->second;  // E1: the pair's MI is reused
  }
  mi_handle h{mis_.size()};  // H3/H6: a new handle, never reused
  mis_.emplace_back(mi_entry{metric, focus, mi_summary{}});
  ++live_mis_;
  pairs_.emplace(key, h);
  added = true;
  return h;
}

mi_info dm_tables::describe(mi_handle h, const mi_summary& s) const {
  auto& e = *find_mi(h);
  return mi_info{h, metrics_[e.metric.id].name, foci_[e.focus.id], s.flags, s.state};
}

bool dm_tables::update(mi_handle h, const mi_summary& s) {
  auto* e = find_mi(h);
  if (!e) return false;
  current_histograms_ -= e->summary.has_current;
  e->summary = s;
  current_histograms_ += s.has_current;
  if (s.state != mi_state::deleted) return false;
  current_histograms_ -= s.has_current;
  --live_mis_;
  pairs_.erase({e->metric.id, e->focus.id});
  mis_[h.id].reset();
  return true;
}

std::vector<mi_handle> dm_tables::live_mis() const {
  std::vector<mi_handle> out;
  for (std::size_t i = 0; i < mis_.size(); ++i)
    if (mis_[i]) out.push_back(mi_handle{i});
  return out;
}

collection_view dm_tables::view(time_ns global_width, time_ns current_width) const {
  collection_view v;
  for (auto& e : mis_) {
    if (!e) continue;
    auto& s = e->summary;
    v.current_subscriptions += s.current_users;
    v.global_subscriptions += s.global_users;
    v.current_histogram_active |= s.collecting && s.has_current;
    v.any_persistent_collection |= s.flags.collection;
    v.any_active |= s.collecting;
  }
  v.global_width = global_width;
  v.current_width = current_width;
  return v;
}

source_update dm_tables::collection_set(double interval, double origin) const {
  source_update u;
  u.interval = interval;
  u.origin = origin;
  for (std::size_t i = 0; i < mis_.size(); ++i) {
    auto& e = mis_[i];
    if (!e || !e->summary.collecting) continue;
    collecting_mi c{mi_handle{i}, metrics_[e->metric.id].name, {}};
    auto& focus = foci_[e->focus.id];
    for (std::size_t b = 0; b <= focus.size();) {
      auto comma = std::min(focus.find(',', b), focus.size());
      c.focus.push_back(focus.substr(b, comma - b));
      b = comma + 1;
    }
    u.mis.push_back(std::move(c));
  }
  return u;
}

}  // namespace perfdm
