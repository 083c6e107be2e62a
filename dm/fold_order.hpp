// Which time base folds next (rules B4, B5): the one that reached its end first. Plain C++;
// the data manager asks it before each sample and after each fold, so that one sample that
// crosses the ends of both bases folds them in time order.
#pragma once

#include <optional>

#include "dm/histogram.hpp"
#include "messages/time.hpp"

namespace perfdm {

// The time bases as the data manager knows them.
struct time_base_view {
  bool any_mi = false;  // global histograms fold only while some MI exists
  time_ns global_width = 0;
  // A phase that starts at 0 shares the global base and folds with it (B5).
  time_ns current_start = 0;
  time_ns current_width = 0;
  bool any_current_histogram = false;  // live MIs with a current-phase histogram
};

// One doubling of one time base: every histogram starting at `start` doubles to `width`.
struct pending_fold {
  time_ns start;
  time_ns width;
  bool global;  // the global time base (which the current phase may share)
};

// The first instant a base cannot hold: start + 1000 x width (B1, B4).
inline time_ns time_base_end(time_ns start, time_ns width) {
  return start + static_cast<time_ns>(bucket_count) * width;
}

// The fold `now` requires next, if any: of the bases whose end is at or before `now`, the
// one whose end comes first; the global base on a tie. Folding it moves its end, so the
// caller asks again until nothing is left (B4: one fold per doubling). Inline: the data
// manager asks before every sample.
inline std::optional<pending_fold> next_fold(const time_base_view& b, time_ns now) {
  std::optional<pending_fold> global;
  time_ns global_end = 0;
  if (b.any_mi) {
    global_end = time_base_end(0, b.global_width);
    if (now >= global_end) global = pending_fold{0, b.global_width * 2, true};
  }
  const bool shares_global = b.current_start == 0;
  if (!shares_global && b.any_current_histogram) {
    const time_ns current_end = time_base_end(b.current_start, b.current_width);
    // Time order: the current base first only when it reached its end strictly earlier.
    if (now >= current_end && (!global || current_end < global_end))
      return pending_fold{b.current_start, b.current_width * 2, false};
  }
  return global;
}

}  // namespace perfdm
