// Tests of the Data Manager histogram, rules B1-B8 (docs/DM-RULES.md).
#include "dm/histogram.hpp"
#include "dm/time_base_widths.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

using namespace perfdm;

namespace {

constexpr time_ns ms = 1'000'000;  // one millisecond in ns
constexpr time_ns w0 = base_bucket_width;

bool all_nan(const histogram& h, std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < to; ++i) {
    if (!std::isnan(h.bucket(i))) return false;
  }
  return true;
}

// A SAMPLED mean is stored as float (histogram.hpp): compare it within float precision.
// (Levels and means exactly representable in float are compared exactly.)
Approx approx_level(double x) {
  return Approx(x).epsilon(std::numeric_limits<float>::epsilon());
}

std::vector<std::uint32_t> indices(const std::vector<completed_bucket>& v) {
  std::vector<std::uint32_t> out;
  for (const auto& b : v) out.push_back(b.index);
  return out;
}

}  // namespace

TEST_CASE("B1 1000 buckets of 0.2 s with exact integer boundaries", "[histogram]") {
  REQUIRE(bucket_count == 1000);
  REQUIRE(base_bucket_width == 200'000'000);

  histogram h(metric_style::counter, 0, base_bucket_width);
  CHECK(h.start() == 0);
  CHECK(h.width() == 200'000'000);
  CHECK(h.end() == 200 * ns_per_second);
  CHECK_FALSE(h.needs_fold(h.end() - 1));
  CHECK(h.needs_fold(h.end()));

  // 0.6 s is exactly the start of bucket 3, 0.6 s - 1 ns still in bucket 2.
  h.add(600 * ms, 600 * ms, 1.0, nullptr);
  h.add(600 * ms - 1, 600 * ms - 1, 10.0, nullptr);
  CHECK(h.bucket(3) == 1.0);
  CHECK(h.bucket(2) == 10.0);
  // The last bucket is [199.8 s, 200 s).
  h.add(h.end() - 1, h.end() - 1, 5.0, nullptr);
  CHECK(h.bucket(999) == 5.0);
  CHECK(h.last_bucket_with_data() == 999);

  // Boundaries are relative to an arbitrary start: [start + j w, start + (j+1) w).
  const time_ns start = 1'000'000'007;
  histogram g(metric_style::counter, start, base_bucket_width);
  g.add(start + 7 * w0, start + 7 * w0, 1.0, nullptr);
  g.add(start + 7 * w0 - 1, start + 7 * w0 - 1, 2.0, nullptr);
  CHECK(g.bucket(7) == 1.0);
  CHECK(g.bucket(6) == 2.0);
}

TEST_CASE("B2 a bucket is NaN until a sample touches it", "[histogram]") {
  for (auto style : {metric_style::counter, metric_style::sampled}) {
    histogram h(style, 0, base_bucket_width);
    CHECK(all_nan(h, 0, bucket_count));
    CHECK(h.last_bucket_with_data() == -1);

    // A sample of value 0 is data, not "no data".
    h.add(5 * w0 + 10 * ms, 5 * w0 + 20 * ms, 0.0, nullptr);
    CHECK(h.bucket(5) == 0.0);
    CHECK(all_nan(h, 0, 5));
    CHECK(all_nan(h, 6, bucket_count));
    CHECK(h.last_bucket_with_data() == 5);

    // A sample spanning buckets 10..12 touches exactly those.
    h.add(10 * w0 + 100 * ms, 12 * w0 + 100 * ms, 3.0, nullptr);
    CHECK(all_nan(h, 6, 10));
    CHECK_FALSE(std::isnan(h.bucket(10)));
    CHECK_FALSE(std::isnan(h.bucket(11)));
    CHECK_FALSE(std::isnan(h.bucket(12)));
    CHECK(all_nan(h, 13, bucket_count));
    CHECK(h.last_bucket_with_data() == 12);
  }
}

TEST_CASE("B2 clear empties every bucket and forgets completion", "[histogram]") {
  for (auto style : {metric_style::counter, metric_style::sampled}) {
    histogram h(style, 2 * ns_per_second, base_bucket_width);
    h.add(2 * ns_per_second, 3 * ns_per_second, 4.0, nullptr);
    REQUIRE(h.completed() == 5);
    h.fold();
    h.clear();
    CHECK(all_nan(h, 0, bucket_count));
    CHECK(h.last_bucket_with_data() == -1);
    CHECK(h.completed() == 0);
    CHECK(h.start() == 2 * ns_per_second);
    CHECK(h.width() == 2 * base_bucket_width);
    if (style == metric_style::sampled) {
      // Covered time is forgotten too: the next level is the whole mean.
      h.add(2 * ns_per_second, 2 * ns_per_second + 100 * ms, 8.0, nullptr);
      CHECK(h.bucket(0) == 8.0);
    }
  }
}

TEST_CASE("B3 COUNTER spreads an amount in proportion to overlap time", "[histogram]") {
  histogram h(metric_style::counter, 0, base_bucket_width);
  // [0.1, 0.5): 0.1 s in bucket 0, 0.2 s in bucket 1, 0.1 s in bucket 2.
  h.add(100 * ms, 500 * ms, 8.0, nullptr);
  CHECK(h.bucket(0) == 2.0);
  CHECK(h.bucket(1) == 4.0);
  CHECK(h.bucket(2) == 2.0);
  CHECK(std::isnan(h.bucket(3)));

  // Amounts add up (NaN + x = x for bucket 3).
  h.add(150 * ms, 250 * ms, 1.0, nullptr);  // 0.05 s each side of 0.2 s
  CHECK(h.bucket(0) == 2.5);
  CHECK(h.bucket(1) == 4.5);
  h.add(600 * ms, 700 * ms, 3.0, nullptr);
  CHECK(h.bucket(3) == 3.0);

  // [0.75, 0.85): 0.05 s each in buckets 3 and 4; [1.15, 1.35): 1:3 over buckets 5 and 6.
  h.add(750 * ms, 850 * ms, 2.0, nullptr);
  CHECK(h.bucket(3) == 4.0);
  CHECK(h.bucket(4) == 1.0);
  h.add(1150 * ms, 1350 * ms, 4.0, nullptr);  // 0.05 s in bucket 5, 0.15 s in bucket 6
  CHECK(h.bucket(5) == Approx(1.0).epsilon(1e-15));
  CHECK(h.bucket(6) == Approx(3.0).epsilon(1e-15));

  // A sample exactly covering one bucket goes whole into it, not into the next.
  h.add(10 * w0, 11 * w0, 7.0, nullptr);
  CHECK(h.bucket(10) == 7.0);
  CHECK(std::isnan(h.bucket(11)));

  // A long sample over many buckets conserves the amount.
  h.add(20 * w0 + 1, 120 * w0 + 1, 1000.0, nullptr);
  double total = 0.0;
  for (std::size_t i = 20; i <= 120; ++i) total += h.bucket(i);
  CHECK(total == Approx(1000.0).epsilon(1e-12));
  CHECK(h.bucket(50) == Approx(10.0).epsilon(1e-12));
  CHECK(h.bucket(120) == Approx(1000.0 / (100.0 * w0)).epsilon(1e-9));  // 1 ns of it
}

TEST_CASE("B3 zero-length COUNTER sample adds its whole amount to the bucket of t0",
          "[histogram]") {
  histogram h(metric_style::counter, 0, base_bucket_width);
  h.add(3 * w0, 3 * w0, 5.0, nullptr);  // on the boundary: bucket 3, not 2
  h.add(3 * w0 + 50 * ms, 3 * w0 + 50 * ms, 1.5, nullptr);
  CHECK(h.bucket(3) == 6.5);
  CHECK(std::isnan(h.bucket(2)));
  CHECK(std::isnan(h.bucket(4)));
}

TEST_CASE("B3 B8 B2 a zero-length COUNTER sample at start goes whole to bucket 0",
          "[histogram]") {
  for (time_ns start : {time_ns{0}, 1 * ns_per_second}) {
    INFO("start " << start);
    histogram h(metric_style::counter, start, base_bucket_width);
    std::vector<completed_bucket> done;
    h.add(start, start, 1.0, &done);  // ends at start, not before it (B8)
    CHECK(h.bucket(0) == 1.0);        // B2: touched, so no longer NaN
    CHECK(h.last_bucket_with_data() == 0);
    CHECK(done.empty());  // bucket 0 still filling (B7)
    h.add(start + w0, start + w0, 2.0, &done);
    REQUIRE(done.size() == 1);
    CHECK(done[0].value == 1.0);
    // A zero-length SAMPLED sample at start still carries no time.
    histogram s(metric_style::sampled, start, base_bucket_width);
    s.add(start, start, 1.0, nullptr);
    CHECK(s.last_bucket_with_data() == -1);
  }
}

TEST_CASE("B3 SAMPLED reads back as the shortest decimal naming its float", "[histogram]") {
  histogram h(metric_style::sampled, 0, base_bucket_width);
  std::vector<completed_bucket> done;
  h.add(0, w0, 0.1, &done);
  h.add(w0, 2 * w0, 2.7, &done);
  h.add(2 * w0, 3 * w0, -1.0 / 3.0, &done);
  h.add(3 * w0, 4 * w0, 1e-30, &done);
  CHECK(h.bucket(0) == static_cast<double>(0.1f));  // stored: 0.10000000149011612
  CHECK(h.reading(0) == 0.1);                        // given out
  CHECK(h.reading(1) == 2.7);
  CHECK(h.reading(2) == -0.33333334);
  CHECK(h.reading(3) == 1e-30);
  CHECK(std::isnan(h.reading(4)));
  REQUIRE(done.size() == 4);
  // Completed buckets carry the stored value; read the same way.
  CHECK(histogram::reading(metric_style::sampled, done[0].value) == 0.1);
  CHECK(histogram::reading(metric_style::sampled, done[1].value) == 2.7);
  // COUNTER sums are given out as they are, even when they happen to be a float.
  CHECK(histogram::reading(metric_style::counter, static_cast<double>(0.1f)) ==
        static_cast<double>(0.1f));
}

TEST_CASE("B3 B4 SAMPLED levels that cancel read exactly 0", "[histogram]") {
  SECTION("within one bucket") {
    histogram h(metric_style::sampled, 0, base_bucket_width);
    h.add(0, 50 * ms, 0.1, nullptr);
    h.add(50 * ms, 100 * ms, 0.2, nullptr);
    h.add(100 * ms, 200 * ms, -0.15, nullptr);
    CHECK(h.bucket(0) == 0.0);
  }
  SECTION("in a bucket taken up again from float storage") {
    histogram h(metric_style::sampled, 0, base_bucket_width);
    h.add(0, 100 * ms, 0.3, nullptr);
    h.add(200 * ms, 300 * ms, 1.0, nullptr);  // another bucket: bucket 0 is stored
    h.add(100 * ms, 200 * ms, -0.3, nullptr);
    CHECK(h.bucket(0) == 0.0);
    // Adding on from 0 gives the exact mean of what follows.
    h.add(100 * ms, 200 * ms, 0.6, nullptr);
    CHECK(h.bucket(0) == approx_level(0.2));
  }
  SECTION("in a fold") {
    histogram h(metric_style::sampled, 0, base_bucket_width);
    h.add(0, 50 * ms, 0.6, nullptr);
    h.add(250 * ms, 400 * ms, -0.2, nullptr);
    h.fold();
    CHECK(h.bucket(0) == 0.0);
  }
  SECTION("levels that nearly cancel keep their difference") {
    histogram h(metric_style::sampled, 0, base_bucket_width);
    h.add(0, 100 * ms, 1.0, nullptr);
    h.add(100 * ms, 200 * ms, -0.999, nullptr);
    CHECK(h.bucket(0) == approx_level(0.0005));
    h.add(200 * ms, 300 * ms, 1.0, nullptr);
    h.add(300 * ms, 400 * ms, -0.999, nullptr);
    h.fold();
    CHECK(h.bucket(0) == approx_level(0.0005));
  }
}

TEST_CASE("B3 SAMPLED holds the time-weighted mean over the covered part", "[histogram]") {
  histogram h(metric_style::sampled, 0, base_bucket_width);
  // Bucket 0 fully covered: 10 for 0.05 s, 20 for 0.15 s -> 17.5.
  h.add(0, 50 * ms, 10.0, nullptr);
  CHECK(h.bucket(0) == 10.0);
  h.add(50 * ms, 200 * ms, 20.0, nullptr);
  CHECK(h.bucket(0) == approx_level(17.5));

  // Bucket 1 partly covered: 4 for 0.05 s and 8 for 0.05 s -> 6, not diluted by gaps.
  h.add(200 * ms, 250 * ms, 4.0, nullptr);
  h.add(300 * ms, 350 * ms, 8.0, nullptr);
  CHECK(h.bucket(1) == approx_level(6.0));
  // Three equal covered times of 4, 8 and 14: their plain mean, over 0.15 s covered.
  h.add(350 * ms, 400 * ms, 14.0, nullptr);
  CHECK(h.bucket(1) == approx_level((4.0 * 50 + 8.0 * 50 + 14.0 * 50) / 150.0));

  // A level straddling boundaries is the level of every bucket it covers alone.
  h.add(500 * ms, 1100 * ms, 5.0, nullptr);
  CHECK(h.bucket(2) == 5.0);
  CHECK(h.bucket(3) == 5.0);
  CHECK(h.bucket(4) == 5.0);
  CHECK(h.bucket(5) == 5.0);
  CHECK(std::isnan(h.bucket(6)));
  // ... and its covered time per bucket is the overlap: bucket 2 has 0.1 s of 5.
  h.add(400 * ms, 500 * ms, 11.0, nullptr);
  CHECK(h.bucket(2) == approx_level(8.0));
  // Bucket 5 has 0.1 s of 5 too.
  h.add(1100 * ms, 1200 * ms, 1.0, nullptr);
  CHECK(h.bucket(5) == approx_level(3.0));

  // Levels do not add up like counters: a constant level stays exactly constant, stored as
  // the float nearest it and read back as that float's shortest decimal, 0.1.
  histogram c(metric_style::sampled, 0, base_bucket_width);
  for (time_ns t = 0; t < 200 * ms; t += 7 * ms) c.add(t, t + 7 * ms, 0.1, nullptr);
  CHECK(c.bucket(0) == static_cast<double>(0.1f));
  CHECK(c.bucket(1) == static_cast<double>(0.1f));
  CHECK(c.reading(0) == 0.1);
}

TEST_CASE("B3 zero-length SAMPLED sample changes no bucket", "[histogram]") {
  histogram h(metric_style::sampled, 0, base_bucket_width);
  h.add(3 * w0 + 10 * ms, 3 * w0 + 10 * ms, 9.0, nullptr);
  CHECK(all_nan(h, 0, bucket_count));
  h.add(3 * w0, 3 * w0 + 100 * ms, 2.0, nullptr);
  h.add(3 * w0 + 50 * ms, 3 * w0 + 50 * ms, 100.0, nullptr);
  CHECK(h.bucket(3) == 2.0);
  // It carried no covered time: the next 0.1 s of 4 gives (2 + 4) / 2.
  h.add(3 * w0 + 100 * ms, 4 * w0, 4.0, nullptr);
  CHECK(h.bucket(3) == approx_level(3.0));
}

TEST_CASE("B3 random samples match a reference model", "[histogram]") {
  std::mt19937_64 rng(12345);
  std::uniform_int_distribution<time_ns> len(0, 3 * w0);
  std::uniform_real_distribution<double> val(-5.0, 5.0);
  const time_ns start = 3 * w0 + 17;
  for (auto style : {metric_style::counter, metric_style::sampled}) {
    histogram h(style, start, base_bucket_width);
    std::vector<double> amount(bucket_count, 0.0), weighted(bucket_count, 0.0),
        time(bucket_count, 0.0);
    std::vector<bool> touched(bucket_count, false);
    time_ns t = 0;
    while (true) {
      const time_ns t0 = t + len(rng) / 4 - w0 / 8;  // overlaps and gaps, some before start
      const time_ns t1 = t0 + len(rng);
      if (h.needs_fold(t1)) break;
      const double v = val(rng);
      h.add(t0, t1, v, nullptr);
      t = t1;
      // Reference: per-bucket overlap computed independently in long double.
      for (std::size_t j = 0; j < bucket_count; ++j) {
        const time_ns b0 = start + static_cast<time_ns>(j) * w0;
        const time_ns b1 = b0 + w0;
        if (t0 == t1) {
          if (style == metric_style::counter && t0 >= b0 && t0 < b1) {
            amount[j] += v;
            touched[j] = true;
          }
          continue;
        }
        const time_ns lo = std::max(std::max(t0, b0), start), hi = std::min(t1, b1);
        if (hi <= lo) continue;
        touched[j] = true;
        amount[j] += static_cast<double>(static_cast<long double>(v) * (hi - lo) / (t1 - t0));
        weighted[j] += v * static_cast<double>(hi - lo);
        time[j] += static_cast<double>(hi - lo);
      }
    }
    for (std::size_t j = 0; j < bucket_count; ++j) {
      INFO("bucket " << j);
      if (!touched[j]) {
        CHECK(std::isnan(h.bucket(j)));
      } else if (style == metric_style::counter) {
        CHECK(h.bucket(j) == Approx(amount[j]).margin(1e-9));
      } else {
        CHECK(h.bucket(j) == Approx(weighted[j] / time[j]).margin(1e-5));
      }
    }
  }
}

TEST_CASE("B3 SAMPLED means keep at least 7 significant digits", "[histogram]") {
  // Means are stored as float (24-bit significand, histogram.hpp): at 1e9 a float step is
  // 64. Seven significant digits: relative error at most 5e-7.
  auto digits7 = [](double actual, long double exact) {
    return std::abs(static_cast<long double>(actual) - exact) <= 5e-7L * std::abs(exact);
  };
  const double level = 1e9 + 123;

  SECTION("a single level reads back as the nearest float") {
    histogram h(metric_style::sampled, 0, base_bucket_width);
    h.add(10 * ms, 60 * ms, level, nullptr);
    CHECK(h.bucket(0) == static_cast<double>(static_cast<float>(level)));  // 1e9 + 128
    // Its shortest decimal is "1000000128": no form with fewer characters names that float.
    CHECK(h.reading(0) == h.bucket(0));
    CHECK(std::abs(h.bucket(0) - level) <= 32.0);
    CHECK(digits7(h.bucket(0), level));
  }

  SECTION("many samples in one bucket do not drift") {
    // 20480 samples of 0.01 s per 204.8 s bucket, a slow ramp of levels: a running mean
    // updated in float would stick (each update's share rounds away) and be off by ~5e-6.
    const time_ns width = base_bucket_width << 10;
    histogram h(metric_style::sampled, 0, width);
    constexpr std::size_t buckets = 3;
    const std::int64_t per_bucket = width / (10 * ms);
    std::vector<long double> sum(buckets, 0.0L);
    for (std::int64_t i = 0; i < per_bucket * static_cast<std::int64_t>(buckets); ++i) {
      const double v = level + 1e4 * static_cast<double>(i % per_bucket) / per_bucket;
      h.add(i * 10 * ms, (i + 1) * 10 * ms, v, nullptr);
      sum[static_cast<std::size_t>(i / per_bucket)] += v;
    }
    for (std::size_t j = 0; j < buckets; ++j) {
      const long double exact = sum[j] / per_bucket;
      INFO("bucket " << j << ": off by " << static_cast<double>(h.bucket(j) - exact));
      CHECK(digits7(h.bucket(j), exact));
      // In fact one rounding to float: within one float step.
      CHECK(std::abs(static_cast<long double>(h.bucket(j)) - exact) <= 64.0L);
    }
  }

  SECTION("through folds and out-of-order samples") {
    // 0.01 s samples of levels around 1e9 + 123 over 1000 s: three folds, to 1.6 s buckets.
    // Every 7th sample is sent once more later, late, into an already filled bucket.
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> noise(-500.0, 500.0);
    histogram h(metric_style::sampled, 0, base_bucket_width);
    const time_ns end = 1000 * ns_per_second;
    const time_ns final_width = 8 * base_bucket_width;
    std::vector<long double> weighted(bucket_count, 0.0L), covered(bucket_count, 0.0L);
    auto add = [&](time_ns t0, time_ns t1, double v) {
      while (h.needs_fold(t1)) h.fold();
      h.add(t0, t1, v, nullptr);
      const std::size_t j = static_cast<std::size_t>(t0 / final_width);  // never straddles
      weighted[j] += static_cast<long double>(v) * (t1 - t0);
      covered[j] += t1 - t0;
    };
    time_ns late = -1;
    double late_level = 0.0;
    for (time_ns t = 0; t < end; t += 10 * ms) {
      const double v = level + 2e3 * static_cast<double>(t) / end + noise(rng);
      add(t, t + 10 * ms, v);
      if (late >= 0 && t % (5 * ns_per_second) == 0) {
        add(late, late + 10 * ms, late_level);
        late = -1;
      }
      if ((t / (10 * ms)) % 7 == 0 && late < 0) {
        late = t;
        late_level = v + 100.0;
      }
    }
    REQUIRE(h.width() == final_width);
    for (std::size_t j = 0; j < static_cast<std::size_t>(end / final_width); ++j) {
      const long double exact = weighted[j] / covered[j];
      INFO("bucket " << j << ": off by " << static_cast<double>(h.bucket(j) - exact));
      CHECK(digits7(h.bucket(j), exact));
    }
  }
}

TEST_CASE("B4 fold and clear reach the SAMPLED bucket being filled", "[histogram]") {
  histogram h(metric_style::sampled, 0, base_bucket_width);
  h.add(200 * ms, 300 * ms, 7.0, nullptr);  // bucket 1: 7 over 0.1 s
  h.add(0, 100 * ms, 2.0, nullptr);         // bucket 0: 2 over 0.1 s, the one being filled
  h.fold();                                 // bucket 0: 4.5 over 0.2 s
  CHECK(h.bucket(0) == 4.5);
  // 10 over 0.1 s more: (4.5 x 0.2 + 10 x 0.1) / 0.3, from the merged bucket, not from
  // bucket 0 as it was before the fold.
  h.add(100 * ms, 200 * ms, 10.0, nullptr);
  CHECK(h.bucket(0) == approx_level((4.5 * 0.2 + 10.0 * 0.1) / 0.3));
  h.clear();
  h.add(0, 100 * ms, 5.0, nullptr);
  CHECK(h.bucket(0) == 5.0);
  CHECK(h.last_bucket_with_data() == 0);
}

TEST_CASE("B4 fold doubles width and merges pairs (COUNTER sums, NaN absent)", "[histogram]") {
  const time_ns start = 5 * ns_per_second;
  histogram h(metric_style::counter, start, base_bucket_width);
  auto at = [&](std::size_t j, double v) {
    const time_ns t = start + static_cast<time_ns>(j) * w0 + 10 * ms;
    h.add(t, t, v, nullptr);
  };
  at(0, 1.0);
  at(1, 2.0);  // 0 <- 1 + 2
  at(3, 4.0);  // 1 <- NaN + 4
  at(4, 5.0);  // 2 <- 5 + NaN
  //              3 <- NaN + NaN (buckets 6, 7 untouched)
  at(8, -1.0);
  at(9, 1.0);  // 4 <- -1 + 1 = 0 (data, not NaN)
  at(998, 7.0);
  at(999, 8.0);  // 499 <- 15
  at(600, 3.0);  // 300 <- 3

  h.fold();
  CHECK(h.start() == start);
  CHECK(h.width() == 2 * base_bucket_width);
  CHECK(h.end() == start + 1000 * 2 * base_bucket_width);
  CHECK(h.bucket(0) == 3.0);
  CHECK(h.bucket(1) == 4.0);
  CHECK(h.bucket(2) == 5.0);
  CHECK(std::isnan(h.bucket(3)));
  CHECK(h.bucket(4) == 0.0);
  CHECK(h.bucket(300) == 3.0);
  CHECK(h.bucket(499) == 15.0);
  CHECK(all_nan(h, 5, 300));
  CHECK(all_nan(h, 301, 499));
  CHECK(all_nan(h, 500, bucket_count));
  CHECK(h.last_bucket_with_data() == 499);

  // New samples use the doubled width: [0.4 s, 0.8 s) is bucket 1.
  h.add(start + 2 * w0, start + 4 * w0, 10.0, nullptr);
  CHECK(h.bucket(1) == 14.0);
  CHECK(h.bucket(2) == 5.0);

  // A second fold: 0 <- 3 + 14, 1 <- 5 + NaN, 249 <- NaN + 15, 250..999 NaN.
  h.fold();
  CHECK(h.width() == 4 * base_bucket_width);
  CHECK(h.bucket(0) == 17.0);
  CHECK(h.bucket(1) == 5.0);
  CHECK(h.bucket(2) == 0.0);
  CHECK(h.bucket(150) == 3.0);
  CHECK(h.bucket(249) == 15.0);
  CHECK(all_nan(h, 250, bucket_count));
}

TEST_CASE("B4 fold of SAMPLED weights the mean by covered time", "[histogram]") {
  histogram h(metric_style::sampled, 0, base_bucket_width);
  // Bucket 0: 10 over [0, 0.05); bucket 1: 40 over [0.25, 0.4).
  h.add(0, 50 * ms, 10.0, nullptr);
  h.add(250 * ms, 400 * ms, 40.0, nullptr);
  // Bucket 2 only: 6 over [0.4, 0.6); bucket 5 only: 9 over [1.0, 1.1).
  h.add(400 * ms, 600 * ms, 6.0, nullptr);
  h.add(1100 * ms, 1150 * ms, 9.0, nullptr);
  // Buckets 8, 9: 1 for 0.2 s and 3 for 0.05 s.
  h.add(8 * w0, 9 * w0, 1.0, nullptr);
  h.add(9 * w0, 9 * w0 + 50 * ms, 3.0, nullptr);
  // Data in the upper half moves down: buckets 700, 701 -> 350.
  h.add(700 * w0 + 150 * ms, 701 * w0 + 50 * ms, 2.0, nullptr);  // 0.05 s + 0.05 s of 2
  h.add(701 * w0 + 50 * ms, 701 * w0 + 100 * ms, 5.0, nullptr);  // 0.05 s of 5

  h.fold();
  // (10 x 0.05 + 40 x 0.15) / 0.2 = 32.5; the unweighted mean would be 25.
  CHECK(h.bucket(0) == approx_level(32.5));
  CHECK(h.bucket(1) == 6.0);                                           // 6 + NaN
  CHECK(h.bucket(2) == 9.0);                                           // NaN + 9
  CHECK(std::isnan(h.bucket(3)));                                      // NaN + NaN
  CHECK(h.bucket(4) == approx_level((1.0 * 200 + 3.0 * 50) / 250));    // 1.4
  CHECK(h.bucket(350) == approx_level((2.0 * 100 + 5.0 * 50) / 150));  // 3
  CHECK(all_nan(h, 500, bucket_count));
  // Buckets 500..999 are empty, covered time included: a new level there is the mean.
  h.add(700 * 2 * w0, 700 * 2 * w0 + 100 * ms, 4.0, nullptr);
  CHECK(h.bucket(700) == 4.0);

  // Covered time survives the fold: bucket 0 holds 32.5 over 0.2 s; 0 over another 0.2 s
  // halves it. (Were the weight lost or reset to the width, this would differ.)
  h.add(50 * ms, 250 * ms, 0.0, nullptr);
  CHECK(h.bucket(0) == approx_level(16.25));
  // Bucket 2 (9 over 0.05 s) plus 1 over 0.15 s -> 3.
  h.add(850 * ms, 1000 * ms, 1.0, nullptr);
  CHECK(h.bucket(2) == approx_level(3.0));

  // A second fold weights by the summed covered time: bucket 0 (16.25 over 0.4 s) with
  // bucket 1 (6 over 0.2 s) -> (6.5 + 1.2) / 0.6.
  h.fold();
  CHECK(h.bucket(0) == approx_level((16.25 * 0.4 + 6.0 * 0.2) / 0.6));
  CHECK(h.bucket(350) == 4.0);  // NaN + 4 (bucket 700 above)
  CHECK(all_nan(h, 250, 350));
  CHECK(all_nan(h, 351, bucket_count));
}

TEST_CASE("B4 fold halves completion: a merged bucket is complete only if both halves were",
          "[histogram]") {
  for (auto style : {metric_style::counter, metric_style::sampled}) {
    histogram h(style, 0, base_bucket_width);
    std::vector<completed_bucket> done;
    h.add(0, 5 * w0 + 10 * ms, 1.0, &done);  // buckets 0..4 complete
    REQUIRE(h.completed() == 5);
    h.fold();
    CHECK(h.completed() == 2);  // 0 <- 0,1 and 1 <- 2,3 complete; 2 <- 4,5 is not
    h.add(6 * w0, 6 * w0 + 10 * ms, 1.0, &done);
    h.fold();
    CHECK(h.completed() == 1);
  }
  histogram h(metric_style::counter, 0, base_bucket_width);
  h.add(0, 6 * w0, 1.0, nullptr);
  REQUIRE(h.completed() == 6);
  h.fold();
  CHECK(h.completed() == 3);
}

TEST_CASE("B4 repeated folds until a far sample fits", "[histogram]") {
  histogram h(metric_style::counter, 0, base_bucket_width);
  h.add(0, 100 * ms, 1.0, nullptr);
  const time_ns t = 1000 * ns_per_second;  // needs 0.2 s x 8 = 1.6 s buckets
  int folds = 0;
  while (h.needs_fold(t + 1) && folds < 64) {
    h.fold();
    ++folds;
  }
  CHECK(folds == 3);
  CHECK(h.width() == 8 * base_bucket_width);
  h.add(t, t + 1, 2.0, nullptr);
  CHECK(h.bucket(0) == 1.0);
  CHECK(h.bucket(625) == 2.0);  // 1000 / 1.6
}

TEST_CASE("B5 buckets are relative to the histogram's own start (time base)", "[histogram]") {
  histogram global(metric_style::counter, 0, base_bucket_width);
  const time_ns phase_start = 3 * ns_per_second;
  histogram phase(metric_style::counter, phase_start, base_bucket_width);
  global.add(3 * ns_per_second, 3 * ns_per_second + 100 * ms, 1.0, nullptr);
  phase.add(3 * ns_per_second, 3 * ns_per_second + 100 * ms, 1.0, nullptr);
  CHECK(global.bucket(15) == 1.0);
  CHECK(phase.bucket(0) == 1.0);
  CHECK(phase.last_bucket_with_data() == 0);
  CHECK(phase.end() == phase_start + 200 * ns_per_second);
  // The same sample end can need a fold in one time base and not in the other.
  CHECK(global.needs_fold(200 * ns_per_second));
  CHECK_FALSE(phase.needs_fold(200 * ns_per_second));
}

TEST_CASE("B6 width_covering picks the smallest 0.2 s x 2^k whose buckets pass elapsed",
          "[histogram]") {
  CHECK(width_covering(0) == 200'000'000);
  CHECK(width_covering(-5 * ns_per_second) == 200'000'000);
  CHECK(width_covering(1) == 200'000'000);
  CHECK(width_covering(200 * ns_per_second - 1) == 200'000'000);
  // 1000 x 0.2 s = 200 s does not pass 200 s.
  CHECK(width_covering(200 * ns_per_second) == 400'000'000);
  CHECK(width_covering(400 * ns_per_second - 1) == 400'000'000);
  CHECK(width_covering(400 * ns_per_second) == 800'000'000);
  // 10^6 s: 2^k > 5000 -> k = 13.
  CHECK(width_covering(1'000'000 * ns_per_second) == 200'000'000LL * 8192);
  // The result never needs a fold for a sample ending at start + elapsed.
  for (time_ns e : {time_ns{0}, time_ns{123'456'789'012}, time_ns{200'000'000'000}}) {
    histogram h(metric_style::counter, 0, width_covering(e));
    CHECK_FALSE(h.needs_fold(e));
    if (h.width() > base_bucket_width) {
      CHECK(histogram(metric_style::counter, 0, h.width() / 2).needs_fold(e));
    }
  }
  // No overflow near the top of the range.
  CHECK(width_covering(std::numeric_limits<time_ns>::max()) > 0);
}

TEST_CASE("C2 B6 a new phase starts on a global bucket boundary and covers the time since",
          "[histogram]") {
  const time_ns w = base_bucket_width;
  // 5.3 s with 0.2 s buckets: 5.2 s; 0.1 s since then takes the base width.
  auto b = new_phase_base(5'300 * ms, w, 0, w);
  CHECK(b.start == 5'200 * ms);
  CHECK(b.width == w);
  // Never before the phase it ends.
  b = new_phase_base(5'300 * ms, w, 5'250 * ms, w);
  CHECK(b.start == 5'250 * ms);
  // Before the first bucket ends: phase 0's start, the global base and its width.
  b = new_phase_base(100 * ms, 4 * w, 0, w);
  CHECK(b.start == 0);
  CHECK(b.width == 4 * w);
  // Later, with 0.4 s global buckets: the phase's own base starts empty, 0.1 s since its start.
  b = new_phase_base(300 * ns_per_second + 100 * ms, 2 * w, 100 * ns_per_second, w);
  CHECK(b.start == 300 * ns_per_second);
  CHECK(b.width == w);
}

TEST_CASE("B7 completed buckets are reported once, the filling one is not", "[histogram]") {
  histogram h(metric_style::counter, 0, base_bucket_width);
  std::vector<completed_bucket> done;

  h.add(0, 100 * ms, 1.0, &done);
  CHECK(done.empty());  // bucket 0 still filling
  CHECK(h.completed() == 0);

  h.add(100 * ms, 200 * ms, 2.0, &done);  // ends exactly at the end of bucket 0
  REQUIRE(done.size() == 1);
  CHECK(done[0].index == 0);
  CHECK(done[0].value == 3.0);
  CHECK(h.completed() == 1);

  done.clear();
  h.add(200 * ms, 700 * ms, 5.0, &done);  // buckets 1, 2 complete; bucket 3 filling
  CHECK(indices(done) == std::vector<std::uint32_t>{1, 2});
  CHECK(done[0].value == 2.0);
  CHECK(done[1].value == 2.0);
  CHECK(h.completed() == 3);

  // The same end again reports nothing.
  done.clear();
  h.add(650 * ms, 700 * ms, 1.0, &done);
  CHECK(done.empty());

  // A gap: buckets 3 (data) and 4 (NaN) complete.
  h.add(1000 * ms, 1100 * ms, 1.0, &done);
  CHECK(indices(done) == std::vector<std::uint32_t>{3, 4});
  CHECK(done[0].value == 2.0);  // 1 of the 5 + 1
  CHECK(std::isnan(done[1].value));
  CHECK(h.completed() == 5);

  // A late sample changes an already reported bucket but does not report it again.
  done.clear();
  h.add(0, 100 * ms, 10.0, &done);
  CHECK(done.empty());
  CHECK(h.bucket(0) == 13.0);
  CHECK(h.completed() == 5);

  // A zero-length sample moves completion too: its end is at 1.4 s.
  h.add(1400 * ms, 1400 * ms, 1.0, &done);
  CHECK(indices(done) == std::vector<std::uint32_t>{5, 6});
  CHECK(h.completed() == 7);

  // Reporting with a null list still advances completion: nothing is reported twice.
  h.add(1400 * ms, 2 * ns_per_second, 1.0, nullptr);
  CHECK(h.completed() == 10);
  done.clear();
  h.add(2 * ns_per_second, 2200 * ms, 1.0, &done);
  CHECK(indices(done) == std::vector<std::uint32_t>{10});

  // The last bucket is never reported (t1 < end()); the one before is.
  done.clear();
  h.add(h.end() - 1, h.end() - 1, 1.0, &done);
  CHECK(done.size() == 999 - 11);
  CHECK(done.front().index == 11);
  CHECK(done.back().index == 998);
  CHECK(h.completed() == 999);
}

TEST_CASE("B7 completion after a fold continues at the merged index", "[histogram]") {
  for (auto style : {metric_style::counter, metric_style::sampled}) {
    histogram h(style, 0, base_bucket_width);
    std::vector<completed_bucket> done;
    for (time_ns t = 0; t < 5 * w0 + 100 * ms; t += 100 * ms) {
      h.add(t, t + 100 * ms, 1.0, &done);  // 0.1 s steps: buckets 0..4 complete
    }
    CHECK(indices(done) == std::vector<std::uint32_t>{0, 1, 2, 3, 4});
    h.fold();
    REQUIRE(h.completed() == 2);
    done.clear();
    // Width 0.4 s: ending at 1.2 s completes bucket 2 = old buckets 4, 5, reported once.
    h.add(1100 * ms, 1200 * ms, 1.0, &done);
    REQUIRE(done.size() == 1);
    CHECK(done[0].index == 2);
    const double expected = style == metric_style::counter ? 4.0 : 1.0;
    CHECK(done[0].value == expected);
    done.clear();
    h.add(1200 * ms, 1300 * ms, 1.0, &done);
    CHECK(done.empty());
    h.add(1300 * ms, 2 * ns_per_second, 1.0, &done);
    CHECK(indices(done) == std::vector<std::uint32_t>{3, 4});
    CHECK(h.completed() == 5);
  }
}

TEST_CASE("B8 the part of a sample before start is ignored", "[histogram]") {
  const time_ns start = 1 * ns_per_second;
  SECTION("COUNTER keeps only the overlapping share of the amount") {
    histogram h(metric_style::counter, start, base_bucket_width);
    std::vector<completed_bucket> done;
    h.add(500 * ms, 1000 * ms, 10.0, &done);  // ends at start: nothing
    h.add(100 * ms, 200 * ms, 10.0, &done);   // entirely before
    CHECK(all_nan(h, 0, bucket_count));
    CHECK(done.empty());
    CHECK(h.completed() == 0);
    // [0.9, 1.1): half of it after start -> 5 in bucket 0.
    h.add(900 * ms, 1100 * ms, 10.0, &done);
    CHECK(h.bucket(0) == 5.0);
    CHECK(all_nan(h, 1, bucket_count));
    // [0.6, 1.4): 0.2 s in bucket 0 and 0.2 s in bucket 1 of 0.8 s -> 2 each.
    h.add(600 * ms, 1400 * ms, 8.0, &done);
    CHECK(h.bucket(0) == 7.0);
    CHECK(h.bucket(1) == 2.0);
    CHECK(indices(done) == std::vector<std::uint32_t>{0, 1});
    // A zero-length sample before start: nothing.
    h.add(999 * ms, 999 * ms, 100.0, &done);
    CHECK(h.bucket(0) == 7.0);
  }
  SECTION("SAMPLED covers only the overlapping time") {
    histogram h(metric_style::sampled, start, base_bucket_width);
    h.add(0, 1000 * ms, 50.0, nullptr);
    CHECK(all_nan(h, 0, bucket_count));
    h.add(900 * ms, 1100 * ms, 7.0, nullptr);
    CHECK(h.bucket(0) == 7.0);
    // Covered 0.1 s, not 0.2 s: adding 1 over 0.1 s gives 4 (not 5).
    h.add(1100 * ms, 1200 * ms, 1.0, nullptr);
    CHECK(h.bucket(0) == approx_level(4.0));
  }
}

TEST_CASE("B1 memory footprint per histogram", "[histogram]") {
  histogram counter(metric_style::counter, 0, base_bucket_width);
  histogram sampled(metric_style::sampled, 0, base_bucket_width);
  // COUNTER: a double sum per bucket. SAMPLED: a float mean and a float covered time.
  CHECK(counter.memory_bytes() >= sizeof(histogram) + bucket_count * sizeof(double));
  CHECK(counter.memory_bytes() < 8500);
  CHECK(sampled.memory_bytes() >= sizeof(histogram) + bucket_count * 2 * sizeof(float));
  CHECK(sampled.memory_bytes() < 8500);
  // Folding and clearing do not grow it.
  const std::size_t before = sampled.memory_bytes();
  sampled.add(0, 100 * ms, 1.0, nullptr);
  sampled.fold();
  sampled.clear();
  CHECK(sampled.memory_bytes() == before);
}
