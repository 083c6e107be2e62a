// Bytes read and written per time bin, per process (Darshan's heatmap module,
// darshan-runtime/lib/darshan-heatmap.c), kept so that no call takes a lock: six levels of
// 4096 bins each, in clock ticks, each level's bins 16 times wider than the one before
// (from 2^20 ticks, about 0.3 ms at 3 GHz, to 2^40, enough for weeks). A call's bytes go to the
// finest level whose range reaches the call's end, spread over the bins its interval overlaps
// in proportion to time (whole bytes, none lost), with atomic adds. A reader turns the levels
// into Darshan's bins (0.1 s doubling until the run fits in 200 bins: heatmap_output.hpp).
#pragma once

#include <cstdint>

namespace perfdm::io {

struct heatmap_bins {
  static constexpr int levels = 6;
  static constexpr int bins = 4096;
  static constexpr int first_shift = 20;
  static constexpr int shift_step = 4;
  static constexpr int shift(int level) { return first_shift + shift_step * level; }

  std::uint64_t origin;  // ticks at which bin 0 of every level starts
  std::int64_t read[levels][bins];
  std::int64_t write[levels][bins];
};

// Adds `bytes` moved between ticks t1 and t2 (t1 <= t2).
inline void heatmap_add(heatmap_bins& h, bool is_read, std::int64_t bytes, std::uint64_t t1,
                        std::uint64_t t2) {
  if (bytes <= 0) return;
  const std::uint64_t a = t1 > h.origin ? t1 - h.origin : 0;
  const std::uint64_t b = t2 > h.origin + a ? t2 - h.origin : a;
  int level = 0;
  while (level < heatmap_bins::levels - 1 &&
         (b >> heatmap_bins::shift(level)) >= std::uint64_t(heatmap_bins::bins)) {
    ++level;
  }
  const int s = heatmap_bins::shift(level);
  std::int64_t* row = is_read ? h.read[level] : h.write[level];
  auto clamp = [](std::uint64_t bin) {
    return bin >= std::uint64_t(heatmap_bins::bins) ? std::uint64_t(heatmap_bins::bins - 1) : bin;
  };
  const std::uint64_t first = clamp(a >> s), last = clamp(b >> s);
  if (first == last || b == a) {
    __atomic_fetch_add(&row[first], bytes, __ATOMIC_RELAXED);
    return;
  }
  // Spread in proportion to the ticks spent in each bin; the last bin takes the rest.
  const double per_tick = double(bytes) / double(b - a);
  std::int64_t given = 0;
  for (std::uint64_t bin = first; bin < last; ++bin) {
    const std::uint64_t from = bin == first ? a : bin << s;
    const std::uint64_t to = (bin + 1) << s;
    const auto share = std::int64_t(double(to - from) * per_tick + 0.5);
    const std::int64_t part = share > bytes - given ? bytes - given : share;
    if (part > 0) __atomic_fetch_add(&row[bin], part, __ATOMIC_RELAXED);
    given += part;
  }
  if (bytes > given) __atomic_fetch_add(&row[last], bytes - given, __ATOMIC_RELAXED);
}

}  // namespace perfdm::io
