// Rules S1-S5 on the plain rules object (the actor-level behaviour is in the golden files).
#include <catch2/catch.hpp>

#include "dm/sampling_interval_rules.hpp"

using namespace perfdm;

namespace {
constexpr time_ns w = base_bucket_width;

collection_view with(std::uint32_t current, std::uint32_t global, time_ns gw = w,
                     time_ns cw = w) {
  collection_view v;
  v.current_subscriptions = current;
  v.global_subscriptions = global;
  v.current_histogram_active = current > 0;
  v.any_active = current + global > 0;
  v.global_width = gw;
  v.current_width = cw;
  return v;
}
}  // namespace

TEST_CASE("S1 a current-phase fold sets the interval to the new current width", "[si][S1]") {
  sampling_interval_rules r;
  auto changed = r.on_fold(false, true, 2 * w, with(1, 0));
  REQUIRE(changed);
  CHECK(*changed == 2 * w);
  CHECK(r.interval() == 2 * w);
}

TEST_CASE("S1 a current-phase fold with no active current histogram leaves the interval",
          "[si][S1][S2]") {
  sampling_interval_rules r;
  // Phase 1's histograms keep their data but collect nothing; the global ones collect.
  CHECK_FALSE(r.on_fold(false, true, 2 * w, with(0, 1)));
  CHECK(r.interval() == w);
  // Phase 0 shares the global base: that fold is a global one too (S2).
  auto changed = r.on_fold(true, true, 4 * w, with(0, 1));
  REQUIRE(changed);
  CHECK(r.interval() == 4 * w);
}

TEST_CASE("S2 a global fold changes the interval only without active current histograms",
          "[si][S2]") {
  sampling_interval_rules r;
  CHECK_FALSE(r.on_fold(true, false, 2 * w, with(1, 1)));
  CHECK(r.interval() == w);
  auto changed = r.on_fold(true, false, 4 * w, with(0, 1));
  REQUIRE(changed);
  CHECK(r.interval() == 4 * w);
  // Phase 0's fold with an active current histogram: S1, the same width.
  changed = r.on_fold(true, true, 8 * w, with(1, 1));
  REQUIRE(changed);
  CHECK(r.interval() == 8 * w);
}

TEST_CASE("S3 a new phase follows persistent collection, else the global width", "[si][S3]") {
  sampling_interval_rules r;
  auto v = with(0, 1, 8 * w, w);
  v.any_persistent_collection = true;
  CHECK_FALSE(r.on_new_phase(v));  // already the current width: nothing to announce
  CHECK(r.interval() == w);
  v.any_persistent_collection = false;
  CHECK(r.on_new_phase(v) == std::optional<time_ns>(8 * w));
  auto idle = with(0, 0, 16 * w, w);
  CHECK_FALSE(r.on_new_phase(idle));
  CHECK(r.interval() == 8 * w);
}

TEST_CASE("S4 the first CURRENT enable takes the current width, the first GLOBAL the global",
          "[si][S4]") {
  sampling_interval_rules r;
  CHECK(r.on_enable(phase_type::global, with(0, 0), with(0, 1, 4 * w)) ==
        std::optional<time_ns>(4 * w));
  CHECK_FALSE(r.on_enable(phase_type::global, with(0, 1, 8 * w), with(0, 2, 8 * w)));
  CHECK(r.on_enable(phase_type::current, with(0, 2, 8 * w), with(1, 2, 8 * w, w)) ==
        std::optional<time_ns>(w));
  CHECK_FALSE(r.on_enable(phase_type::current, with(1, 2, 8 * w, 2 * w), with(2, 2, 8 * w, 2 * w)));
  // a first GLOBAL enable while current-phase enables exist changes nothing
  CHECK_FALSE(r.on_enable(phase_type::global, with(1, 0, 8 * w), with(1, 1, 8 * w)));
  CHECK(r.interval() == w);
}

TEST_CASE("S5 the last CURRENT disable returns to the global width", "[si][S5]") {
  sampling_interval_rules r;
  r.on_enable(phase_type::current, with(0, 0), with(1, 1, 4 * w, w));
  CHECK_FALSE(r.on_disable(with(2, 1, 4 * w), with(1, 1, 4 * w)));
  CHECK(r.on_disable(with(1, 1, 4 * w), with(0, 1, 4 * w)) == std::optional<time_ns>(4 * w));
  // a GLOBAL disable with no current-phase enables at all is not a "last CURRENT disable"
  CHECK_FALSE(r.on_disable(with(0, 2, 8 * w), with(0, 1, 8 * w)));
  CHECK(r.interval() == 4 * w);
}
