// Which time base folds next (rules B4, B5; dm/fold_order.hpp), without actors.
#include "dm/fold_order.hpp"

#include <catch2/catch.hpp>

#include "dm/histogram.hpp"

using namespace perfdm;

namespace {
constexpr time_ns w = base_bucket_width;
constexpr time_ns s = ns_per_second;
}  // namespace

TEST_CASE("B4 B5 time bases fold in the order they reach their ends", "[dm][B4][B5]") {
  // Global base: start 0, width 0.2, end 200 s. Phase 1: start 150 s, width 0.2, end 350 s.
  time_base_view b{true, w, 150 * s, w, true};
  CHECK_FALSE(next_fold(b, 199 * s));
  // At 900 s both bases are past their ends; they fold alternately, earliest end first:
  // global at 200, current at 350, global at 400, current at 550, global at 800.
  std::vector<std::pair<bool, time_ns>> order;
  while (auto f = next_fold(b, 900 * s)) {
    order.emplace_back(f->global, f->width);
    if (f->global) {
      CHECK(f->start == 0);
      b.global_width = f->width;
    } else {
      CHECK(f->start == 150 * s);
      b.current_width = f->width;
    }
  }
  CHECK(order == std::vector<std::pair<bool, time_ns>>{
                     {true, 2 * w}, {false, 2 * w}, {true, 4 * w}, {false, 4 * w}, {true, 8 * w}});
}

TEST_CASE("B4 B5 the global base folds first when both end at once", "[dm][B4][B5]") {
  // Phase 1 starts at 100 s with width 0.1: its end, 200 s, is the global end too.
  time_base_view b{true, w, 100 * s, w / 2, true};
  auto f = next_fold(b, 200 * s);
  REQUIRE(f);
  CHECK(f->global);
}

TEST_CASE("B4 B5 which bases can fold", "[dm][B4][B5]") {
  SECTION("no MI: the global base does not fold") {
    CHECK_FALSE(next_fold(time_base_view{false, w, 0, w, false}, 1000 * s));
  }
  SECTION("phase 0 shares the global base: one fold, the global one") {
    auto f = next_fold(time_base_view{true, w, 0, w, true}, 200 * s);
    REQUIRE(f);
    CHECK(f->global);
  }
  SECTION("a later phase without current histograms does not fold") {
    CHECK_FALSE(next_fold(time_base_view{true, 8 * w, 150 * s, w, false}, 900 * s));
  }
  SECTION("a later phase with current histograms folds alone") {
    auto f = next_fold(time_base_view{true, 8 * w, 150 * s, w, true}, 350 * s);
    REQUIRE(f);
    CHECK_FALSE(f->global);
    CHECK(f->start == 150 * s);
    CHECK(f->width == 2 * w);
  }
}
