// The Data Manager histogram (rules B1-B8). See histogram.hpp.
#include "dm/histogram.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "dm/float_decimal.hpp"

namespace perfdm {

namespace {

constexpr double no_data = std::numeric_limits<double>::quiet_NaN();

// A SAMPLED value that came from float storage is exact only to about 2^-24 of its size, and
// the covered time it is weighted by too. A mean whose sum of weighted levels is within this
// fraction of the sum of their sizes cannot be told from 0 at float precision: it reads 0, so
// levels that cancel give 0, not the rounding residue (-9.2e-09). 2^-21 leaves room for the
// roundings of both factors and a few earlier ones.
constexpr double float_rounding_bound = 1.0 / (1 << 21);
// Arithmetic in double on values that never went through float storage.
constexpr double double_rounding_bound = 1.0 / (1LL << 50);

// NaN is "no data" (B2): NaN + x = x.
inline void accumulate(double& bucket, double amount) {
  bucket = std::isnan(bucket) ? amount : bucket + amount;
}

}  // namespace

time_ns width_covering(time_ns elapsed, time_ns base) {
  // bucket_count * width > elapsed  <=>  width > floor(elapsed / bucket_count) for integer
  // width; dividing instead of multiplying keeps the comparison free of overflow.
  const time_ns limit = elapsed / static_cast<time_ns>(bucket_count);
  time_ns width = base;
  while (width <= limit) width *= 2;
  return width;
}

histogram::histogram(metric_style style, time_ns start, time_ns width)
    : style_(style), start_(start), width_(width) {
  assert(width > 0);
  if (style_ == metric_style::counter) {
    sums_.assign(bucket_count, no_data);
  } else {
    means_.assign(bucket_count, 0.0f);
    covered_.assign(bucket_count, 0.0f);
  }
}

void histogram::add(time_ns t0, time_ns t1, double value,
                    std::vector<completed_bucket>* completed) {
  assert(t0 <= t1);
  assert(!needs_fold(t1));
  // B8: a sample that ends before start is ignored. One that ends at start has nothing after
  // it unless it has zero length: [start, start] is an instant of the histogram (B3).
  if (t1 < start_ || (t1 == start_ && t0 != t1)) return;

  // B8: only the part from start on counts. The clipped sample [a, t1) is non-empty unless
  // the sample itself has zero length.
  const time_ns a = t0 < start_ ? start_ : t0;
  // The bucket holding a: the only division; later boundaries are walked by addition.
  std::size_t j = static_cast<std::size_t>((a - start_) / width_);
  time_ns next = start_ + static_cast<time_ns>(j + 1) * width_;  // end of bucket j
  // k (B7): the number of buckets entirely before t1, found by the walk below.
  std::size_t k;

  if (t0 == t1) {
    // Zero length (B3): a COUNTER amount goes whole to the bucket holding t0; a SAMPLED
    // level carries no time and changes no bucket. Time still reached t1 (B7).
    if (style_ == metric_style::counter) accumulate(sums_[j], value);
    k = j;
  } else if (style_ == metric_style::counter) {
    if (t1 <= next && a == t0) {
      // Common case: the whole sample falls into one bucket.
      accumulate(sums_[j], value);
      k = t1 == next ? j + 1 : j;
    } else {
      // Spread in proportion to overlap time (B3) over the original length [t0, t1): the
      // part before start is lost (B8).
      const double length = static_cast<double>(t1 - t0);
      time_ns from = a;
      while (t1 > next) {
        accumulate(sums_[j], value * static_cast<double>(next - from) / length);
        from = next;
        next += width_;
        ++j;
      }
      accumulate(sums_[j], value * static_cast<double>(t1 - from) / length);
      k = t1 == next ? j + 1 : j;
    }
  } else {
    // SAMPLED (B3): each overlapped bucket keeps the time-weighted mean over its covered
    // time. Every overlap here is > 0. The bucket is updated as the open bucket, in double,
    // then written through to float storage (see histogram.hpp).
    time_ns from = a;
    for (;;) {
      const time_ns until = t1 < next ? t1 : next;
      const double overlap = static_cast<double>(until - from);
      if (open_.index != j) open(j);
      open_.weighted += value * overlap;
      open_.covered += overlap;
      open_.rounding += std::fabs(value * overlap) * double_rounding_bound;
      // Levels that cancel (see float_rounding_bound) store a mean of 0. The open sums keep
      // the residue, which is below the bound: off the chain from one add() to the next.
      const double weighted = std::fabs(open_.weighted) <= open_.rounding ? 0.0 : open_.weighted;
      means_[j] = static_cast<float>(weighted / open_.covered);
      covered_[j] = static_cast<float>(open_.covered);
      if (t1 <= next) break;
      from = next;
      next += width_;
      ++j;
    }
    k = t1 == next ? j + 1 : j;
  }

  // B7: report the buckets that became complete, each once. t1 < end(), so k < 1000.
  if (k > completed_) {
    if (completed != nullptr) {
      for (std::size_t i = completed_; i < k; ++i) {
        completed->push_back(completed_bucket{static_cast<std::uint32_t>(i), bucket(i)});
      }
    }
    completed_ = k;
  }
}

void histogram::open(std::size_t j) {
  open_.index = j;
  // Exact: a float times a float fits in a double. No data: 0 x 0.
  open_.covered = covered_[j];
  open_.weighted = static_cast<double>(means_[j]) * open_.covered;
  open_.rounding = std::fabs(open_.weighted) * float_rounding_bound;
}

void histogram::fold() {
  constexpr std::size_t half = bucket_count / 2;
  if (style_ == metric_style::counter) {
    double* v = sums_.data();
    for (std::size_t j = 0; j < half; ++j) {
      const double x = v[2 * j];
      const double y = v[2 * j + 1];
      // NaN is absent (B4): NaN + y = y, x + NaN = x, NaN + NaN = NaN.
      v[j] = std::isnan(x) ? y : (std::isnan(y) ? x : x + y);
    }
    std::fill(v + half, v + bucket_count, no_data);
  } else {
    float* m = means_.data();
    float* c = covered_.data();
    for (std::size_t j = 0; j < half; ++j) {
      const float x = m[2 * j];
      const float y = m[2 * j + 1];
      const float cx = c[2 * j];
      const float cy = c[2 * j + 1];
      if (cx == 0.0f) {
        m[j] = y;
        c[j] = cy;
      } else if (cy == 0.0f) {
        m[j] = x;
        c[j] = cx;
      } else {
        // Mean weighted by covered time (B4), in double; stored rounded once.
        const double total = static_cast<double>(cx) + static_cast<double>(cy);
        const double wx = static_cast<double>(x) * static_cast<double>(cx);
        const double wy = static_cast<double>(y) * static_cast<double>(cy);
        double weighted = wx + wy;
        // Halves that cancel read 0 (see float_rounding_bound); only levels of opposite
        // signs can.
        if ((x < 0.0f) != (y < 0.0f) &&
            std::fabs(weighted) <= (std::fabs(wx) + std::fabs(wy)) * float_rounding_bound)
          weighted = 0.0;
        m[j] = static_cast<float>(weighted / total);
        c[j] = static_cast<float>(total);
      }
    }
    std::fill(m + half, m + bucket_count, 0.0f);
    std::fill(c + half, c + bucket_count, 0.0f);
    // Buckets moved: the next add() reloads its bucket from float storage.
    open_ = open_bucket{};
  }
  width_ *= 2;
  // A merged bucket is complete only if both its halves were.
  completed_ /= 2;
}

double histogram::reading(metric_style style, double stored) {
  if (style == metric_style::counter || std::isnan(stored)) return stored;
  return float_as_decimal(static_cast<float>(stored));  // exact: stored is a float
}

std::ptrdiff_t histogram::last_bucket_with_data() const {
  for (std::ptrdiff_t i = static_cast<std::ptrdiff_t>(bucket_count) - 1; i >= 0; --i) {
    const auto b = static_cast<std::size_t>(i);
    if (style_ == metric_style::counter ? !std::isnan(sums_[b]) : covered_[b] != 0.0f) return i;
  }
  return -1;
}

std::size_t histogram::memory_bytes() const {
  return sizeof(*this) + sums_.capacity() * sizeof(double) +
         (means_.capacity() + covered_.capacity()) * sizeof(float);
}

void histogram::clear() {
  std::fill(sums_.begin(), sums_.end(), no_data);
  std::fill(means_.begin(), means_.end(), 0.0f);
  std::fill(covered_.begin(), covered_.end(), 0.0f);
  open_ = open_bucket{};
  completed_ = 0;
}

}  // namespace perfdm
