#include "tree/link_meter.hpp"

#include <algorithm>

namespace perfdm {

void link_meter::note(time_ns now, std::uint64_t samples, bool has_watermark,
                      time_ns watermark) {
  if (now < 0) return;  // before engine time 0: no bucket (a clock far off)
  const std::int64_t index = now / bucket_width;
  auto& b = ring_[static_cast<std::size_t>(index % bucket_count)];
  if (b.index != index) b = bucket{index, 0, 0, 0};  // the slot held an older half second
  b.samples += samples;
  if (has_watermark) {
    b.lag_sum += to_seconds(now - watermark);
    ++b.lags;
  }
}

double link_meter::samples_per_s(time_ns now) const {
  if (now < 0) return 0;
  const std::int64_t current = now / bucket_width;
  std::uint64_t total = 0;
  for (auto& b : ring_)
    if (in_window(b, current)) total += b.samples;
  // The window's first bucket begins here; a link younger than that covers less.
  const time_ns begin = std::max<time_ns>(since_, (current - bucket_count + 1) * bucket_width);
  // At least half a second: one batch in a link's first milliseconds is no rate yet.
  const double span = to_seconds(std::max(now - begin, bucket_width));
  return static_cast<double>(total) / span;
}

std::optional<double> link_meter::lag_s(time_ns now) const {
  if (now < 0) return std::nullopt;
  const std::int64_t current = now / bucket_width;
  double sum = 0;
  std::uint64_t n = 0;
  for (auto& b : ring_)
    if (in_window(b, current)) {
      sum += b.lag_sum;
      n += b.lags;
    }
  if (n == 0) return std::nullopt;
  return sum / static_cast<double>(n);
}

}  // namespace perfdm
