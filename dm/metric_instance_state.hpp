// The state and rules of one metric instance (MI): its histograms, user lists, persistence
// flags and archive (rules E, P, D, N of the Data Manager (docs/DM-RULES.md)). Plain C++; the
// metric-instance actor wraps it and the tests drive it directly.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "dm/histogram.hpp"
#include "messages/dm_messages.hpp"

namespace perfdm {

// Where a new histogram goes: the global time base starts at 0; the current phase's at
// its start. The data manager owns the widths (B6) and passes them in.
struct time_bases {
  time_ns global_width = base_bucket_width;
  phase_handle current_phase;
  time_ns current_start = 0;
  time_ns current_width = base_bucket_width;
};

// What the data manager mirrors of an MI after every request: enough to route samples,
// count histograms per time base and apply the sampling-interval rules.
struct mi_summary {
  mi_state state = mi_state::active;
  bool collecting = false;
  bool has_current = false;
  std::uint32_t global_users = 0;
  std::uint32_t current_users = 0;
  persistence flags;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, mi_summary& x) {
  return f(caf::meta::type_name("mi_summary"), x.state, x.collecting, x.has_current, x.global_users,
           x.current_users, x.flags);
}

// Data values that became complete, by histogram (rule B7).
struct completed_values {
  std::vector<data_value> global;
  std::vector<data_value> current;
  bool empty() const { return global.empty() && current.empty(); }
};

class metric_instance_state {
 public:
  metric_instance_state(mi_handle id, metric_style style);

  // E1-E4: the stream joins the GLOBAL or CURRENT user list; flags are OR-ed in; the
  // histograms it needs are created; collection is on.
  void enable(stream_handle s, phase_type type, persistence flags, const time_bases& tb);

  // D1-D4. Returns false (and changes nothing) when `s` is not a user in that phase (D4).
  bool disable(stream_handle s, phase_type type);

  // T3: disable every subscription of `s`, current first, as if one by one.
  void drop_stream(stream_handle s);

  // P4/P5: set or clear the flags named in `named`.
  void set_flags(persistence named);
  void clear_flags(persistence named);

  // N1-N7 for this MI when `old_phase` ends and `tb.current_phase` starts.
  void new_phase(phase_handle old_phase, const time_bases& tb);

  // B3/B8: a sample of this MI over [t0, t1). The caller folded first (B4).
  void add(time_ns t0, time_ns t1, double value, completed_values* out);

  // B4: every histogram of the time base starting at `start` folds until it has `width`.
  void fold(time_ns start, time_ns width);

  mi_summary summary() const;
  mi_status status() const;  // metric and focus names are the caller's to fill
  bool deleted() const { return deleted_; }
  bool collecting() const { return collecting_; }
  const persistence& flags() const { return flags_; }
  const std::vector<stream_handle>& global_users() const { return global_users_; }
  const std::vector<stream_handle>& current_users() const { return current_users_; }
  const histogram* global_histogram() const { return global_ ? &*global_ : nullptr; }
  const histogram* current_histogram() const { return current_ ? &*current_ : nullptr; }
  const histogram* archived(phase_handle p) const;
  std::size_t memory_bytes() const;

 private:
  // Applies the consequences deferred by P4 and the deletion rules once users change.
  void stop_if_unused();

  mi_handle id_;
  metric_style style_;
  persistence flags_;
  bool collecting_ = false;
  bool deleted_ = false;
  std::vector<stream_handle> global_users_;
  std::vector<stream_handle> current_users_;
  std::optional<histogram> global_;
  std::optional<histogram> current_;
  std::map<phase_handle, histogram> archive_;
};

// DATA's answer for histogram `h` of MI `id`: its start and width in seconds, and the
// readings of its buckets up to the last that has data.
histogram_data data_of(mi_handle id, const histogram& h);

}  // namespace perfdm
