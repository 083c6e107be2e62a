// Rules S1-S5: how the sampling interval follows bucket widths. Plain C++; the
// sampling-interval controller actor applies it and announces every change.
#pragma once

#include <optional>

#include "dm/histogram.hpp"

namespace perfdm {

// What the data manager knows about the whole set of MIs around an event.
struct collection_view {
  std::uint32_t current_subscriptions = 0;  // sum of current user lists
  std::uint32_t global_subscriptions = 0;   // sum of global user lists
  bool current_histogram_active = false;    // a collecting MI has a current histogram
  bool any_persistent_collection = false;
  bool any_active = false;  // a collecting MI exists
  time_ns global_width = base_bucket_width;
  time_ns current_width = base_bucket_width;
};

class sampling_interval_rules {
 public:
  explicit sampling_interval_rules(time_ns base_width = base_bucket_width)
      : interval_(base_width) {}
  time_ns interval() const { return interval_; }

  // Each returns the new interval when it changed, nothing otherwise.
  // S1/S2: a time base folded to `width`. `global_base`: the global histograms folded;
  // `current_base`: the current phase's did (both when phase 0 shares the global base).
  // S1 applies only while a current-phase histogram is active (collecting), as S2 reads:
  // a current base whose histograms collect nothing does not set the interval.
  std::optional<time_ns> on_fold(bool global_base, bool current_base, time_ns width,
                                 const collection_view& after);
  // S3: a new phase started; `after` describes the MIs once the phase change is applied.
  std::optional<time_ns> on_new_phase(const collection_view& after);
  // S4: an enable of `type` moved the MIs from `before` to `after`.
  std::optional<time_ns> on_enable(phase_type type, const collection_view& before,
                                   const collection_view& after);
  // S5: a disable (or a closed stream) moved the MIs from `before` to `after`.
  std::optional<time_ns> on_disable(const collection_view& before, const collection_view& after);

 private:
  std::optional<time_ns> set(time_ns w);
  time_ns interval_ = base_bucket_width;
};

}  // namespace perfdm
