// A Data Manager histogram: 1000 buckets over [start, start + 1000 x width), folding as
// time grows (rules B1-B8). Plain C++: no actors, no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "messages/dm_types.hpp"
#include "messages/time.hpp"

namespace perfdm {

inline constexpr std::size_t bucket_count = 1000;             // B1
inline constexpr time_ns base_bucket_width = 200'000'000;     // B1: 0.2 s

// The smallest 0.2 s x 2^k whose 1000 buckets reach past `elapsed` (rule B6):
// bucket_count * width > elapsed, so a histogram created now does not fold at once.
time_ns width_covering(time_ns elapsed);

// A bucket that became complete (rule B7): every sample end since has moved past its end.
struct completed_bucket {
  std::uint32_t index;
  double value;  // NaN: no data
};

class histogram {
 public:
  histogram(metric_style style, time_ns start, time_ns width);

  metric_style style() const { return style_; }
  time_ns start() const { return start_; }
  time_ns width() const { return width_; }
  // First instant the histogram cannot hold: start + 1000 x width.
  time_ns end() const { return start_ + static_cast<time_ns>(bucket_count) * width_; }

  // B4: a sample ending at or past end() needs a fold first.
  bool needs_fold(time_ns sample_end) const { return sample_end >= end(); }

  // Adds a sample over [t0, t1) (B3); the part before start() is ignored (B8).
  // Preconditions: t0 <= t1, !needs_fold(t1) (the caller folds first, B4).
  // A zero-length COUNTER sample adds its amount to the bucket holding t0; a zero-length
  // SAMPLED sample carries no time and changes nothing.
  // Buckets that became complete are appended to `completed` (may be null), each once.
  void add(time_ns t0, time_ns t1, double value, std::vector<completed_bucket>* completed);

  // B4: width doubles, buckets 2j and 2j+1 merge into j, buckets 500..999 become NaN.
  void fold();

  double bucket(std::size_t i) const { return values_[i]; }  // NaN = no data (B2)
  // Highest bucket index holding data, or -1 when the histogram is empty.
  std::ptrdiff_t last_bucket_with_data() const;
  // Buckets [0, completed()) have been reported complete.
  std::size_t completed() const { return completed_; }
  // Heap and object bytes held by this histogram.
  std::size_t memory_bytes() const;

  // Empties every bucket (NaN) and forgets completion, keeping start and width.
  void clear();

 private:
  metric_style style_;
  time_ns start_;
  time_ns width_;
  std::size_t completed_ = 0;
  std::vector<double> values_;
  // SAMPLED only: time covered in each bucket (ns), the weight of its time-weighted mean.
  std::vector<float> covered_;
};

}  // namespace perfdm
