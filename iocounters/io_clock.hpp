// The clock the I/O counters read twice per call: the TSC on x86-64 (an invariant TSC,
// synchronised across cores, as the frames writer assumes), CLOCK_MONOTONIC nanoseconds
// elsewhere. Counters keep raw ticks; a reader turns them into seconds with two (ticks,
// CLOCK_REALTIME) pairs taken far apart (tick_calibration), so no call pays for a conversion.
#pragma once

#include <time.h>

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace perfdm::io {

enum class tick_kind : std::uint32_t { tsc = 0, monotonic_ns = 1 };

inline constexpr tick_kind native_tick_kind() {
#if defined(__x86_64__) || defined(__i386__)
  return tick_kind::tsc;
#else
  return tick_kind::monotonic_ns;
#endif
}

inline std::uint64_t read_ticks() {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return std::uint64_t(t.tv_sec) * 1000000000u + std::uint64_t(t.tv_nsec);
#endif
}

inline std::int64_t realtime_ns() {
  timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return std::int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
}

// Ticks to nanoseconds from two (ticks, realtime) pairs; the farther apart, the better.
struct tick_calibration {
  std::uint64_t ticks0 = 0;
  std::int64_t ns0 = 0;
  double ns_per_tick = 1.0;

  static tick_calibration from(std::uint64_t ticks0, std::int64_t ns0, std::uint64_t ticks1,
                               std::int64_t ns1, tick_kind kind) {
    tick_calibration c;
    c.ticks0 = ticks0;
    c.ns0 = ns0;
    if (kind == tick_kind::tsc && ticks1 > ticks0 && ns1 > ns0) {
      c.ns_per_tick = double(ns1 - ns0) / double(ticks1 - ticks0);
    }
    return c;
  }
  // The realtime (ns since the epoch) of a tick reading.
  std::int64_t realtime_of(std::uint64_t ticks) const {
    const double d = double(std::int64_t(ticks - ticks0)) * ns_per_tick;
    return ns0 + std::int64_t(d);
  }
  double seconds(std::int64_t ticks) const { return double(ticks) * ns_per_tick * 1e-9; }
};

}  // namespace perfdm::io
