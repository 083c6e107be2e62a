// The CPU profile's counting and detailing, and the sampling delay (native/cpu_profile.*,
// native/sampling_delay.*): plain C++, no process.
#include <catch2/catch.hpp>

#include <cmath>

#include "native/cpu_profile.hpp"
#include "native/sampling_delay.hpp"

using namespace perfdm::native;

namespace {

stack_frame frame(const std::string& function, int line = 0, const std::string& module = "/bin/app") {
  return stack_frame{0x1000, module, function, line ? "app.cpp" : "", line};
}

const profile_item* find(const profile_summary& s, const std::string& name) {
  for (auto& i : s.items)
    if (i.name == name) return &i;
  return nullptr;
}

}  // namespace

TEST_CASE("TOTAL counts a function once per stack, BASE only when innermost", "[native][profile]") {
  cpu_profile p;
  // main -> work -> hot, and main -> work -> work (recursion) -> io.
  p.add_stack({frame("hot"), frame("work"), frame("main")});
  p.add_stack({frame("io"), frame("work"), frame("work"), frame("main")});
  p.end_sample(0.01, 1.0);
  auto s = p.summary();
  CHECK(s.samples == 1);
  CHECK(s.active == 2);
  CHECK(s.last == 1.0);
  CHECK(s.montime == Approx(0.01));
  CHECK(find(s, "app@main")->total == 2);
  CHECK(find(s, "app@main")->base == 0);
  CHECK(find(s, "app@work")->total == 2);  // twice on one stack: counted once
  CHECK(find(s, "app@hot")->total == 1);
  CHECK(find(s, "app@hot")->base == 1);
  CHECK(find(s, "app@io")->base == 1);
  // Sorted by BASE, then TOTAL, then name.
  REQUIRE(s.items.size() == 4);
  CHECK(s.items[0].name == "app@hot");
  CHECK(s.items[1].name == "app@io");
  CHECK(s.items[2].name == "app@main");  // TOTAL 2, like work: by name
  CHECK(s.items[3].name == "app@work");
}

TEST_CASE("only running threads are counted", "[native][profile]") {
  cpu_profile p;
  stack_snapshot snap;
  snap.threads.push_back(thread_stack{1, "a", 'R', {frame("spin")}, {}, {}});
  snap.threads.push_back(thread_stack{2, "b", 'S', {frame("wait")}, {}, {}});
  snap.threads.push_back(thread_stack{3, "c", 'D', {frame("disk")}, {}, {}});
  snap.threads.push_back(thread_stack{4, "d", 'R', {}, "no frames", ""});
  p.add(snap, 0.01, 0.5);
  auto s = p.summary();
  CHECK(s.stacks == 4);
  CHECK(s.active == 1);
  CHECK(find(s, "app@spin") != nullptr);
  CHECK(find(s, "app@wait") == nullptr);
}

TEST_CASE("unknown symbols and modules get a name of their own", "[native][profile]") {
  CHECK(function_item(stack_frame{1, "/usr/lib/libc.so.6", "", "", 0}) == "libc.so.6@?");
  CHECK(function_item(stack_frame{1, "", "f", "", 0}) == "?@f");
}

TEST_CASE("a function is detailed by DyPer's thresholds and its lines counted from then on",
          "[native][profile]") {
  detail_settings d;  // 250, 10, 0.025, 0.005
  cpu_profile p(d);
  // 249 active samples of `busy` at line 7: no decision below MIN_TOTAL.
  for (int i = 0; i < 249; ++i) {
    p.add_stack({frame("busy", 7), frame("main", 3)});
    p.end_sample(0.01, i);
  }
  CHECK_FALSE(p.detailed("app@busy"));
  p.add_stack({frame("busy", 7), frame("main", 3)});
  p.end_sample(0.01, 250);
  CHECK(p.detailed("app@busy"));  // 250 >= MIN_TOTAL, 100 % >= 2.5 %, 250 >= MINIMUM
  CHECK(p.detailed("app@main"));
  // Lines are counted from now on, not retroactively.
  p.add_stack({frame("busy", 8), frame("main", 3)});
  p.add_stack({frame("busy", 7), frame("main", 3)});
  p.end_sample(0.01, 251);
  auto s = p.summary();
  REQUIRE(find(s, "app@busy@7") != nullptr);
  CHECK(find(s, "app@busy@7")->base == 1);
  CHECK(find(s, "app@busy@7")->file == "app.cpp");
  CHECK(find(s, "app@busy@8")->base == 1);
  CHECK(find(s, "app@main@3")->total == 2);
  CHECK(find(s, "app@main@3")->base == 0);
  // A detailed function's lines follow it in the report.
  std::size_t at = 0;
  while (s.items[at].name != "app@busy") ++at;
  CHECK(s.items[at + 1].name.rfind("app@busy@", 0) == 0);
}

TEST_CASE("a rare function is not detailed, MINIMUM and THRESHOLD both apply", "[native][profile]") {
  cpu_profile p;
  // 1000 samples: `rare` in 20 (2 %: under 2.5 %), `some` in 30 (3 %).
  for (int i = 0; i < 1000; ++i) {
    if (i % 50 == 0)
      p.add_stack({frame("rare", 1)});
    else if (i % 50 == 1 || (i % 100 == 2))
      p.add_stack({frame("some", 1)});
    else
      p.add_stack({frame("bulk", 1)});
    p.end_sample(0.01, i);
  }
  CHECK_FALSE(p.detailed("app@rare"));
  CHECK(p.detailed("app@some"));
  CHECK(p.detailed("app@bulk"));

  detail_settings high_minimum;
  high_minimum.minimum = 100000;
  cpu_profile q(high_minimum);
  for (int i = 0; i < 1000; ++i) {
    q.add_stack({frame("bulk", 1)});
    q.end_sample(0.01, i);
  }
  CHECK_FALSE(q.detailed("app@bulk"));
}

TEST_CASE("a detailed function that fades below the stop threshold stops being detailed",
          "[native][profile]") {
  cpu_profile p;
  for (int i = 0; i < 300; ++i) {
    p.add_stack({frame(i < 20 ? "early" : "late", 1)});
    p.end_sample(0.01, i);
  }
  CHECK(p.detailed("app@early"));  // 20 of 300 = 6.7 %
  // 20 of 4000 = 0.5 %: not below the stop threshold yet; 20 of 4001 is.
  for (int i = 300; i < 4000; ++i) {
    p.add_stack({frame("late", 1)});
    p.end_sample(0.01, i);
  }
  CHECK(p.detailed("app@early"));
  p.add_stack({frame("late", 1)});
  p.end_sample(0.01, 4000);
  CHECK_FALSE(p.detailed("app@early"));
  CHECK(p.detailed("app@late"));
}

TEST_CASE("the sampling delay: exponential with mean CHECKTIME, capped, stretched by the budget",
          "[native][profile]") {
  sampling_delay d(delay_settings{10'000'000, 0.10, 10'000'000'000}, 42);
  CHECK(d.mean_ns() == 10'000'000);
  double sum = 0, sum_sq = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    double x = static_cast<double>(d.next_ns());
    CHECK(x >= 0);
    sum += x;
    sum_sq += x * x;
  }
  double mean = sum / n;
  double sd = std::sqrt(sum_sq / n - mean * mean);
  CHECK(mean == Approx(10e6).epsilon(0.05));
  CHECK(sd == Approx(10e6).epsilon(0.08));  // exponential: standard deviation = mean

  // The first sample's cost is a warm-up (libdw reads debug information): not counted.
  d.record_cost(900'000'000);
  CHECK(d.mean_ns() == 10'000'000);
  // A sample costing 5 ms needs 45 ms of delay to stay within 10 %.
  d.record_cost(5'000'000);
  CHECK(d.mean_ns() == 45'000'000);
  // Cheap samples leave CHECKTIME alone.
  sampling_delay cheap(delay_settings{}, 1);
  cheap.record_cost(0);  // the warm-up
  cheap.record_cost(100'000);
  CHECK(cheap.mean_ns() == 10'000'000);
  // The cost is a moving average: one slow sample moves it a quarter of the way.
  cheap.record_cost(4'100'000);
  CHECK(cheap.average_cost_ns() == Approx(1'100'000));
  // Never above the cap, neither the mean nor a draw.
  sampling_delay capped(delay_settings{10'000'000, 0.10, 10'000'000'000}, 7);
  capped.record_cost(0);  // the warm-up
  capped.record_cost(5'000'000'000);
  CHECK(capped.mean_ns() == 10'000'000'000);
  for (int i = 0; i < 1000; ++i) CHECK(capped.next_ns() <= 10'000'000'000);
}

TEST_CASE("SET CHECKTIME: a new mean at once, the measured cost kept, the cap raised to it",
          "[native][profile]") {
  sampling_delay d(delay_settings{10'000'000, 0.10, 10'000'000'000}, 3);
  d.record_cost(0);  // the warm-up
  d.record_cost(2'000'000);
  CHECK(d.mean_ns() == 18'000'000);  // the budget: 2 ms · 9
  d.set_checktime(50'000'000);
  CHECK(d.mean_ns() == 50'000'000);
  d.set_checktime(1'000'000);
  CHECK(d.mean_ns() == 18'000'000);  // the cost still stretches it
  d.set_checktime(20'000'000'000);   // above the 10 s cap: the cap follows
  CHECK(d.mean_ns() == 20'000'000'000);
  d.set_checktime(0);  // back to back, within the budget
  CHECK(d.mean_ns() == 18'000'000);
  CHECK(d.next_ns() >= 0);
}
