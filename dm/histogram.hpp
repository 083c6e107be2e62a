// A Data Manager histogram: 1000 buckets over [start, start + 1000 x width), folding as
// time grows (rules B1-B8). Plain C++: no actors, no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "messages/dm_types.hpp"
#include "messages/time.hpp"

namespace perfdm {

inline constexpr std::size_t bucket_count = 1000;          // B1
inline constexpr time_ns base_bucket_width = 200'000'000;  // B1: 0.2 s

// The smallest 0.2 s x 2^k whose 1000 buckets reach past `elapsed` (rule B6):
// bucket_count * width > elapsed, so a histogram created now does not fold at once.
time_ns width_covering(time_ns elapsed, time_ns base = base_bucket_width);

// A bucket that became complete (rule B7): every sample end since has moved past its end.
struct completed_bucket {
  std::uint32_t index;
  double value;  // as stored (histogram::bucket); NaN: no data
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

  // NaN = no data (B2). A SAMPLED mean is the float it is stored as (exact in double).
  double bucket(std::size_t i) const {
    if (style_ == metric_style::counter) return sums_[i];
    return covered_[i] == 0.0f ? std::numeric_limits<double>::quiet_NaN()
                               : static_cast<double>(means_[i]);
  }
  // The bucket as DATA replies and data events give it (docs/PROTOCOL.md §7, choice 22).
  double reading(std::size_t i) const { return reading(style_, bucket(i)); }
  // A stored value (bucket(), completed_bucket::value) as it is given out: a SAMPLED mean as
  // the shortest decimal naming its float (float_as_decimal), so 0.1 reads 0.1; a COUNTER
  // sum unchanged. Done where values leave the histogram, not in add(): the conversion
  // costs about 35 ns, paid once per value given out rather than per completed bucket.
  static double reading(metric_style style, double stored);
  // Highest bucket index holding data, or -1 when the histogram is empty.
  std::ptrdiff_t last_bucket_with_data() const;
  // Buckets [0, completed()) have been reported complete.
  std::size_t completed() const { return completed_; }
  // Heap and object bytes held by this histogram.
  std::size_t memory_bytes() const;

  // Empties every bucket (NaN) and forgets completion, keeping start and width.
  void clear();

 private:
  // Storage: a COUNTER bucket is a double sum (sums grow large and add up many small
  // amounts); a SAMPLED bucket is a float mean and a float covered time, 8 bytes too, so
  // either style holds about 8 KB.
  //
  // Precision of a SAMPLED mean: stored as float (24-bit significand, as Paradyn stored
  // every bucket), so its relative error is <= 2^-24 (about 6e-8): about 7 significant
  // digits, e.g. a level of 1e9 + 123 reads back within 32 of it. That is enough for a mean
  // level. All arithmetic is in double; only storage rounds. Levels beyond float range
  // (|x| > 3.4e38) read back as +-inf, below 1.2e-38 with fewer digits. A mean is read back
  // as the shortest decimal naming its float (0.1, not 0.10000000149011612), so what is
  // printed claims no digits the bucket does not hold. Levels that cancel to within float
  // precision of their sizes give a mean of exactly 0 (histogram.cpp, float_rounding_bound).
  //
  // A running mean updated in float storage would lose far more: once a bucket has n
  // samples, each moves the mean by about (level - mean) / n, which is rounded away when
  // below half a float step, so a slowly changing level leaves the mean stuck (1000
  // samples of a ramp from 1e9 to 1e9 + 1e4: off by 5e-6, under 6 digits). So the bucket
  // add() touched last, normally the one being filled, is also kept in double in `open_`
  // and written through to float storage after every update. A bucket's stored mean is
  // thus one rounding of the exact mean, plus one per fold and per reopening (a late
  // sample, or a sample after a fold), however many samples it holds.
  struct open_bucket {
    std::size_t index = bucket_count;  // bucket_count: none
    // Sum of level x overlap (ns) and of overlap: mean = weighted / covered. Two additions
    // per update; the division only feeds the float store, off the dependency chain from
    // one add() to the next.
    double weighted = 0.0;
    double covered = 0.0;
    // Bound on the rounding error in `weighted`: |weighted| at or below it is 0.
    double rounding = 0.0;
  };

  // Makes bucket j the open bucket, from its float storage.
  void open(std::size_t j);

  metric_style style_;
  time_ns start_;
  time_ns width_;
  std::size_t completed_ = 0;
  std::vector<double> sums_;  // COUNTER only, else empty
  // SAMPLED only, else empty: the time covered (ns), the weight of the mean, 0 = no data;
  // and the time-weighted mean of the levels, 0 when there is no data.
  std::vector<float> covered_;
  std::vector<float> means_;
  open_bucket open_;  // SAMPLED only: means_[open_.index] is open_ rounded
};

}  // namespace perfdm
