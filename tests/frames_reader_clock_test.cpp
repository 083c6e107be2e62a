// `perfdm gen --clock reader` (docs/FRAMES.md §3): the generated component compiles as C++
// and is used from C, a real writer process stamps its frames with the time the reader
// stored in the segment header, and a bad --clock is refused. The component is generated
// and compiled by the test itself (g++, gcc), as an observed program's build would.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "shm/frame_reader.hpp"
#include "shm/schema.hpp"
#include "shm/segment.hpp"
#include "shm/segment_format.hpp"
#include "tests/frames_test_process.hpp"
#include "tests/frames_test_values.hpp"
#include "tests/live_engine_test_support.hpp"

using namespace perfdm::shm;
using frames_test::child;

namespace {

int run(const std::vector<std::string>& argv, const std::string& name) {
  child c(argv, frames_test::temp_path(name + ".out"), frames_test::temp_path(name + ".err"));
  const int status = c.wait(120);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// tests/frames/writer.cpp built on a `perfdm gen --clock reader` component in a fresh
// directory named `name`; returns the executable's path.
std::string build_reader_clock_writer(const std::string& name) {
  const std::string dir = frames_test::temp_path(name);
  REQUIRE(run({PERFDM_BINARY, "gen", PERFDM_SOURCE_DIR "/tests/frames/test.frames", "-o", dir,
               "--clock", "reader"},
              name + ".gen") == 0);
  const std::string writer_path = dir + "/writer";
  REQUIRE(run({"/usr/bin/g++", "-std=c++17", "-O1", "-I" + dir, "-I" PERFDM_SOURCE_DIR,
               PERFDM_SOURCE_DIR "/tests/frames/writer.cpp", dir + "/test_frames.cpp", "-o",
               writer_path, "-lpthread"},
              name + ".cxx") == 0);
  return writer_path;
}

}  // namespace

TEST_CASE("frames reader clock: generated, compiled from C, stamped with the reader's time") {
  const std::string dir = frames_test::temp_path("reader_clock");
  REQUIRE(run({PERFDM_BINARY, "gen", PERFDM_SOURCE_DIR "/tests/frames/test.frames", "-o", dir,
               "--clock", "reader"},
              "gen") == 0);
  REQUIRE(run({"/usr/bin/g++", "-std=c++17", "-Wall", "-Wextra", "-pedantic", "-Werror", "-I" + dir,
               "-c", dir + "/test_frames.cpp", "-o", dir + "/frames.o"},
              "cxx") == 0);
  REQUIRE(run({"/usr/bin/gcc", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-I" + dir,
               "-I" PERFDM_SOURCE_DIR, "-c", PERFDM_SOURCE_DIR "/tests/frames/writer_c.c", "-o",
               dir + "/writer.o"},
              "cc") == 0);
  const std::string writer_path = dir + "/writer";
  REQUIRE(
      run({"/usr/bin/g++", dir + "/writer.o", dir + "/frames.o", "-o", writer_path, "-lpthread"},
          "link") == 0);

  constexpr int frames = 2000;
  child writer({writer_path, std::to_string(frames)}, "", frames_test::temp_path("rc.err"));
  const auto layout = parse_schema_file(PERFDM_SOURCE_DIR "/tests/frames/test.frames")[0];
  segment_options o{4, 4096};
  o.clock = format::clock_reader;
  auto seg = segment::create(writer.pid(), segment::new_handle(), layout, o);
  frame_reader reader(seg.name());
  CHECK(reader.uses_reader_clock());
  const std::int64_t before = monotonic_now_ns();
  reader.advance_reader_clock();
  const std::int64_t stored = reader.reader_clock_ns();
  CHECK(stored >= before);
  std::ostringstream hex;
  hex << std::hex << seg.handle();
  writer.send(hex.str());
  REQUIRE(WIFEXITED(writer.wait()));
  CHECK(WEXITSTATUS(writer.wait()) == 0);
  // Nobody polled while the writer ran: every frame carries the one time stored before.
  std::set<std::int64_t> stamps;
  std::uint64_t next = 0;
  bool exact = true;
  reader.poll([&](const std::byte* p, std::int64_t ns) {
    const auto f = frames_test::as_sample(p);
    exact = exact && frames_test::consistent(f) && f.index == next && f.perfdm_seq == next + 1;
    stamps.insert(ns);
    ++next;
  });
  CHECK(next == frames);
  CHECK(exact);
  CHECK(stamps == std::set<std::int64_t>{stored});
  // A poll moves the time on, never back.
  CHECK(reader.reader_clock_ns() >= stored);
  const auto c = reader.counters();
  CHECK(c.read == frames);
  CHECK(c.lost == 0);
  CHECK(reader.writer_state() == format::writer_attached);
  seg.remove();
}

TEST_CASE("frames reader clock: a tsc writer refuses a reader-clock segment, gen a bad --clock") {
  CHECK(run({PERFDM_BINARY, "gen", PERFDM_SOURCE_DIR "/tests/frames/test.frames", "-o",
             frames_test::temp_path("bad_clock"), "--clock", "sundial"},
            "badclock") == 1);
  CHECK_THAT(frames_test::slurp(frames_test::temp_path("badclock.err")),
             Catch::Contains("--clock must be tsc or reader, not 'sundial'"));
  // The C writer of the other tests is generated with the default tsc clock.
  child writer({FRAMES_WRITER_C, "10"}, "", frames_test::temp_path("tsc.err"));
  const auto layout = parse_schema_file(PERFDM_SOURCE_DIR "/tests/frames/test.frames")[0];
  segment_options o{1, 64};
  o.clock = format::clock_reader;
  auto seg = segment::create(writer.pid(), segment::new_handle(), layout, o);
  frame_reader reader(seg.name());
  std::ostringstream hex;
  hex << std::hex << seg.handle();
  writer.send(hex.str());
  REQUIRE(WIFEXITED(writer.wait()));
  CHECK(reader.poll([](const std::byte*, std::int64_t) {}) == 0);
  CHECK(reader.writer_state() == format::writer_mismatch);
  seg.remove();
}

TEST_CASE("frames reader clock: ATTACH a reader-clock program, every frame reaches the histogram",
          "[ingest]") {
  const std::string writer_path = build_reader_clock_writer("reader_clock_ingest");
  child writer({writer_path}, "", frames_test::temp_path("ingest.err"));
  auto o = perfdm::test::live_engine::options();
  o.engine.base_width = 10'000'000;
  perfdm::test::live_engine e(o);
  auto dm = [](const std::string& command, const std::string& arg = "") {
    return "<DYPER PID='DM' COMMAND='" + command + "'>" + arg + "</DYPER>";
  };
  REQUIRE_THAT(e.reply(dm("ATTACH", "<PROCESS PID='" + std::to_string(writer.pid()) + "'/>")),
               Catch::Contains("sample"));
  e.reply(dm("STREAM"));
  e.reply(dm("ENABLE", "<ENABLE STREAM='0' METRIC='sample.index'/>"));
  constexpr std::uint64_t frames = 3000;  // fits a lane: none can be lost
  REQUIRE(writer.command("write " + std::to_string(frames) + " 1 0"));
  const double expected = static_cast<double>(frames * (frames - 1) / 2);  // Σ index
  double total = 0;
  CHECK(perfdm::test::eventually([&] {
    total = 0;
    for (double b : perfdm::test::buckets(e.reply(dm("DATA", "<DATA MI='0'/>"))))
      if (!std::isnan(b)) total += b;
    return total == expected;
  }));
  CHECK(total == expected);
  const auto f = e.reply(dm("FRAMES"));
  CHECK_THAT(f, Catch::Contains("READ='" + std::to_string(frames) + "'"));
  CHECK_THAT(f, Catch::Contains("LOST='0'"));
  writer.command("exit");
}

TEST_CASE("frames reader clock: a spinning writer's stamps are the polls' times, in order") {
  const std::string writer_path = build_reader_clock_writer("reader_clock_spin");
  child writer({writer_path}, "", frames_test::temp_path("spin.err"));
  const auto layout = parse_schema_file(PERFDM_SOURCE_DIR "/tests/frames/test.frames")[0];
  segment_options o{1, 1u << 16};
  o.clock = format::clock_reader;
  auto seg = segment::create(writer.pid(), segment::new_handle(), layout, o);
  frame_reader reader(seg.name());
  std::set<std::int64_t> stored{reader.reader_clock_ns()};
  std::ostringstream hex;
  hex << std::hex << seg.handle();
  REQUIRE(writer.command("handle " + hex.str()));
  REQUIRE(writer.command("spin 1"));
  std::vector<std::int64_t> stamps;
  const auto until = monotonic_now_ns() + 300'000'000;
  const auto give_up = until + 20'000'000'000;  // a writer that never writes fails below
  while ((monotonic_now_ns() < until || stamps.size() < 1000) && monotonic_now_ns() < give_up) {
    reader.poll([&](const std::byte*, std::int64_t ns) { stamps.push_back(ns); });
    stored.insert(reader.reader_clock_ns());  // what this poll stored (the only reader)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  writer.signal(SIGKILL);
  REQUIRE(stamps.size() >= 1000);
  bool ordered = true, from_reader = true;
  for (std::size_t i = 0; i < stamps.size(); ++i) {
    ordered = ordered && (i == 0 || stamps[i - 1] <= stamps[i]);
    from_reader = from_reader && stored.count(stamps[i]) == 1;
  }
  CHECK(ordered);
  CHECK(from_reader);
  // Polled while the writer spun, so the frames carry more than one poll's time.
  CHECK(std::set<std::int64_t>(stamps.begin(), stamps.end()).size() > 1);
  seg.remove();
}
