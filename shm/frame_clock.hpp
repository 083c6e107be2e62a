// Converts perfdm_time stamps to CLOCK_MONOTONIC nanoseconds. With the TSC (x86), the
// reader calibrates: one (tsc, monotonic) pair when it starts, a second ~10 ms later, and
// then ever longer baselines as it runs (refine), so the rate error shrinks with time.
// Assumes an invariant TSC, synchronised across cores (every x86-64 of the last decade).
#pragma once

#include <cstdint>

namespace perfdm::shm {

std::int64_t monotonic_now_ns();
std::uint64_t read_tsc();  // 0 where there is no TSC

class frame_clock {
 public:
  explicit frame_clock(std::uint32_t clock_kind);  // format::clock_kind

  std::int64_t to_monotonic_ns(std::uint64_t stamp) const {
    if (!tsc_) return static_cast<std::int64_t>(stamp);
    const auto ticks = static_cast<std::int64_t>(stamp - tsc0_);
    return mono0_ + static_cast<std::int64_t>(static_cast<double>(ticks) * ns_per_tick_);
  }

  // Lengthens the calibration baseline when enough time has passed (cheap otherwise).
  void refine();

  double ns_per_tick() const { return ns_per_tick_; }

 private:
  bool tsc_ = false;
  std::uint64_t tsc0_ = 0;
  std::int64_t mono0_ = 0;
  std::int64_t baseline_ns_ = 0;  // monotonic span of the last calibration
  double ns_per_tick_ = 1.0;
};

}  // namespace perfdm::shm
