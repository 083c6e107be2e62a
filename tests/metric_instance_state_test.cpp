// Rules E, P, D and N on the metric-instance logic alone (no actors).
#include <catch2/catch.hpp>
#include <cmath>

#include "dm/metric_instance_state.hpp"

using namespace perfdm;

namespace {

const stream_handle s0{0}, s1{1};
const phase_handle phase0{0}, phase1{1};

time_bases phase0_bases() { return time_bases{}; }

time_bases phase1_bases() {
  time_bases tb;
  tb.current_phase = phase1;
  tb.current_start = 2 * ns_per_second;
  tb.current_width = base_bucket_width;
  return tb;
}

persistence flags(bool data, bool collection, bool phase_data) {
  return persistence{data, collection, phase_data};
}

metric_instance_state make_mi() { return metric_instance_state(mi_handle{0}, metric_style::counter); }

}  // namespace

TEST_CASE("E1 an enable of an existing pair reuses the MI and its data", "[mi][E1]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::global, {}, phase0_bases());
  mi.add(0, ns_per_second / 10, 5, nullptr);
  mi.enable(s1, phase_type::global, {}, phase0_bases());
  REQUIRE(mi.global_users() == std::vector<stream_handle>{s0, s1});
  REQUIRE(mi.global_histogram()->bucket(0) == Approx(5));
}

TEST_CASE("E2 a GLOBAL enable collects the global histogram only", "[mi][E2]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::global, {}, phase0_bases());
  CHECK(mi.global_histogram() != nullptr);
  CHECK(mi.current_histogram() == nullptr);
  CHECK(mi.global_users() == std::vector<stream_handle>{s0});
  CHECK(mi.current_users().empty());
  CHECK(mi.collecting());
}

TEST_CASE("E3 a CURRENT enable collects both histograms, current user list only", "[mi][E3]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::current, {}, phase1_bases());
  REQUIRE(mi.global_histogram() != nullptr);
  REQUIRE(mi.current_histogram() != nullptr);
  CHECK(mi.current_histogram()->start() == 2 * ns_per_second);
  CHECK(mi.global_users().empty());
  CHECK(mi.current_users() == std::vector<stream_handle>{s0});
  completed_values out;
  mi.add(2 * ns_per_second, 3 * ns_per_second, 10, &out);
  CHECK(mi.global_histogram()->bucket(10) == Approx(2));
  CHECK(mi.current_histogram()->bucket(0) == Approx(2));
  CHECK(out.global.size() == 15);  // buckets 0..14 of the global histogram completed
  CHECK(out.current.size() == 5);
}

TEST_CASE("E4 enable flags are OR-ed and never cleared by an enable", "[mi][E4]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::global, flags(true, false, false), phase0_bases());
  mi.enable(s1, phase_type::global, flags(false, true, false), phase0_bases());
  CHECK(mi.flags() == flags(true, true, false));
  mi.enable(s1, phase_type::global, flags(false, false, false), phase0_bases());
  CHECK(mi.flags() == flags(true, true, false));
}

TEST_CASE("P1 persistent_data keeps the histogram past the last disable", "[mi][P1]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::global, flags(true, false, false), phase0_bases());
  mi.add(0, ns_per_second, 1, nullptr);
  REQUIRE(mi.disable(s0, phase_type::global));
  CHECK_FALSE(mi.deleted());
  CHECK_FALSE(mi.collecting());
  CHECK(mi.summary().state == mi_state::inactive);
  REQUIRE(mi.global_histogram() != nullptr);
  CHECK(mi.global_histogram()->bucket(0) == Approx(0.2));
}

TEST_CASE("P2 persistent_collection keeps collecting after the last disable", "[mi][P2]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::global, flags(false, true, false), phase0_bases());
  REQUIRE(mi.disable(s0, phase_type::global));
  CHECK(mi.collecting());
  CHECK(mi.summary().state == mi_state::active);
  mi.add(0, ns_per_second, 1, nullptr);
  CHECK(mi.global_histogram()->bucket(4) == Approx(0.2));
}

TEST_CASE("P3 phase_persistent_data keeps data in the current phase and is cleared by a new "
          "phase", "[mi][P3]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::current, flags(false, false, true), phase1_bases());
  REQUIRE(mi.disable(s0, phase_type::current));
  CHECK_FALSE(mi.deleted());
  CHECK(mi.current_histogram() != nullptr);
  auto next = phase1_bases();
  next.current_phase = phase_handle{2};
  mi.new_phase(phase1, next);
  CHECK_FALSE(mi.flags().phase_data);
  CHECK(mi.deleted());  // N6: nothing keeps it any more
}

TEST_CASE("P4 setting or clearing flags has no immediate enable/disable effect", "[mi][P4]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::global, flags(false, true, false), phase0_bases());
  REQUIRE(mi.disable(s0, phase_type::global));
  REQUIRE(mi.collecting());
  mi.clear_flags(flags(false, true, false));
  CHECK(mi.collecting());  // still collecting until the next fold, enable, disable or phase
  CHECK_FALSE(mi.deleted());
  mi.fold(0, 2 * base_bucket_width);
  CHECK_FALSE(mi.collecting());
  CHECK(mi.deleted());
}

TEST_CASE("P5 clearing persistent_data deletes data no user holds", "[mi][P5]") {
  SECTION("an inactive MI without users is deleted with its global histogram") {
    auto mi = make_mi();
    mi.enable(s0, phase_type::global, flags(true, false, true), phase0_bases());
    REQUIRE(mi.disable(s0, phase_type::global));
    REQUIRE_FALSE(mi.deleted());
    mi.clear_flags(flags(true, false, false));
    CHECK_FALSE(mi.flags().phase_data);  // cleared along with persistent_data
    CHECK(mi.deleted());
  }
  SECTION("the archive and current histogram go when there are no current users") {
    auto mi = make_mi();
    mi.enable(s0, phase_type::current, flags(true, false, false), phase0_bases());
    mi.enable(s1, phase_type::global, {}, phase0_bases());
    mi.new_phase(phase0, phase1_bases());
    REQUIRE(mi.archived(phase0) != nullptr);
    mi.clear_flags(flags(true, false, false));
    CHECK(mi.archived(phase0) == nullptr);
    CHECK_FALSE(mi.deleted());  // s1 still holds the global histogram
    CHECK(mi.global_histogram() != nullptr);
  }
  SECTION("current users keep the current histogram and archive") {
    auto mi = make_mi();
    mi.enable(s0, phase_type::current, flags(true, true, false), phase0_bases());
    mi.new_phase(phase0, phase1_bases());
    mi.enable(s0, phase_type::current, {}, phase1_bases());
    mi.clear_flags(flags(true, false, false));
    CHECK(mi.archived(phase0) != nullptr);
    CHECK(mi.current_histogram() != nullptr);
  }
}

TEST_CASE("P6 persistent collection does not imply persistent data", "[mi][P6]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::current, flags(false, true, false), phase0_bases());
  mi.add(0, ns_per_second, 1, nullptr);
  mi.new_phase(phase0, phase1_bases());
  CHECK(mi.archived(phase0) == nullptr);   // not archived
  REQUIRE(mi.current_histogram() != nullptr);  // but collection goes on (N4)
  CHECK(mi.current_histogram()->start() == 2 * ns_per_second);
}

TEST_CASE("D1 with persistent_collection a disable only removes the user", "[mi][D1]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::current, flags(false, true, false), phase0_bases());
  REQUIRE(mi.disable(s0, phase_type::current));
  CHECK(mi.current_users().empty());
  CHECK(mi.collecting());
  CHECK(mi.current_histogram() != nullptr);
  CHECK(mi.global_histogram() != nullptr);
}

TEST_CASE("D2 the last CURRENT disable deletes the current histogram", "[mi][D2]") {
  SECTION("global users remain: collection continues, current histogram goes") {
    auto mi = make_mi();
    mi.enable(s0, phase_type::current, {}, phase0_bases());
    mi.enable(s1, phase_type::global, {}, phase0_bases());
    REQUIRE(mi.disable(s0, phase_type::current));
    CHECK(mi.current_histogram() == nullptr);
    CHECK(mi.collecting());
    CHECK_FALSE(mi.deleted());
  }
  SECTION("no global users: collection stops and the MI is deleted") {
    auto mi = make_mi();
    mi.enable(s0, phase_type::current, {}, phase0_bases());
    REQUIRE(mi.disable(s0, phase_type::current));
    CHECK_FALSE(mi.collecting());
    CHECK(mi.deleted());
  }
  SECTION("persistent_data keeps the current histogram and the MI") {
    auto mi = make_mi();
    mi.enable(s0, phase_type::current, flags(true, false, false), phase0_bases());
    REQUIRE(mi.disable(s0, phase_type::current));
    CHECK(mi.current_histogram() != nullptr);
    CHECK_FALSE(mi.collecting());
    CHECK_FALSE(mi.deleted());
  }
  SECTION("not the last current user: nothing goes") {
    auto mi = make_mi();
    mi.enable(s0, phase_type::current, {}, phase0_bases());
    mi.enable(s1, phase_type::current, {}, phase0_bases());
    REQUIRE(mi.disable(s0, phase_type::current));
    CHECK(mi.current_histogram() != nullptr);
    CHECK(mi.collecting());
  }
}

TEST_CASE("D3 the last GLOBAL disable stops collection and deletes the MI", "[mi][D3]") {
  SECTION("no flags: stopped and deleted") {
    auto mi = make_mi();
    mi.enable(s0, phase_type::global, {}, phase0_bases());
    REQUIRE(mi.disable(s0, phase_type::global));
    CHECK_FALSE(mi.collecting());
    CHECK(mi.deleted());
    CHECK(mi.summary().state == mi_state::deleted);
  }
  SECTION("current users remain: collection continues") {
    auto mi = make_mi();
    mi.enable(s0, phase_type::global, {}, phase0_bases());
    mi.enable(s1, phase_type::current, {}, phase0_bases());
    REQUIRE(mi.disable(s0, phase_type::global));
    CHECK(mi.collecting());
    CHECK_FALSE(mi.deleted());
  }
  SECTION("persistent_data: stopped but kept") {
    auto mi = make_mi();
    mi.enable(s0, phase_type::global, flags(true, false, false), phase0_bases());
    REQUIRE(mi.disable(s0, phase_type::global));
    CHECK_FALSE(mi.collecting());
    CHECK_FALSE(mi.deleted());
  }
}

TEST_CASE("D4 a disable by a stream that is not a user fails and changes nothing", "[mi][D4]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::global, {}, phase0_bases());
  CHECK_FALSE(mi.disable(s1, phase_type::global));
  CHECK_FALSE(mi.disable(s0, phase_type::current));  // a user, but not in that phase
  CHECK(mi.global_users() == std::vector<stream_handle>{s0});
  CHECK(mi.collecting());
  CHECK_FALSE(mi.deleted());
}

TEST_CASE("N1 a new phase drops every current-phase subscription", "[mi][N1]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::current, {}, phase0_bases());
  mi.enable(s1, phase_type::global, {}, phase0_bases());
  mi.new_phase(phase0, phase1_bases());
  CHECK(mi.current_users().empty());
  CHECK(mi.global_users() == std::vector<stream_handle>{s1});
}

TEST_CASE("N2 persistent_data archives the current histogram under the old phase", "[mi][N2]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::current, flags(true, false, false), phase0_bases());
  mi.add(0, ns_per_second / 5, 7, nullptr);
  mi.new_phase(phase0, phase1_bases());
  REQUIRE(mi.archived(phase0) != nullptr);
  CHECK(mi.archived(phase0)->bucket(0) == Approx(7));
  CHECK(mi.archived(phase1) == nullptr);
  CHECK(mi.status().archived == std::vector<phase_handle>{phase0});
}

TEST_CASE("N3 without persistent_collection or global users collection stops", "[mi][N3]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::current, flags(true, false, false), phase0_bases());
  mi.new_phase(phase0, phase1_bases());
  CHECK_FALSE(mi.collecting());
  CHECK_FALSE(mi.deleted());  // persistent_data keeps it
}

TEST_CASE("N4 persistent_collection starts a new current histogram with no users", "[mi][N4]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::current, flags(false, true, false), phase0_bases());
  mi.new_phase(phase0, phase1_bases());
  REQUIRE(mi.current_histogram() != nullptr);
  CHECK(mi.current_histogram()->start() == 2 * ns_per_second);
  CHECK(mi.current_users().empty());
  CHECK(mi.collecting());
  completed_values out;
  mi.add(2 * ns_per_second, 3 * ns_per_second, 1, &out);
  CHECK(mi.current_histogram()->bucket(0) == Approx(0.2));
}

TEST_CASE("N5 global users without persistent_collection: no new current histogram",
          "[mi][N5]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::current, {}, phase0_bases());
  mi.enable(s1, phase_type::global, {}, phase0_bases());
  mi.new_phase(phase0, phase1_bases());
  CHECK(mi.current_histogram() == nullptr);
  CHECK(mi.collecting());
  CHECK_FALSE(mi.deleted());
}

TEST_CASE("N6 no flags and no global users: the MI is deleted", "[mi][N6]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::current, {}, phase0_bases());
  mi.new_phase(phase0, phase1_bases());
  CHECK(mi.deleted());
  CHECK(mi.summary().state == mi_state::deleted);
}

TEST_CASE("N7 a new phase clears phase_persistent_data on every MI", "[mi][N7]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::global, flags(false, false, true), phase0_bases());
  mi.new_phase(phase0, phase1_bases());
  CHECK_FALSE(mi.flags().phase_data);
  CHECK_FALSE(mi.deleted());  // the global user still holds it
}

TEST_CASE("T3 dropping a stream disables each of its subscriptions", "[mi][T3]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::current, {}, phase0_bases());
  mi.enable(s0, phase_type::global, {}, phase0_bases());
  mi.drop_stream(s0);
  CHECK(mi.deleted());
}

TEST_CASE("B4 an MI folds only the histograms of the time base that folds", "[mi][B4]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::current, {}, phase1_bases());
  mi.fold(0, 2 * base_bucket_width);
  CHECK(mi.global_histogram()->width() == 2 * base_bucket_width);
  CHECK(mi.current_histogram()->width() == base_bucket_width);
  mi.fold(2 * ns_per_second, 4 * base_bucket_width);  // two doublings
  CHECK(mi.current_histogram()->width() == 4 * base_bucket_width);
}

TEST_CASE("memory of one MI with global and current histograms", "[mi][memory]") {
  for (auto style : {metric_style::counter, metric_style::sampled}) {
    metric_instance_state mi(mi_handle{0}, style);
    mi.enable(s0, phase_type::current, {}, phase1_bases());
    INFO(to_string(style) << ": " << mi.memory_bytes() << " bytes");
    // The 20 KiB target of a metric instance, for both styles.
    CHECK(mi.memory_bytes() <= 20 * 1024);
  }
}

TEST_CASE("DATA reads a histogram's buckets up to the last with data", "[mi]") {
  auto mi = make_mi();
  mi.enable(s0, phase_type::global, {}, phase0_bases());
  mi.add(0, base_bucket_width, 5, nullptr);                      // bucket 0
  mi.add(2 * base_bucket_width, 3 * base_bucket_width, 7, nullptr);  // bucket 2
  auto d = data_of(mi_handle{3}, *mi.global_histogram());
  CHECK(d.mi == mi_handle{3});
  CHECK(d.start == 0);
  CHECK(d.width == Approx(to_seconds(base_bucket_width)));
  CHECK(d.nbins == bucket_count);
  REQUIRE(d.values.size() == 3);
  CHECK(d.values[0] == Approx(5));
  CHECK(std::isnan(d.values[1]));  // B2: untouched
  CHECK(d.values[2] == Approx(7));
}
