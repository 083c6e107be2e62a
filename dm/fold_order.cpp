#include "dm/fold_order.hpp"

#include "dm/histogram.hpp"

namespace perfdm {

time_ns time_base_end(time_ns start, time_ns width) {
  return start + static_cast<time_ns>(bucket_count) * width;
}

std::optional<pending_fold> next_fold(const time_base_view& b, time_ns now) {
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
