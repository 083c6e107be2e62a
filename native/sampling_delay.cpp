#include "native/sampling_delay.hpp"

#include <algorithm>
#include <cmath>

namespace perfdm::native {

sampling_delay::sampling_delay(delay_settings settings, std::uint64_t seed)
    : settings_(settings), random_(seed) {
  settings_.checktime_ns = std::max<std::int64_t>(settings_.checktime_ns, 1);
  settings_.cap_ns = std::max(settings_.cap_ns, settings_.checktime_ns);
  if (!(settings_.budget > 0 && settings_.budget <= 1)) settings_.budget = 0.10;
}

void sampling_delay::set_checktime(std::int64_t checktime_ns) {
  settings_.checktime_ns = std::max<std::int64_t>(checktime_ns, 1);
  settings_.cap_ns = std::max(settings_.cap_ns, settings_.checktime_ns);
}

std::int64_t sampling_delay::mean_ns() const {
  double b = settings_.budget;
  double stretched = cost_ns_ * (1 - b) / b;
  double mean = std::max(static_cast<double>(settings_.checktime_ns), stretched);
  return static_cast<std::int64_t>(std::min(mean, static_cast<double>(settings_.cap_ns)));
}

std::int64_t sampling_delay::next_ns() {
  std::exponential_distribution<double> d(1.0 / static_cast<double>(mean_ns()));
  double x = d(random_);
  return static_cast<std::int64_t>(std::min(x, static_cast<double>(settings_.cap_ns)));
}

void sampling_delay::record_cost(std::int64_t cost_ns) {
  if (!warmed_up_) {
    warmed_up_ = true;
    return;
  }
  auto c = static_cast<double>(std::max<std::int64_t>(cost_ns, 0));
  cost_ns_ = measured_ ? 0.75 * cost_ns_ + 0.25 * c : c;
  measured_ = true;
}

}  // namespace perfdm::native
