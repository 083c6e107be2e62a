// Histogram throughput (rules B1-B8): consecutive 0.01 s samples into one histogram,
// folding whenever a sample would not fit, and the cost of one fold.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "dm/histogram.hpp"

using namespace perfdm;

namespace {

constexpr time_ns sample_length = 10'000'000;  // 0.01 s

// Consecutive 0.01 s samples: 20 per 0.2 s bucket, so one in 20 ends on a boundary and
// completes a bucket; the histogram folds as virtual time grows, as in the engine.
void add_consecutive(benchmark::State& state, metric_style style) {
  histogram h(style, 0, base_bucket_width);
  std::vector<completed_bucket> completed;
  completed.reserve(bucket_count);
  time_ns t = 0;
  double value = 1.0;
  std::int64_t folds = 0;
  for (auto _ : state) {
    const time_ns t1 = t + sample_length;
    if (h.needs_fold(t1)) {
      h.fold();
      ++folds;
    }
    h.add(t, t1, value, &completed);
    completed.clear();
    t = t1;
    value += 0.5;
    if (value > 100.0) value = 1.0;
  }
  benchmark::DoNotOptimize(h.bucket(0));
  state.SetItemsProcessed(state.iterations());
  state.counters["folds"] = static_cast<double>(folds);
}

void BM_add_counter(benchmark::State& state) {
  add_consecutive(state, metric_style::counter);
}
void BM_add_sampled(benchmark::State& state) {
  add_consecutive(state, metric_style::sampled);
}

// Consecutive samples of 0.15 s at the base width: three in four straddle one bucket
// boundary. Instead of folding (which would soon make every sample fit one wide bucket),
// the histogram is cleared and time restarts when it is full.
void add_straddling(benchmark::State& state, metric_style style) {
  histogram h(style, 0, base_bucket_width);
  std::vector<completed_bucket> completed;
  completed.reserve(bucket_count);
  time_ns t = 0;
  for (auto _ : state) {
    time_ns t1 = t + 150'000'000;
    if (h.needs_fold(t1)) {
      h.clear();
      t = 0;
      t1 = 150'000'000;
    }
    h.add(t, t1, 2.0, &completed);
    completed.clear();
    t = t1;
  }
  benchmark::DoNotOptimize(h.bucket(0));
  state.SetItemsProcessed(state.iterations());
}

void BM_add_counter_straddling(benchmark::State& state) {
  add_straddling(state, metric_style::counter);
}
void BM_add_sampled_straddling(benchmark::State& state) {
  add_straddling(state, metric_style::sampled);
}

// A histogram with data in about 90 % of its buckets at random, so fold's NaN tests do
// not all go one way.
histogram filled(metric_style style) {
  histogram h(style, 0, base_bucket_width);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> level(0.0, 10.0);
  std::uniform_int_distribution<int> percent(0, 99);
  for (std::size_t j = 0; j < bucket_count; ++j) {
    if (percent(rng) < 10) continue;
    const time_ns b = static_cast<time_ns>(j) * base_bucket_width;
    h.add(b, b + base_bucket_width / 2 + percent(rng) * 1'000'000, level(rng), nullptr);
  }
  return h;
}

// One fold of a full histogram. A fold doubles the width, so each iteration first copies a
// full template back (8 KB / 12 KB memcpy, no allocation); BM_fold_copy_only times that
// copy alone, to subtract.
void fold_full(benchmark::State& state, metric_style style, bool do_fold) {
  const histogram full = filled(style);
  histogram h = full;
  for (auto _ : state) {
    h = full;
    if (do_fold) h.fold();
    benchmark::DoNotOptimize(h);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_fold_counter(benchmark::State& state) {
  fold_full(state, metric_style::counter, true);
}
void BM_fold_sampled(benchmark::State& state) {
  fold_full(state, metric_style::sampled, true);
}
void BM_fold_copy_only_counter(benchmark::State& state) {
  fold_full(state, metric_style::counter, false);
}
void BM_fold_copy_only_sampled(benchmark::State& state) {
  fold_full(state, metric_style::sampled, false);
}

}  // namespace

BENCHMARK(BM_add_counter);
BENCHMARK(BM_add_sampled);
BENCHMARK(BM_add_counter_straddling);
BENCHMARK(BM_add_sampled_straddling);
BENCHMARK(BM_fold_counter);
BENCHMARK(BM_fold_copy_only_counter);
BENCHMARK(BM_fold_sampled);
BENCHMARK(BM_fold_copy_only_sampled);

BENCHMARK_MAIN();
