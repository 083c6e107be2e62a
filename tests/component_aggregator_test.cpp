// Paradyn's component aggregation on the plain aggregator: aligned and misaligned components,
// samples straddling the aggregated time, removal, late joins, and that nothing is lost.
#include "dm/component_aggregator.hpp"

#include <catch2/catch.hpp>
#include <random>

using namespace perfdm;

namespace {

const mi_handle counter_mi{1};
const mi_handle sampled_mi{2};

component_aggregator make_aggregator() {
  return component_aggregator(
      [](mi_handle h) { return h == sampled_mi ? metric_style::sampled : metric_style::counter; });
}

sample s(double start, double end, double value, mi_handle mi = counter_mi) {
  return sample{mi, start, end, value};
}

std::vector<sample> feed(component_aggregator& a, const std::string& component,
                         std::vector<sample> in) {
  std::vector<sample> out;
  a.add_samples(component, in, out);
  return out;
}

std::vector<sample> remove(component_aggregator& a, const std::string& component) {
  std::vector<sample> out;
  REQUIRE(a.remove_component(component, out));
  return out;
}

double total(const std::vector<sample>& v) {
  double t = 0;
  for (auto& x : v) t += x.value;
  return t;
}

// Both components have reported [0, 0.2) of counter_mi, so both hold it back from then on.
component_aggregator joined_at_0_2(double a_value = 1, double b_value = 2) {
  auto a = make_aggregator();
  a.add_component("a");
  a.add_component("b");
  feed(a, "a", {s(0, 0.2, a_value)});
  feed(a, "b", {s(0, 0.2, b_value)});
  return a;
}

// Random back-to-back reports of components, boundaries on a 0.05 s grid; counts what was sent.
struct random_reports {
  std::mt19937 rng;
  std::uniform_int_distribution<int> step{1, 7};  // in 0.05 s
  std::uniform_int_distribution<int> value{0, 100};
  std::map<std::string, int> at;  // where each component's reports end, in steps
  double sent = 0;

  explicit random_reports(unsigned seed) : rng(seed) {}

  // The next `count` samples of `name`, each starting where the previous one ended.
  std::vector<sample> next(const std::string& name, int count) {
    std::vector<sample> batch;
    for (int k = 0; k < count; ++k) {
      int from = at[name], to = from + step(rng);
      double v = value(rng);
      batch.push_back(s(from * 0.05, to * 0.05, v));
      sent += v;
      at[name] = to;
    }
    return batch;
  }
};

}  // namespace

TEST_CASE("components: an interval is emitted once every live component reported it, summed",
          "[aggregator]") {
  auto a = make_aggregator();
  CHECK(a.add_component("a"));
  CHECK(a.add_component("b"));
  CHECK_FALSE(a.add_component("a"));
  // The first component of an MI starts its aggregated time; it is its only component yet.
  auto first = feed(a, "a", {s(0, 0.2, 1)});
  REQUIRE(first.size() == 1);
  CHECK(first[0].start == 0);
  CHECK(first[0].end == Approx(0.2));
  CHECK(first[0].value == 1);
  // b joins the MI with its first sample; what it reported before the aggregated time goes
  // out at once, unchanged.
  auto late = feed(a, "b", {s(0, 0.2, 2)});
  REQUIRE(late.size() == 1);
  CHECK(late[0].value == 2);
  // From now on both hold the MI back: a alone emits nothing.
  CHECK(feed(a, "a", {s(0.2, 0.4, 10)}).empty());
  CHECK(a.aggregated_time(counter_mi) == to_ns(0.2));
  auto both = feed(a, "b", {s(0.2, 0.4, 5)});
  REQUIRE(both.size() == 1);
  CHECK(both[0].mi == counter_mi);
  CHECK(both[0].start == Approx(0.2));
  CHECK(both[0].end == Approx(0.4));
  CHECK(both[0].value == 15);
  CHECK(a.pending() == 0);
}

TEST_CASE("components: misaligned samples are split at every reported boundary and pro-rated",
          "[aggregator]") {
  auto a = joined_at_0_2();
  CHECK(feed(a, "a", {s(0.2, 0.5, 3)}).empty());  // 10 per second over [0.2, 0.5)
  auto out = feed(a, "b", {s(0.2, 0.3, 1), s(0.3, 0.4, 1)});
  // t' = min(0.5, 0.4): [0.2, 0.3) and [0.3, 0.4), each a's 1 plus b's 1.
  REQUIRE(out.size() == 2);
  CHECK(out[0].start == Approx(0.2));
  CHECK(out[0].end == Approx(0.3));
  CHECK(out[0].value == Approx(2));
  CHECK(out[1].start == Approx(0.3));
  CHECK(out[1].end == Approx(0.4));
  CHECK(out[1].value == Approx(2));
  // a's sample straddled 0.4: its last third waits for b.
  CHECK(a.aggregated_time(counter_mi) == to_ns(0.4));
  CHECK(a.pending() == 1);
  auto rest = feed(a, "b", {s(0.4, 0.5, 4)});
  REQUIRE(rest.size() == 1);
  CHECK(rest[0].start == Approx(0.4));
  CHECK(rest[0].end == Approx(0.5));
  CHECK(rest[0].value == Approx(5));
}

TEST_CASE("components: a SAMPLED level is summed over components, weighted by time",
          "[aggregator]") {
  auto a = make_aggregator();
  feed(a, "a", {s(0, 0.2, 2, sampled_mi)});
  feed(a, "b", {s(0, 0.2, 3, sampled_mi)});
  // a's level 2 over [0.2, 0.6) straddles b's end 0.4.
  CHECK(feed(a, "a", {s(0.2, 0.6, 2, sampled_mi)}).empty());
  auto out = feed(a, "b", {s(0.2, 0.4, 3, sampled_mi)});
  REQUIRE(out.size() == 1);
  CHECK(out[0].mi == sampled_mi);
  CHECK(out[0].end == Approx(0.4));
  CHECK(out[0].value == Approx(5));
  // b reports level 4 over [0.5, 0.6) only: a's 2 alone over [0.4, 0.5), then 2 + 4.
  auto next = feed(a, "b", {s(0.5, 0.6, 4, sampled_mi)});
  REQUIRE(next.size() == 2);  // split at b's boundary 0.5
  CHECK(next[0].start == Approx(0.4));
  CHECK(next[0].end == Approx(0.5));
  CHECK(next[0].value == Approx(2));
  CHECK(next[1].end == Approx(0.6));
  CHECK(next[1].value == Approx(6));
}

TEST_CASE("components: a removed component stops holding time back and keeps what it sent",
          "[aggregator]") {
  auto a = joined_at_0_2();
  // b runs ahead to 1.0; a is at 0.4.
  CHECK(feed(a, "b", {s(0.2, 0.6, 4), s(0.6, 1.0, 4)}).empty());
  auto at_0_4 = feed(a, "a", {s(0.2, 0.4, 1)});
  REQUIRE(at_0_4.size() == 1);
  CHECK(at_0_4[0].value == Approx(1 + 2));  // a's 1 and half of b's first 4
  // b dies: nothing of it is emitted yet (a has reported nothing past 0.4), nothing is lost.
  CHECK(remove(a, "b").empty());
  CHECK_FALSE(a.is_component("b"));
  CHECK(a.pending() == 2);
  // a alone decides from now on, and b's pending share comes with it.
  auto out = feed(a, "a", {s(0.4, 0.8, 8)});
  CHECK(total(out) == Approx(8 + 2 + 2));
  CHECK(a.aggregated_time(counter_mi) == to_ns(0.8));
  auto last = feed(a, "a", {s(0.8, 1.2, 4)});
  CHECK(total(last) == Approx(4 + 2));
  CHECK(a.pending() == 0);
}

TEST_CASE("components: when no live component of an MI is left, everything pending goes out",
          "[aggregator]") {
  auto a = joined_at_0_2();
  // a reports [0.2, 0.4) and a point amount at 0.4; b, at 0.2, holds both back.
  CHECK(feed(a, "a", {s(0.2, 0.4, 1), s(0.4, 0.4, 7)}).empty());
  CHECK(a.pending() == 2);
  auto first = remove(a, "b");
  REQUIRE(first.size() == 1);
  CHECK(first[0].end == Approx(0.4));
  CHECK(first[0].value == Approx(1));
  CHECK(a.pending() == 1);  // the point at 0.4 belongs to what comes after 0.4
  auto rest = remove(a, "a");
  REQUIRE(rest.size() == 1);
  CHECK(rest[0].start == Approx(0.4));
  CHECK(rest[0].value == Approx(7));
  CHECK(a.pending() == 0);
  CHECK(a.components().empty());
  std::vector<sample> none;
  CHECK_FALSE(a.remove_component("a", none));
}

TEST_CASE("components: a component that joins later starts at the aggregated time",
          "[aggregator]") {
  auto a = make_aggregator();
  a.add_component("a");
  auto early = feed(a, "a", {s(0, 0.5, 5), s(0.5, 1.0, 5)});
  CHECK(total(early) == Approx(10));
  CHECK(a.aggregated_time(counter_mi) == to_ns(1.0));
  a.add_component("c");
  // c's sample over [0.8, 1.2): the part before 1.0 goes out at once (pro-rated), the rest
  // waits for a, which c now holds back.
  auto late = feed(a, "c", {s(0.8, 1.2, 4)});
  REQUIRE(late.size() == 1);
  CHECK(late[0].start == Approx(0.8));
  CHECK(late[0].end == Approx(1.0));
  CHECK(late[0].value == Approx(2));
  CHECK(feed(a, "c", {s(1.2, 1.4, 1)}).empty());
  auto both = feed(a, "a", {s(1.0, 1.4, 4)});
  CHECK(total(both) == Approx(2 + 1 + 4));
  CHECK(a.aggregated_time(counter_mi) == to_ns(1.4));
}

TEST_CASE("components: an MI a component never reports is not held back by it", "[aggregator]") {
  auto a = joined_at_0_2();
  const mi_handle only_a{7};
  auto out = feed(a, "a", {s(0, 0.2, 3, only_a)});
  REQUIRE(out.size() == 1);
  CHECK(out[0].mi == only_a);
  CHECK(out[0].value == 3);
  a.forget(only_a);
  CHECK(a.aggregated_time(only_a) == -1);
}

TEST_CASE("components: nothing received is lost, and time only moves forward", "[aggregator]") {
  // Three components with random boundaries, one removed midway and one joining late; every
  // amount sent comes out exactly once, and the emitted (not late) intervals never overlap.
  random_reports r(12345);
  auto a = make_aggregator();
  std::set<std::string> alive{"a", "b"};
  std::vector<sample> out;
  for (int round = 0; round < 400; ++round) {
    if (round == 150) {
      REQUIRE(a.remove_component("b", out));
      alive.erase("b");
    }
    if (round == 100) alive.insert("c");
    std::vector<std::string> names(alive.begin(), alive.end());
    auto& name = names[std::uniform_int_distribution<std::size_t>(0, names.size() - 1)(r.rng)];
    a.add_samples(name, r.next(name, 3), out);
  }
  REQUIRE(a.remove_component("a", out));
  REQUIRE(a.remove_component("c", out));
  CHECK(a.pending() == 0);
  CHECK(total(out) == Approx(r.sent).epsilon(1e-9));
  double reached = -1;
  for (auto& x : out) {
    REQUIRE(x.end >= x.start);
    if (x.start >= reached - 1e-9) reached = std::max(reached, x.end);  // an aggregated one
  }
  CHECK(reached == Approx(std::max({r.at["a"], r.at["b"], r.at["c"]}) * 0.05));
}

namespace {

std::vector<sample> mark(component_aggregator& a, const std::string& component, double until) {
  std::vector<sample> out;
  a.add_watermark(component, to_ns(until), out);
  return out;
}

}  // namespace

TEST_CASE("components: a quiet component with a watermark no longer holds the MI back",
          "[aggregator]") {
  auto a = joined_at_0_2();
  // "a" goes quiet after 0.2 (its process exited); "b" reports on.
  CHECK(feed(a, "b", {s(0.2, 0.4, 5), s(0.4, 0.6, 7)}).empty());
  CHECK(a.aggregated_time(counter_mi) == to_ns(0.2));
  // Its watermark says it will send nothing before 0.5: "b"'s data is emitted up to there.
  auto out = mark(a, "a", 0.5);
  CHECK(a.aggregated_time(counter_mi) == to_ns(0.5));
  CHECK(total(out) == Approx(5 + 7 * 0.5));
  REQUIRE(!out.empty());
  CHECK(out.back().end == Approx(0.5));
  // A later watermark lets the rest go; "b" alone then drives the MI.
  out = mark(a, "a", 10);
  CHECK(a.aggregated_time(counter_mi) == to_ns(0.6));
  CHECK(total(out) == Approx(7 * 0.5));
  out = feed(a, "b", {s(0.6, 0.8, 2)});
  CHECK(total(out) == Approx(2));
  CHECK(a.aggregated_time(counter_mi) == to_ns(0.8));
}

TEST_CASE("components: without a watermark a quiet component still holds the MI back",
          "[aggregator]") {
  auto a = joined_at_0_2();
  CHECK(feed(a, "b", {s(0.2, 0.4, 5), s(0.4, 0.6, 7)}).empty());
  // Another component's watermark does not speak for "a".
  CHECK(mark(a, "b", 10).empty());
  CHECK(a.aggregated_time(counter_mi) == to_ns(0.2));
  CHECK(a.pending() == 2);
}

TEST_CASE("components: a watermark never moves time backwards", "[aggregator]") {
  auto a = joined_at_0_2();
  CHECK(feed(a, "b", {s(0.2, 1.0, 8)}).empty());
  CHECK(total(mark(a, "a", 0.6)) == Approx(8 * 0.4 / 0.8));
  // An earlier watermark, or one before the aggregated time, changes nothing.
  CHECK(mark(a, "a", 0.4).empty());
  CHECK(mark(a, "a", 0.1).empty());
  CHECK(a.aggregated_time(counter_mi) == to_ns(0.6));
  // A sample of "a" ending before its own watermark does not pull it back either.
  auto late = feed(a, "a", {s(0.2, 0.3, 1)});
  CHECK(total(late) == Approx(1));  // late: emitted at once, as it came
  CHECK(a.aggregated_time(counter_mi) == to_ns(0.6));
  CHECK(feed(a, "b", {s(1.0, 1.2, 2)}).empty());  // "a" still holds the MI at 0.6
}

TEST_CASE("components: an MI joined after a watermark starts at it", "[aggregator]") {
  auto a = joined_at_0_2();
  mark(a, "a", 1.0);
  const mi_handle other{9};
  // "b" starts the MI at 0; "a" joins it later with a sample ending before its watermark:
  // its promise counts, so it holds nothing before 1.0.
  CHECK(feed(a, "b", {s(0, 0.5, 1, other)}).size() == 1);  // only "b" has joined yet
  CHECK(total(feed(a, "a", {s(0.4, 0.6, 2, other)})) == Approx(2 * 0.1 / 0.2));  // the late part
  auto out = feed(a, "b", {s(0.5, 1.0, 3, other)});
  CHECK(total(out) == Approx(3 + 2 * 0.1 / 0.2));
  CHECK(a.aggregated_time(other) == to_ns(1.0));
}

TEST_CASE("components: with watermarks nothing received is lost", "[aggregator]") {
  // Two components with random boundaries; "q" goes quiet midway and sends only watermarks
  // (some of them behind what it reported), while "r" reports on. Every amount comes out once.
  random_reports r(777);
  auto a = make_aggregator();
  std::vector<sample> out;
  for (int round = 0; round < 300; ++round) {
    const std::string name = round < 100 && round % 2 ? "q" : "r";
    a.add_samples(name, r.next(name, 2), out);
    if (round >= 100) a.add_watermark("q", to_ns((r.at["r"] - r.step(r.rng)) * 0.05), out);
  }
  // "q" no longer holds the MI back: it follows "r" up to the last watermark.
  CHECK(a.aggregated_time(counter_mi) > to_ns(r.at["q"] * 0.05));
  REQUIRE(a.remove_component("q", out));
  REQUIRE(a.remove_component("r", out));
  CHECK(a.pending() == 0);
  CHECK(total(out) == Approx(r.sent).epsilon(1e-9));
}
