// When to take the next stack sample (DyPer's stack-check delay): exponentially
// distributed with mean CHECKTIME (default 10 ms), so samples do not lock step with the
// program's own periodic behaviour, and capped at 10 s. An overhead budget (default 10 % of
// the program's time) stretches the mean from the measured cost of each sample: a sample
// that stops the program for `c` keeps the overhead c / (c + delay) within the budget `b`
// when the delay is at least c (1 - b) / b. The cost is a moving average (weight 1/4 for the
// newest), so one slow sample does not stall sampling. The first cost recorded is a warm-up
// and not counted: libdw reads the modules' unwind and debug information then (half a second
// and more), which the program pays once, not per sample. Plain C++.
#pragma once

#include <cstdint>
#include <random>

namespace perfdm::native {

struct delay_settings {
  std::int64_t checktime_ns = 10'000'000;  // CHECKTIME, 10 ms
  double budget = 0.10;                    // fraction of the program's time
  std::int64_t cap_ns = 10'000'000'000;    // 10 s
};

class sampling_delay {
 public:
  explicit sampling_delay(delay_settings settings = {}, std::uint64_t seed = std::random_device{}());

  // The mean delay now: CHECKTIME, stretched by the budget (never above the cap).
  std::int64_t mean_ns() const;
  // The next delay: an exponential draw with mean mean_ns(), capped.
  std::int64_t next_ns();
  // A new CHECKTIME (SET CHECKTIME): the mean from now on (at least 1 ns, the cap raised to
  // it if need be); the measured cost is kept.
  void set_checktime(std::int64_t checktime_ns);
  // The measured cost of one sample.
  void record_cost(std::int64_t cost_ns);
  double average_cost_ns() const { return cost_ns_; }
  const delay_settings& settings() const { return settings_; }

 private:
  delay_settings settings_;
  std::mt19937_64 random_;
  double cost_ns_ = 0;
  bool warmed_up_ = false;
  bool measured_ = false;
};

}  // namespace perfdm::native
