// Frames to samples (actors/frame_sample_builder): routing fields to the MIs that collect them,
// aggregation per sampling interval, late frames, summaries.
#include <catch2/catch.hpp>

#include <cstring>

#include "sources/frame_sample_builder.hpp"

using namespace perfdm;

namespace {

shm::frame_layout work_layout() {
  std::vector<shm::field_declaration> d;
  d.push_back({"requests", shm::field_type::u64, 0, shm::field_kind::counter, "requests"});
  d.push_back({"depth", shm::field_type::f64, 0, shm::field_kind::sampled, "items"});
  d.push_back({"busy", shm::field_type::boolean, 0, shm::field_kind::sampled, ""});
  d.push_back({"stage", shm::field_type::text, 8, shm::field_kind::text, ""});
  return shm::lay_out("work", d);
}

const shm::field_layout& field(const shm::frame_layout& l, const std::string& name) {
  for (auto& f : l.fields)
    if (f.name == name) return f;
  FAIL("no field " << name);
  return l.fields[0];
}

struct frame {
  explicit frame(const shm::frame_layout& l) : layout(l), bytes(l.size) {}
  frame& set_u64(const std::string& name, std::uint64_t v) {
    std::memcpy(bytes.data() + field(layout, name).offset, &v, sizeof v);
    return *this;
  }
  frame& set_f64(const std::string& name, double v) {
    std::memcpy(bytes.data() + field(layout, name).offset, &v, sizeof v);
    return *this;
  }
  const shm::frame_layout& layout;
  std::vector<std::byte> bytes;
};

constexpr time_ns ms = 1'000'000;
const std::string resource = "/Process/demo{42}/work";

collecting_mi mi(std::uint64_t id, const std::string& metric, std::vector<std::string> focus) {
  return collecting_mi{mi_handle{id}, metric, std::move(focus)};
}

}  // namespace

TEST_CASE("frame fields route to the MIs whose metric and focus take them") {
  frame_sample_builder s(work_layout(), resource);
  CHECK_FALSE(s.collecting());
  s.set_collecting({mi(1, "work.requests", {"/"}),
                    mi(2, "work.requests", {"/Process/demo{42}"}),
                    mi(3, "work.requests", {"/Process/demo{42}/work"}),
                    mi(4, "work.requests", {"/Process/other{7}"}),      // another process
                    mi(5, "work.requests", {"/Process/demo{4}"}),       // a prefix, not a parent
                    mi(6, "other.requests", {"/"}),                     // another struct
                    mi(7, "work.depth", {"/Process", "/Process/demo{42}"})});
  CHECK(s.collecting());
  frame f(s.layout());
  f.set_u64("requests", 5).set_f64("depth", 2.5);
  s.add(f.bytes.data(), 10 * ms);
  std::vector<sample> out;
  s.flush(200 * ms, out);
  std::vector<std::uint64_t> ids;
  for (auto& x : out) ids.push_back(x.mi.id);
  std::sort(ids.begin(), ids.end());
  CHECK(ids == std::vector<std::uint64_t>{1, 2, 3, 7});
}

TEST_CASE("B3 a COUNTER field sums per interval, a SAMPLED field averages, empty intervals give nothing") {
  frame_sample_builder s(work_layout(), resource);
  s.set_collecting({mi(0, "work.requests", {"/"}), mi(1, "work.depth", {"/"})});
  s.set_interval(100 * ms);
  frame f(s.layout());
  s.add(f.set_u64("requests", 3).set_f64("depth", 1).bytes.data(), 10 * ms);
  s.add(f.set_u64("requests", 4).set_f64("depth", 3).bytes.data(), 90 * ms);
  s.add(f.set_u64("requests", 10).set_f64("depth", 8).bytes.data(), 250 * ms);
  std::vector<sample> out;
  s.flush(99 * ms, out);
  CHECK(out.empty());  // the first interval has not ended
  s.flush(300 * ms, out);
  REQUIRE(out.size() == 4);
  CHECK(out[0].mi.id == 0);
  CHECK(out[0].start == Approx(0.0));
  CHECK(out[0].end == Approx(0.1));
  CHECK(out[0].value == 7);
  CHECK(out[1].mi.id == 1);
  CHECK(out[1].value == 2);
  CHECK(out[2].start == Approx(0.2));  // [0.1, 0.2) had no frame: no sample
  CHECK(out[2].end == Approx(0.3));
  CHECK(out[2].value == 10);
  CHECK(out[3].value == 8);
}

TEST_CASE("a frame stamped inside a closed interval is kept in the oldest open one and counted late") {
  frame_sample_builder s(work_layout(), resource);
  s.set_collecting({mi(0, "work.requests", {"/"})});
  s.set_interval(100 * ms);
  frame f(s.layout());
  s.add(f.set_u64("requests", 1).bytes.data(), 50 * ms);
  std::vector<sample> out;
  s.flush(100 * ms, out);
  REQUIRE(out.size() == 1);
  s.add(f.set_u64("requests", 2).bytes.data(), 60 * ms);   // late
  s.add(f.set_u64("requests", 5).bytes.data(), 150 * ms);
  out.clear();
  s.flush(200 * ms, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].start == Approx(0.1));
  CHECK(out[0].value == 7);
  CHECK(s.late_frames() == 1);
}

TEST_CASE("S1 an interval change applies to new intervals, open ones keep their bounds") {
  frame_sample_builder s(work_layout(), resource);
  s.set_collecting({mi(0, "work.requests", {"/"})});
  s.set_interval(200 * ms);
  frame f(s.layout());
  s.add(f.set_u64("requests", 1).bytes.data(), 50 * ms);   // [0, 0.2)
  s.set_interval(400 * ms);
  s.add(f.set_u64("requests", 2).bytes.data(), 150 * ms);  // still [0, 0.2)
  s.add(f.set_u64("requests", 4).bytes.data(), 300 * ms);  // [0.2, 0.4): clipped to its neighbour
  s.add(f.set_u64("requests", 8).bytes.data(), 500 * ms);  // [0.4, 0.8)
  std::vector<sample> out;
  s.flush(800 * ms, out);
  REQUIRE(out.size() == 3);
  CHECK(out[0].end == Approx(0.2));
  CHECK(out[0].value == 3);
  CHECK(out[1].start == Approx(0.2));
  CHECK(out[1].end == Approx(0.4));
  CHECK(out[2].start == Approx(0.4));
  CHECK(out[2].end == Approx(0.8));
  CHECK(out[2].value == 8);
}

TEST_CASE("a field that stops being collected loses no sample of the MIs still collecting") {
  frame_sample_builder s(work_layout(), resource);
  s.set_collecting({mi(0, "work.requests", {"/"}), mi(1, "work.depth", {"/"})});
  frame f(s.layout());
  s.add(f.set_u64("requests", 2).set_f64("depth", 4).bytes.data(), 10 * ms);
  s.set_collecting({mi(1, "work.depth", {"/"})});
  std::vector<sample> out;
  s.flush(1000 * ms, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].mi.id == 1);
  CHECK(out[0].value == 4);
}

TEST_CASE("every numeric field is summarised, collected or not") {
  frame_sample_builder s(work_layout(), resource);
  frame f(s.layout());
  s.add(f.set_u64("requests", 2).set_f64("depth", -1).bytes.data(), 0);
  s.add(f.set_u64("requests", 9).set_f64("depth", 5).bytes.data(), 0);
  REQUIRE(s.summaries().size() == 3);  // requests, depth, busy; not the text field
  for (auto& sum : s.summaries()) {
    CHECK(sum.count == 2);
    if (sum.name == "requests") {
      CHECK(sum.min == 2);
      CHECK(sum.max == 9);
      CHECK(sum.sum == 11);
    }
    if (sum.name == "depth") {
      CHECK(sum.min == -1);
      CHECK(sum.max == 5);
    }
  }
}

TEST_CASE("frame sampler: each element of an array field is a metric of its own (S.f[i])") {
  std::vector<shm::field_declaration> d;
  d.push_back({"lat", shm::field_type::i32, 3, shm::field_kind::sampled, "us"});
  d.push_back({"name", shm::field_type::text, 4, shm::field_kind::text, ""});
  const auto l = shm::lay_out("arr", d);
  frame_sample_builder s(l, "/Process/p{1}/arr");
  std::vector<std::string> metrics;
  for (auto& f : s.fields())
    if (f.kind == shm::field_kind::sampled) metrics.push_back(s.metric_of(f));
  CHECK(metrics == std::vector<std::string>{"arr.lat[0]", "arr.lat[1]", "arr.lat[2]"});
  s.set_collecting({mi(7, "arr.lat[2]", {"/"})});
  std::vector<std::byte> bytes(l.size);
  const std::int32_t values[3] = {10, 20, -30};
  std::memcpy(bytes.data() + field(l, "lat").offset, values, sizeof values);
  s.add(bytes.data(), 10 * ms);
  std::vector<sample> out;
  s.flush(200 * ms, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].mi == mi_handle{7});
  CHECK(out[0].value == -30);
  REQUIRE(s.summaries().size() == 3);
  CHECK(s.summaries()[1].name == "lat[1]");
  CHECK(s.summaries()[1].max == 20);
}

TEST_CASE("frames out of time order go to the open interval that holds each, across flushes") {
  // The builder keeps the last frame's interval at hand: a frame outside it must still find
  // its own, and an interval closed by flush must not take frames any more.
  frame_sample_builder s(work_layout(), resource);
  s.set_collecting({mi(0, "work.requests", {"/"})});
  s.set_interval(100 * ms);
  frame f(s.layout());
  for (time_ns t : {10 * ms, 150 * ms, 20 * ms, 160 * ms, 30 * ms, 250 * ms, 170 * ms})
    s.add(f.set_u64("requests", static_cast<std::uint64_t>(t / ms)).bytes.data(), t);
  std::vector<sample> out;
  s.flush(100 * ms, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].end == Approx(0.1));
  CHECK(out[0].value == 10 + 20 + 30);
  s.add(f.set_u64("requests", 40).bytes.data(), 40 * ms);    // closed: late, into [0.1, 0.2)
  s.add(f.set_u64("requests", 1000).bytes.data(), 180 * ms);
  s.flush(300 * ms, out);
  REQUIRE(out.size() == 3);
  CHECK(out[1].start == Approx(0.1));
  CHECK(out[1].value == 150 + 160 + 170 + 40 + 1000);
  CHECK(out[2].start == Approx(0.2));
  CHECK(out[2].value == 250);
  CHECK(s.late_frames() == 1);
}
