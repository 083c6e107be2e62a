// The Data Manager's tables as plain C++: metrics, resources, foci and metric instances by
// handle (rules H1-H6), each MI with what it reported last (its summary), and the views the
// rules read from them (the collection view of S1-S5, the collecting set the sources hear
// of). The data manager actor holds one, with the MIs' actors beside it; tests drive it
// directly.
#pragma once

#include <caf/error.hpp>
#include <caf/expected.hpp>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dm/metric_instance_state.hpp"
#include "dm/sampling_interval_rules.hpp"
#include "messages/dm_messages.hpp"
#include "messages/source_messages.hpp"

namespace perfdm {

struct mi_entry {
  metric_handle metric;
  focus_handle focus;
  mi_summary summary;
};

class dm_tables {
 public:
  dm_tables();  // resource 0 is "/", the root of every focus

  // ---- metrics and resources (H1, H2)

  // DEFINE METRIC: the metric of that name, made now (`added`) or before; the same name
  // with another style is BAD_ARGUMENT.
  caf::expected<metric_info> define(const define_metric& x, bool& added);
  // DEFINE RESOURCE: the resource, its parents made first; `added` gets every resource
  // made, in order. A name not of the form /a/b is BAD_ARGUMENT.
  caf::expected<resource_info> define(const define_resource& x, std::vector<resource_info>& added);
  // The resource of `name`, made (and appended to `added`) if it is new. `name` is valid.
  resource_handle add_resource(const std::string& name, std::vector<resource_info>* added);

  const std::vector<metric_info>& metrics() const { return metrics_; }
  const std::vector<resource_info>& resources() const { return resources_; }
  std::optional<metric_handle> metric_named(const std::string& name) const;
  metric_style style_of(metric_handle h) const { return metrics_[h.id].style; }

  // ---- foci

  // A focus is a set of resources; "/" alone is the whole program. Unknown names are
  // UNKNOWN_HANDLE.
  caf::expected<focus_handle> find_focus(const std::vector<std::string>& names);
  const std::string& focus_name(focus_handle h) const { return foci_[h.id]; }

  // ---- metric instances (E1, H3, H4, H6)

  mi_entry* find_mi(mi_handle h);
  const mi_entry* find_mi(mi_handle h) const;
  // UNKNOWN_HANDLE for an MI that never was or was deleted (H4), else nothing.
  std::optional<caf::error> check_mi(mi_handle h) const;
  // E1: the MI of (metric, focus), or a new handle (never reused: H3, H6) with `added`.
  mi_handle mi_for(metric_handle metric, focus_handle focus, bool& added);
  // The MI as `s` describes it.
  mi_info describe(mi_handle h, const mi_summary& s) const;
  // Mirrors what an MI reported; true when it reported its deletion, which drops its entry
  // (the handle stays taken).
  bool update(mi_handle h, const mi_summary& s);
  std::vector<mi_handle> live_mis() const;
  std::size_t mi_slots() const { return mis_.size(); }  // handles given so far
  bool any_mi() const { return live_mis_ > 0; }
  bool any_current_histogram() const { return current_histograms_ > 0; }

  // ---- views

  // What the sampling-interval rules read (S1-S5).
  collection_view view(time_ns global_width, time_ns current_width) const;
  // The collecting MIs, as every data source must know them.
  source_update collection_set(double interval, double origin) const;

 private:
  std::vector<metric_info> metrics_;
  std::unordered_map<std::string, metric_handle> metric_names_;
  std::vector<resource_info> resources_;
  std::unordered_map<std::string, resource_handle> resource_names_;
  std::vector<std::string> foci_;  // canonical names by focus handle
  std::map<std::string, focus_handle> focus_names_;
  std::vector<std::optional<mi_entry>> mis_;  // by handle; empty once deleted
  std::map<std::pair<std::uint64_t, std::uint64_t>, mi_handle> pairs_;  // (metric, focus)
  // The counts kept here spare the per-sample fold check a walk over every MI.
  std::size_t live_mis_ = 0;            // entries of mis_ that are not empty
  std::size_t current_histograms_ = 0;  // live MIs with a current-phase histogram
};

}  // namespace perfdm
