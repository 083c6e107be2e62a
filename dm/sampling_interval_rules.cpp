#include "dm/sampling_interval_rules.hpp"

namespace perfdm {

std::optional<time_ns> sampling_interval_rules::set(time_ns w) {
  if (w == interval_) return std::nullopt;
  interval_ = w;
  return w;
}

std::optional<time_ns> sampling_interval_rules::on_fold(bool global_base, bool current_base,
                                                        time_ns width,
                                                        const collection_view& after) {
  // The interval follows the histograms that collect: the current phase's while one is
  // active (S1), else the global ones (S2). A fold of the other base leaves it alone.
  if (after.current_histogram_active) return current_base ? set(width) : std::nullopt;  // S1
  return global_base ? set(width) : std::nullopt;                                       // S2
}

std::optional<time_ns> sampling_interval_rules::on_new_phase(const collection_view& after) {
  if (after.any_persistent_collection) return set(after.current_width);  // S3
  if (after.any_active) return set(after.global_width);
  return std::nullopt;
}

std::optional<time_ns> sampling_interval_rules::on_enable(phase_type type,
                                                          const collection_view& before,
                                                          const collection_view& after) {
  if (type == phase_type::current) {
    if (before.current_subscriptions == 0) return set(after.current_width);  // S4, first CURRENT
    return std::nullopt;
  }
  if (before.global_subscriptions == 0 && after.current_subscriptions == 0)
    return set(after.global_width);  // S4, first GLOBAL with no current-phase enables
  return std::nullopt;
}

std::optional<time_ns> sampling_interval_rules::on_disable(const collection_view& before,
                                                           const collection_view& after) {
  if (before.current_subscriptions > 0 && after.current_subscriptions == 0)
    return set(after.global_width);  // S5
  return std::nullopt;
}

}  // namespace perfdm
