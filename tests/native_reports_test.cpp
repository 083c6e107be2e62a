// What a watched process's readings answer (sources/native_reports.hpp), on plain values: the
// profile's code classes (a detailed function's lines take their function's), a stack
// sample's threads, the next reading's delay, and how a line item names its function.
#include <catch2/catch.hpp>

#include "messages/profile_item_name.hpp"
#include "sources/native_reports.hpp"
#include "sources/proc_sample_builder.hpp"

using namespace perfdm;

TEST_CASE("native reports: a line item names its function by the function's name and '@'",
          "[native][profile]") {
  CHECK(names_line_of("libc.so.6@memcpy@12", "libc.so.6@memcpy"));
  CHECK_FALSE(names_line_of("libc.so.6@memcpy", "libc.so.6@memcpy"));      // itself
  CHECK_FALSE(names_line_of("libc.so.6@memcpy2@12", "libc.so.6@memcpy"));  // a longer name
  CHECK_FALSE(names_line_of("app@main@3", ""));                            // no function yet
}

TEST_CASE("native reports: each function item gets its code class, its lines share it",
          "[native][profile]") {
  native::profile_summary sum;
  sum.samples = 10;
  sum.stacks = 12;
  sum.active = 9;
  sum.montime = 2.5;
  sum.last = 2.4;
  sum.items = {{"app@work", "", 6, 4, true},
               {"app@work@17", "work.c", 4, 3, false},
               {"app@work@18", "work.c", 2, 1, false},
               {"libc.so.6@read", "", 3, 3, false},
               {"main", "", 1, 0, false}};
  std::vector<std::pair<std::string, std::string>> asked;
  auto r = profile_report(
      42, sum, {{7, "worker", 5, 1, 2, 1, 1, 0}},
      [&](const std::string& module, const std::string& function) {
        asked.emplace_back(module, function);
        return module == "libc.so.6" ? std::string("SYSTEM_IO") : std::string("NORMAL");
      });
  CHECK(r.pid == 42);
  CHECK(r.samples == 10);
  CHECK(r.stacks == 12);
  CHECK(r.active == 9);
  CHECK(r.montime == 2.5);
  CHECK(r.last == 2.4);
  CHECK(r.detailed == 1);
  REQUIRE(r.items.size() == 5);
  CHECK(r.items[0].type == "NORMAL");
  CHECK(r.items[1].type == "NORMAL");  // a line of app@work
  CHECK(r.items[1].file == "work.c");
  CHECK(r.items[2].type == "NORMAL");
  CHECK(r.items[3].type == "SYSTEM_IO");
  CHECK(r.items[4].type == "NORMAL");
  // Asked once per function item, never for a line; an item without a module has "".
  using p = std::pair<std::string, std::string>;
  CHECK(asked == std::vector<p>{{"app", "work"}, {"libc.so.6", "read"}, {"", "main"}});
  REQUIRE(r.threads.size() == 1);
  CHECK(r.threads[0].tid == 7);
  CHECK(r.threads[0].name == "worker");
  CHECK(r.threads[0].samples == 5);
  CHECK(r.threads[0].runs == 2);
}

TEST_CASE("native reports: a stack sample's threads with their frames and states",
          "[native][stacks]") {
  native::stack_snapshot snap;
  snap.pid = 42;
  native::thread_stack t;
  t.tid = 43;
  t.name = "io";
  t.state = 'D';
  native::stack_frame f;
  f.function = "read";
  f.module = "libc.so.6";
  f.file = "read.c";
  f.line = 26;
  f.pc = 0x1234;
  t.frames = {f};
  snap.threads = {t};
  auto r = stacks_report_of(42, 1.5, snap);
  CHECK(r.pid == 42);
  CHECK(r.time == 1.5);
  REQUIRE(r.threads.size() == 1);
  CHECK(r.threads[0].tid == 43);
  CHECK(r.threads[0].name == "io");
  CHECK(r.threads[0].state == native::state_name('D'));
  REQUIRE(r.threads[0].stack.size() == 1);
  CHECK(r.threads[0].stack[0].function == "read");
  CHECK(r.threads[0].stack[0].module == "libc.so.6");
  CHECK(r.threads[0].stack[0].line == 26);
}

TEST_CASE("native reports: the next reading comes 1 ms after the next interval boundary",
          "[native][proc]") {
  const time_ns ms = 1'000'000, interval = 200 * ms;
  CHECK(next_reading_delay(0, interval) == interval + ms);
  CHECK(next_reading_delay(150 * ms, interval) == 50 * ms + ms);
  CHECK(next_reading_delay(200 * ms, interval) == interval + ms);  // on a boundary: the next
  CHECK(next_reading_delay(399 * ms, interval) == ms + ms);
  // Before the origin, or without an interval: one interval.
  CHECK(next_reading_delay(-5, interval) == interval);
  CHECK(next_reading_delay(150 * ms, 0) == 0);
}
