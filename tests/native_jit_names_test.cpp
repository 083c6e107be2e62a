// R11: frames in JIT-compiled code are named from the process's perf map (native/perf_map.*,
// native/jit_code.*), and a map that is half-written, stale or malformed names nothing wrongly
// and stops nothing. Maps are files the tests write, as a runtime does.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "native/jit_code.hpp"
#include "native/perf_map.hpp"
#include "tests/real_program_process.hpp"

using namespace perfdm::native;

namespace {

void append(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::app) << text;
}

double now_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

}  // namespace

TEST_CASE("R11 perf map lines: hex with or without 0x, the name the rest of the line",
          "[native][jit]") {
  auto e = parse_perf_map_line("7f2d34006180 180 JS:*fib /tmp/pcn/fib.js:1:13");
  REQUIRE(e);
  CHECK(e->start == 0x7f2d34006180);
  CHECK(e->size == 0x180);
  CHECK(e->name == "JS:*fib /tmp/pcn/fib.js:1:13");
  auto jvm = parse_perf_map_line("0x00007f00dead0000 0x40 java.lang.String::hashCode()\r");
  REQUIRE(jvm);
  CHECK(jvm->start == 0x7f00dead0000);
  CHECK(jvm->size == 0x40);
  CHECK(jvm->name == "java.lang.String::hashCode()");
  // Malformed: nothing is named from them.
  CHECK_FALSE(parse_perf_map_line(""));
  CHECK_FALSE(parse_perf_map_line("7f00 10"));             // no name
  CHECK_FALSE(parse_perf_map_line("7f00 0 zero_size"));    // empty range
  CHECK_FALSE(parse_perf_map_line("7g00 10 bad_start"));   // not hex
  CHECK_FALSE(parse_perf_map_line("7f00 1x0 bad_size"));
  CHECK_FALSE(parse_perf_map_line("ffffffffffffff00 200 wraps"));
  CHECK_FALSE(parse_perf_map_line("name only"));
  CHECK_FALSE(parse_perf_map_line("0x 10 no_digits"));
}

TEST_CASE("R11 perf map: read lazily, again when it grows, the most recent line wins",
          "[native][jit]") {
  real_program::temp_dir dir;
  auto path = dir / "perf-1.map";
  perf_map map(path, 0);
  CHECK_FALSE(map.name(0x1000));  // no file yet: nothing, no error
  CHECK_FALSE(map.found());
  real_program::write_file(path, "1000 100 first\n2000 100 second\n");
  CHECK_FALSE(map.name(0x1000));  // not looked at again before a refresh
  map.refresh();
  CHECK(map.name(0x1000) == "first");
  CHECK(map.name(0x10ff) == "first");
  CHECK_FALSE(map.name(0x1100));
  CHECK(map.name(0x2080) == "second");
  CHECK(map.found());
  // The runtime reuses memory: a later entry over part of an older one names that part.
  append(path, "1080 40 reused\n1f80 100 straddles\n");
  map.refresh();
  CHECK(map.name(0x1000) == "first");
  CHECK(map.name(0x1080) == "reused");
  CHECK(map.name(0x10bf) == "reused");
  CHECK(map.name(0x10c0) == "first");  // the older entry keeps what the new one leaves
  CHECK(map.name(0x1f80) == "straddles");
  CHECK(map.name(0x2000) == "straddles");
  CHECK(map.name(0x207f) == "straddles");
  CHECK(map.name(0x2080) == "second");
  CHECK(map.entries() == 5);
  // A later entry covering several older ones whole.
  append(path, "1000 1200 everything\n");
  map.refresh();
  CHECK(map.name(0x1000) == "everything");
  CHECK(map.name(0x2080) == "everything");
  CHECK(map.entries() == 1);
}

TEST_CASE("R11 perf map: a half-written line waits for its newline, malformed lines are skipped",
          "[native][jit]") {
  real_program::temp_dir dir;
  auto path = dir / "perf-2.map";
  real_program::write_file(path, "1000 100 whole\nnot a line\n3000 100 JS:*hal");
  perf_map map(path, 0);
  CHECK(map.name(0x1000) == "whole");
  CHECK_FALSE(map.name(0x3000));  // half-written: not "JS:*hal"
  CHECK(map.malformed() == 1);
  append(path, "f /tmp/x.js:3:1\n4000 100 after\n");
  map.refresh();
  CHECK(map.name(0x3000) == "JS:*half /tmp/x.js:3:1");
  CHECK(map.name(0x4000) == "after");
  CHECK(map.malformed() == 1);
}

TEST_CASE("R11 perf map: a file replaced or shrunk is read again, a stale one names nothing",
          "[native][jit]") {
  real_program::temp_dir dir;
  auto path = dir / "perf-3.map";
  real_program::write_file(path, "1000 100 old_process\n");
  // Written an hour before the process started: another process's of the same pid.
  timespec times[2] = {{now_seconds() > 7200 ? static_cast<time_t>(now_seconds()) - 3600 : 0, 0},
                       {now_seconds() > 7200 ? static_cast<time_t>(now_seconds()) - 3600 : 0, 0}};
  REQUIRE(utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
  perf_map map(path, now_seconds());
  CHECK_FALSE(map.name(0x1000));
  CHECK(map.stale());
  CHECK_FALSE(map.found());
  // The process writes its own map over it (fopen "w"): named from then on.
  real_program::write_file(path, "1000 80 new_process\n");
  map.refresh();
  CHECK(map.name(0x1000) == "new_process");
  CHECK_FALSE(map.name(0x1080));  // the old entry's tail is gone with it
  CHECK_FALSE(map.stale());
  // Replaced by a shorter file: read from its start.
  REQUIRE(std::remove(path.c_str()) == 0);
  real_program::write_file(path, "5000 10 x\n");
  map.refresh();
  CHECK_FALSE(map.name(0x1000));
  CHECK(map.name(0x5000) == "x");
  // A directory where the file should be: nothing, no error.
  REQUIRE(std::remove(path.c_str()) == 0);
  REQUIRE(mkdir(path.c_str(), 0700) == 0);
  map.refresh();
  CHECK_FALSE(map.name(0x5000));
  CHECK_FALSE(map.found());
}

TEST_CASE("R11 JIT frame names: V8's tiers are one function with its script and line, CPython's",
          "[native][jit]") {
  auto optimised = jit_frame_name_of("JS:*fib /tmp/pcn/fib.js:1:13");
  CHECK(optimised.function == "fib");
  CHECK(optimised.file == "/tmp/pcn/fib.js");
  CHECK(optimised.line == 1);
  for (auto tier : {"JS:~fib /tmp/pcn/fib.js:1:13", "JS:^fib /tmp/pcn/fib.js:1:13",
                    "JS:+fib /tmp/pcn/fib.js:1:13", "LazyCompile:*fib /tmp/pcn/fib.js:1"}) {
    INFO(tier);
    auto n = jit_frame_name_of(tier);
    CHECK(n.function == "fib");
    CHECK(n.file == "/tmp/pcn/fib.js");
    CHECK(n.line == 1);
  }
  auto internal = jit_frame_name_of("JS:^requireBuiltin node:internal/bootstrap/realm:420:24");
  CHECK(internal.function == "requireBuiltin");
  CHECK(internal.file == "node:internal/bootstrap/realm");
  CHECK(internal.line == 420);
  CHECK(jit_frame_name_of("JS:~ /tmp/x.js:1:1").function == "(top level)");
  auto python = jit_frame_name_of("py::Worker.run:/srv/app/worker.py");
  CHECK(python.function == "Worker.run");
  CHECK(python.file == "/srv/app/worker.py");
  auto builtin = jit_frame_name_of("Builtin:ArrayPrototypePush");
  CHECK(builtin.function == "Builtin:ArrayPrototypePush");
  CHECK(builtin.file.empty());
  auto no_location = jit_frame_name_of("JS:*fib");
  CHECK(no_location.function == "fib");
  CHECK(no_location.file.empty());
  CHECK(unnamed_jit_function("node") == "[jit node]");
}

TEST_CASE("R11 JIT code: executable mappings no file backs, from /proc/PID/maps",
          "[native][jit]") {
  const std::string maps =
      "00b72000-025fe000 r-xp 00772000 fe:00 247823                             /usr/bin/node\n"
      "7f6ad67c3000-7f6ad67ff000 rwxp 00000000 00:00 0 \n"
      "7f6ad6800000-7f6ad6900000 rw-p 00000000 00:00 0 \n"
      "7f6ad7000000-7f6ad7001000 r-xp 00000000 00:01 99                         /memfd:jit (deleted)\n"
      "7f6ad7100000-7f6ad7101000 r-xp 00000000 00:00 0                          [anon:v8]\n"
      "7f6afdb9f000-7f6afdba1000 r-xp 00000000 00:00 0                          [vdso]\n"
      "garbage line\n"
      "7f6ae0000000-7f6ae0001000 r-xp 00000000 00:00 0";  // last line, no newline, no path
  auto r = jit_code_ranges(maps);
  REQUIRE(r.size() == 4);
  CHECK(r[0] == std::make_pair(std::uint64_t{0x7f6ad67c3000}, std::uint64_t{0x7f6ad67ff000}));
  CHECK(r[1].first == 0x7f6ad7000000);
  CHECK(r[2].first == 0x7f6ad7100000);
  CHECK(r[3].first == 0x7f6ae0000000);
}

TEST_CASE("R11 JIT code: named from this process's own perf map, else [jit <runtime>]",
          "[native][jit]") {
  // This test process is the runtime: its map is /tmp/perf-<pid>.map.
  const auto path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
  std::remove(path.c_str());
  jit_code jit(getpid());
  CHECK_FALSE(jit.runtime().empty());
  jit.update("7f0000000000-7f0000010000 rwxp 00000000 00:00 0 \n");
  auto unnamed = jit.frame(0x7f0000000100);
  REQUIRE(unnamed);
  CHECK(unnamed->function == "[jit " + jit.runtime() + "]");
  CHECK_FALSE(jit.frame(0x7f0000010000));  // past the mapping: not JIT code
  CHECK_FALSE(jit.frame(0x1000));
  real_program::write_file(path, "7f0000000000 200 JS:*fib /tmp/app/fib.js:4:10\n");
  jit.refresh();
  auto named = jit.frame(0x7f0000000100);
  REQUIRE(named);
  CHECK(named->function == "fib");
  CHECK(named->module == "/tmp/app/fib.js");
  CHECK(named->line == 4);
  auto beyond = jit.frame(0x7f0000000300);  // JIT code the map does not cover
  REQUIRE(beyond);
  CHECK(beyond->function == "[jit " + jit.runtime() + "]");
  std::remove(path.c_str());
}
