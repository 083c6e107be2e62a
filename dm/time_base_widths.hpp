// The widths of the data manager's two time bases (rules B4-B6): the global histograms' and
// the current phase's. A phase that starts at 0 (phase 0) shares the global base and folds
// with it (B5). Plain C++; the data manager actor holds one.
#pragma once

#include <algorithm>
#include <optional>

#include "dm/fold_order.hpp"
#include "dm/histogram.hpp"
#include "dm/metric_instance_state.hpp"
#include "messages/time.hpp"

namespace perfdm {

// Where a phase asked for at `now` starts, and how wide its histograms are.
struct phase_base {
  time_ns start = 0;
  time_ns width = 0;
};

// C2: the new phase starts at `now` rounded down to the global bucket width, never before
// `previous_start` (the phase it ends). B6: a time base starting at 0 is the global one;
// any other starts empty and takes the smallest width that covers the time since its start.
inline phase_base new_phase_base(time_ns now, time_ns global_width, time_ns previous_start,
                                 time_ns base_width) {
  phase_base b;
  b.start = std::max(now / global_width * global_width, previous_start);
  b.width = b.start == 0 ? global_width : width_covering(now - b.start, base_width);
  return b;
}

class time_base_widths {
 public:
  explicit time_base_widths(time_ns base_width)
      : base_width_(base_width), global_(base_width), current_(base_width) {}

  time_ns global() const { return global_; }
  time_ns current() const { return current_; }
  time_ns current_start() const { return current_start_; }
  bool current_shares_global() const { return current_start_ == 0; }

  // The width the global histograms have, or would get if one were created now (B6).
  time_ns global_at(time_ns now, bool any_mi) const {
    return any_mi ? global_ : width_covering(now, base_width_);
  }

  time_bases bases(phase_handle current_phase) const {
    return time_bases{global_, current_phase, current_start_, current_};
  }

  // B6, before a new MI exists: a histogram takes the width of its time base when other
  // histograms live there, otherwise the smallest width covering the time since the base's
  // start.
  void prepare(time_ns now, bool any_mi, bool any_current_histogram) {
    if (!any_mi) global_ = width_covering(now, base_width_);
    if (current_shares_global())
      current_ = global_;
    else if (!any_current_histogram)
      current_ = width_covering(now - current_start_, base_width_);
  }

  // B4/B5: the fold `now` requires next, if any (dm/fold_order.hpp).
  std::optional<pending_fold> next_fold(time_ns now, bool any_mi,
                                        bool any_current_histogram) const {
    return perfdm::next_fold(
        time_base_view{any_mi, global_, current_start_, current_, any_current_histogram}, now);
  }

  // Applies one fold; true when the current phase's histograms folded (alone, or with the
  // global base they share).
  bool apply(const pending_fold& f) {
    bool current_folds = !f.global || current_shares_global();
    if (f.global) global_ = f.width;
    if (current_folds) current_ = f.width;
    return current_folds;
  }

  // A new current phase starts at `start` with histograms `width` wide (N, C2).
  void new_phase(time_ns start, time_ns width) {
    current_start_ = start;
    current_ = width;
  }

 private:
  time_ns base_width_;
  time_ns global_;
  time_ns current_start_ = 0;
  time_ns current_;
};

}  // namespace perfdm
