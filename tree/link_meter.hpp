// What one link of a tree of daemons carries, as its receiving end sees it (TOPOLOGY):
// samples per second and the watermark lag over the last few seconds. The engine
// keeps one per component, a relay one per child. Plain C++: the caller passes engine time.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "messages/time.hpp"

namespace perfdm {

class link_meter {
 public:
  // The span the figures cover: 10 buckets of 0.5 s.
  static constexpr time_ns window = 5 * ns_per_second;

  // The link began (its sender registered) at `since`.
  explicit link_meter(time_ns since = 0) : since_(since) {}

  // A batch arrived at `now` with `samples` samples and the sender's watermark
  // (`has_watermark` false: none came with it).
  void note(time_ns now, std::uint64_t samples, bool has_watermark, time_ns watermark);

  // Samples received over the last `window` up to `now` (or since the link began, if that is
  // later, counted as at least half a second), per second.
  double samples_per_s(time_ns now) const;

  // The watermark lag: the mean over the last `window` of (arrival - watermark), in seconds:
  // how far behind its present the sender had everything sent. How late the engine can
  // aggregate is bounded by it; it does not depend on whether samples flow. Negative only
  // when the clocks of two hosts disagree. None when no watermark arrived in the window.
  std::optional<double> lag_s(time_ns now) const;

 private:
  static constexpr int bucket_count = 10;
  static constexpr time_ns bucket_width = window / bucket_count;
  struct bucket {
    std::int64_t index = -1;  // which half second it holds (now / bucket_width)
    std::uint64_t samples = 0;
    double lag_sum = 0;  // seconds
    std::uint64_t lags = 0;
  };
  // Whether bucket `b` lies in the window that ends in the bucket of index `current`.
  static bool in_window(const bucket& b, std::int64_t current) {
    return b.index >= 0 && b.index <= current && b.index > current - bucket_count;
  }

  std::array<bucket, bucket_count> ring_{};
  time_ns since_;
};

}  // namespace perfdm
