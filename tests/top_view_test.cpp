// `perfdm top`'s screen (top/top_view.hpp) from the engine's replies: the on-CPU profile,
// the off-CPU profile from the blocked stacks, the threads, the findings first, within the
// terminal's width and height.
#include <catch2/catch.hpp>

#include "top/top_view.hpp"

using namespace perfdm;
using namespace perfdm::top;

namespace {

cpu_profile_report profile() {
  cpu_profile_report r;
  r.pid = 42;
  r.active = 200;
  r.items = {{"pc_cpu@tokenize", "", 180, 180, "NORMAL"},
             {"pc_cpu@parse", "", 200, 20, "NORMAL"},
             {"pc_cpu@parse@12", "p.cpp", 20, 20, "NORMAL"},  // a source line: not a function
             {"pc_cpu@main", "", 200, 0, "NORMAL"}};
  thread_state_entry t;
  t.tid = 42;
  t.name = "pc_cpu";
  t.samples = 100;
  t.runs = 90;
  t.sleeps = 10;
  r.threads = {t};
  return r;
}

stacks_report blocked(double time) {
  stacks_report r;
  r.pid = 42;
  r.time = time;
  thread_entry running{42, "pc_cpu", "running", {{"tokenize", "", 0, "pc_cpu", 1}}};
  thread_entry waiting{43, "worker", "sleeping",
                       {{"__lll_lock_wait", "", 0, "libc.so.6", 2},
                        {"update_table", "", 0, "pc_lock", 3},
                        {"worker_main", "", 0, "pc_lock", 4}}};
  r.threads = {running, waiting};
  return r;
}

bool has_line(const std::vector<std::string>& screen, const std::string& text) {
  for (auto& l : screen)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("top view: the on-CPU screen ranks functions by self share, 80x24", "[top]") {
  top_model m;
  m.profile(profile());
  m.status("pc_cpu \u2014 3 s");
  auto rows = m.on_cpu();
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].name == "tokenize (pc_cpu)");
  CHECK(rows[0].self == Approx(0.9));
  CHECK(rows[1].name == "parse (pc_cpu)");
  CHECK(rows[1].total == Approx(1.0));
  auto screen = m.screen(view::cpu, 80, 24);
  REQUIRE(screen.size() == 24);
  for (auto& l : screen) CHECK(l.size() >= 80);  // padded: every column is drawn
  CHECK(screen[0].rfind("perfdm top \u2014 pc_cpu \u2014 3 s", 0) == 0);
  CHECK(has_line(screen, "[c]on-CPU"));
  CHECK(has_line(screen, " 90.0%  90.0%  tokenize (pc_cpu)"));
  CHECK(has_line(screen, "findings: none yet"));
}

TEST_CASE("top view: off-CPU comes from blocked stacks, each sample counted once", "[top]") {
  top_model m;
  m.stacks(blocked(1.0));
  m.stacks(blocked(1.0));  // the same sample again
  m.stacks(blocked(1.5));
  CHECK(m.off_cpu_samples() == 2);
  auto rows = m.off_cpu();
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].name == "__lll_lock_wait (libc.so.6)");
  CHECK(rows[0].self == Approx(1.0));
  CHECK(rows[1].total == Approx(1.0));
  CHECK(rows[1].self == Approx(0.0));
  auto screen = m.screen(view::offcpu, 80, 24);
  CHECK(has_line(screen, "2 blocked samples"));
  CHECK(has_line(screen, "[o]off-CPU"));
}

TEST_CASE("top view: threads with their states, findings first, small terminals", "[top]") {
  top_model m;
  m.profile(profile());
  m.stacks(blocked(1.0));
  m.findings({"CPUbound 90% of time in tokenize (pc_cpu) \u2014 thread pc_cpu{42} \u2014 since 1.2 s"});
  auto screen = m.screen(view::threads, 80, 24);
  CHECK(has_line(screen, "pc_cpu{42}"));
  CHECK(has_line(screen, "running"));
  CHECK(has_line(screen, "  90%"));
  CHECK(has_line(screen, " 1. CPUbound 90% of time in tokenize (pc_cpu)"));
  // 40x6: still six lines of forty columns (the em dash is one column).
  auto small = m.screen(view::findings, 40, 6);
  REQUIRE(small.size() == 6);
  CHECK(fit("a\u2014b", 2) == "a\u2014");
  CHECK(fit("ab", 4) == "ab  ");
  CHECK(function_name("libc.so.6@read") == "read (libc.so.6)");
  CHECK(function_name("m@f@10").empty());
}
