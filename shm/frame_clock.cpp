#include "shm/frame_clock.hpp"

#include <time.h>

#include <chrono>
#include <thread>

#include "shm/segment_format.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace perfdm::shm {

namespace {

struct clock_pair {
  std::uint64_t tsc;
  std::int64_t mono;
};

// The TSC read between two monotonic reads, paired with their midpoint; the tightest of a
// few tries, so a preemption in the middle does not skew the pair.
clock_pair sample_pair() {
  clock_pair best{};
  std::int64_t best_gap = -1;
  for (int i = 0; i < 5; ++i) {
    const auto a = monotonic_now_ns();
    const auto t = read_tsc();
    const auto b = monotonic_now_ns();
    if (best_gap < 0 || b - a < best_gap) {
      best_gap = b - a;
      best = {t, a + (b - a) / 2};
    }
  }
  return best;
}

}  // namespace

std::int64_t monotonic_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::uint64_t read_tsc() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  return 0;
#endif
}

frame_clock::frame_clock(std::uint32_t clock_kind) {
  tsc_ = clock_kind == format::clock_tsc && read_tsc() != 0;
  if (!tsc_) return;
  const auto first = sample_pair();
  tsc0_ = first.tsc;
  mono0_ = first.mono;
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const auto second = sample_pair();
  baseline_ns_ = second.mono - mono0_;
  if (second.tsc > tsc0_ && baseline_ns_ > 0)
    ns_per_tick_ = static_cast<double>(baseline_ns_) / static_cast<double>(second.tsc - tsc0_);
}

void frame_clock::refine() {
  if (!tsc_) return;
  const auto now = monotonic_now_ns();
  // Four times the last baseline, then every minute: the error falls as 1/baseline.
  const std::int64_t due =
      baseline_ns_ < 15'000'000'000 ? 4 * baseline_ns_ : baseline_ns_ + 60'000'000'000;
  if (now - mono0_ < due) return;
  const auto p = sample_pair();
  if (p.tsc <= tsc0_) return;
  baseline_ns_ = p.mono - mono0_;
  ns_per_tick_ = static_cast<double>(baseline_ns_) / static_cast<double>(p.tsc - tsc0_);
}

}  // namespace perfdm::shm
