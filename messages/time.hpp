// Time inside the engine is integer nanoseconds: bucket boundaries are then exact
// (0.6 / 0.2 is not 3 in binary floating point, but 600'000'000 / 200'000'000 is).
// The external contract speaks decimal seconds; conversion happens at the edges.
#pragma once

#include <cmath>
#include <cstdint>

namespace perfdm {

using time_ns = std::int64_t;

inline constexpr time_ns ns_per_second = 1'000'000'000;

// The latest time the engine accepts (about 31 years): 1000 buckets of the widest width a
// histogram can reach before then still fit in 64 bits.
inline constexpr double max_time_seconds = 1e9;

inline time_ns to_ns(double seconds) { return static_cast<time_ns>(std::llround(seconds * 1e9)); }

inline double to_seconds(time_ns t) { return static_cast<double>(t) / 1e9; }

}  // namespace perfdm
