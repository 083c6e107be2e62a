// The frames ring between processes: generated writers in C and C++ as real processes,
// the reader in the test or in `perfdm read` (docs/FRAMES.md §3, §4).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "shm/frame_reader.hpp"
#include "shm/schema.hpp"
#include "shm/segment.hpp"
#include "shm/segment_format.hpp"
#include "test_frames.h"
#include "tests/frames_test_process.hpp"
#include "tests/frames_test_values.hpp"

using namespace perfdm::shm;
using frames_test::child;

namespace {

const std::vector<frame_layout>& test_layouts() {
  static const auto l = parse_schema_file(PERFDM_SOURCE_DIR "/tests/frames/test.frames");
  return l;
}

struct target_segment {
  target_segment(int pid, segment_options o, const frame_layout& l = test_layouts()[0])
      : s(segment::create(pid, segment::new_handle(), l, o)) {}
  ~target_segment() { s.remove(); }
  std::string hex() const {
    std::ostringstream h;
    h << std::hex << s.handle();
    return h.str();
  }
  segment s;
};

using frames_test::as_sample;

// Polls until f() holds, up to 20 s.
template <class F>
bool eventually(F&& f) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!f()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const auto tab = line.find('\t', start);
    out.push_back(line.substr(start, tab - start));
    if (tab == std::string::npos) return out;
    start = tab + 1;
  }
}

}  // namespace

TEST_CASE("frames process: a C program writes frames another process reads exactly") {
  constexpr int frames = 3000;
  child writer({FRAMES_WRITER_C, std::to_string(frames)}, "", frames_test::temp_path("c.err"));
  target_segment seg(writer.pid(), {4, 4096});  // room for every frame: nothing is lost
  frame_reader reader(seg.s.name());
  writer.send(seg.hex());
  REQUIRE(WIFEXITED(writer.wait()));
  CHECK(WEXITSTATUS(writer.wait()) == 0);
  std::uint64_t next = 0;
  bool exact = true;
  reader.poll([&](const std::byte* p, std::int64_t) {
    const auto f = as_sample(p);
    exact = exact && frames_test::consistent(f) && f.thread == 0 && f.index == next &&
            f.perfdm_seq == next + 1;
    ++next;
  });
  CHECK(next == frames);
  CHECK(exact);
  reader.writer_gone();
  const auto c = reader.counters();
  CHECK(c.read == frames);
  CHECK(c.lost == 0);
  CHECK(c.torn == 0);
  CHECK(reader.writer_state() == format::writer_attached);
  CHECK(reader.writer_pid() == writer.pid());
}

TEST_CASE("frames process: a C++ program's threads and two frame types, read while written") {
  child writer({FRAMES_WRITER}, "", frames_test::temp_path("cpp.err"));
  target_segment samples(writer.pid(), {8, 256});
  target_segment pairs(writer.pid(), {1, 1024}, test_layouts()[1]);
  frame_reader reader(samples.s.name());
  frame_reader pair_reader(pairs.s.name());
  frames_test::frame_check check;
  auto take = [&](const std::byte* p, std::int64_t t) { check(p, t); };
  REQUIRE(writer.command("handle " + samples.hex()));
  REQUIRE(writer.command("write 1 1 99"));  // opens the segment: no frame dropped later
  writer.send("write 20000 4 0");
  std::string answer;
  // Read while the four threads write; with 256 slots per lane some may be overwritten.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!writer.wait_line(answer, 0.001) && std::chrono::steady_clock::now() < deadline)
    reader.poll(take);
  REQUIRE(answer == "ok");
  REQUIRE(writer.command("pair " + pairs.hex() + " 500"));
  REQUIRE(writer.command("exit"));
  writer.wait();
  reader.poll(take);
  reader.writer_gone();
  const auto c = reader.counters();
  CHECK(c.read + c.lost == 1 + 4 * 20000);
  CHECK(c.read + c.lost == reader.committed());
  CHECK(c.torn == 0);
  CHECK(c.transition_drops == 0);
  CHECK(check.duplicates == 0);
  CHECK(check.consistent);
  CHECK(check.total() == c.read);
  std::uint64_t pair_frames = 0;
  bool pairs_right = true;
  pair_reader.poll([&](const std::byte* p, std::int64_t) {
    perfdm_pair_frame f;
    std::memcpy(&f, p, sizeof f);
    pairs_right = pairs_right && f.first == pair_frames && f.second == 2 * pair_frames;
    ++pair_frames;
  });
  CHECK(pair_frames == 500);
  CHECK(pairs_right);
}

TEST_CASE("frames process: a slow reader counts the frames overwritten before it came") {
  constexpr int frames = 3000;
  child writer({FRAMES_WRITER_C, std::to_string(frames)}, "", frames_test::temp_path("slow.err"));
  target_segment seg(writer.pid(), {2, 256});
  frame_reader reader(seg.s.name());
  writer.send(seg.hex());
  writer.wait();
  std::uint64_t first = 0, n = 0;
  reader.poll([&](const std::byte* p, std::int64_t) {
    if (n++ == 0) first = as_sample(p).index;
  });
  reader.writer_gone();
  const auto c = reader.counters();
  CHECK(c.read == 256);
  CHECK(c.lost == frames - 256);
  CHECK(first == frames - 256);
  CHECK(c.torn == 0);
}

TEST_CASE("frames process: a forked child does not write into its parent's segment") {
  child writer({FRAMES_WRITER}, "", frames_test::temp_path("fork.err"));
  target_segment seg(writer.pid(), {4, 1024});
  frame_reader reader(seg.s.name());
  REQUIRE(writer.command("handle " + seg.hex()));
  REQUIRE(writer.command("write 10 1 0"));
  REQUIRE(writer.command("fork 100"));
  REQUIRE(writer.command("write 10 1 1"));
  std::map<int, int> per_thread;
  reader.poll([&](const std::byte* p, std::int64_t) { ++per_thread[as_sample(p).thread]; });
  CHECK(per_thread[0] == 10);
  CHECK(per_thread[1] == 10);
  CHECK(per_thread.count(77) == 0);
  CHECK(reader.counters().lost == 0);
  CHECK(reader.writer_pid() == writer.pid());
}

TEST_CASE("frames process: SIGKILL at random points never yields a torn frame as data") {
  std::mt19937 rng(std::random_device{}());
  std::uint64_t torn_total = 0;
  for (int round = 0; round < 12; ++round) {
    INFO("round " << round);
    child writer({FRAMES_WRITER}, "", frames_test::temp_path("kill.err"));
    target_segment seg(writer.pid(), {4, 64});
    frame_reader reader(seg.s.name());
    bool consistent = true;
    std::map<int, std::uint64_t> next_index;  // per thread: indices only grow
    bool increasing = true;
    auto take = [&](const std::byte* p, std::int64_t) {
      const auto f = as_sample(p);
      consistent = consistent && frames_test::consistent(f);
      auto it = next_index.find(f.thread);
      if (it != next_index.end() && f.index < it->second) increasing = false;
      next_index[f.thread] = f.index + 1;
    };
    REQUIRE(writer.command("handle " + seg.hex()));
    REQUIRE(writer.command("spin 2"));
    REQUIRE(eventually([&] { return reader.committed() > 0; }));
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::microseconds(200 + rng() % 20000);
    while (std::chrono::steady_clock::now() < until) reader.poll(take);
    writer.signal(SIGKILL);
    const int status = writer.wait();
    CHECK(WIFSIGNALED(status));
    while (reader.poll(take) != 0) {
    }
    reader.writer_gone();
    const auto c = reader.counters();
    CHECK(consistent);
    CHECK(increasing);
    CHECK(c.read + c.lost == reader.committed());
    CHECK(c.torn <= 2);  // at most one frame in flight per writing thread
    CHECK(c.read > 0);
    torn_total += c.torn;
  }
  // Whether a kill lands mid-frame is chance; the count is shown, not required.
  WARN("torn frames over the rounds: " << torn_total);
}

TEST_CASE("frames process: perfdm read prints every frame as a row, then the counts") {
  child writer({FRAMES_WRITER}, "", frames_test::temp_path("read_w.err"));
  target_segment seg(writer.pid(), {4, 4096});
  const auto out = frames_test::temp_path("read.out"), err = frames_test::temp_path("read.err");
  child read(
      {PERFDM_BINARY, "read", "/dev/shm/" + seg.s.name(), "--pid", std::to_string(writer.pid())},
      out, err);
  REQUIRE(writer.command("handle " + seg.hex()));
  // One frame first: it opens the segment, so no frame of the two threads is dropped while
  // one of them would be opening it (transition_drops).
  REQUIRE(writer.command("write 1 1 9"));
  REQUIRE(writer.command("write 700 2 0"));
  REQUIRE(writer.command("exit"));
  const int status = read.wait(60);  // it ends by itself once the writer has gone
  writer.wait();
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  const auto rows = lines_of(frames_test::slurp(out));
  REQUIRE(rows.size() == 1 + 1401);
  CHECK(rows[0] ==
        "seq\ttime_ns\tlane\tsample.index\tsample.quarter\tsample.wide\tsample.thread"
        "\tsample.half\tsample.big\tsample.negative\tsample.medium\tsample.small"
        "\tsample.odd\tsample.label\tsample.tiny");
  std::map<std::string, int> per_thread;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto cols = split_tabs(rows[i]);
    REQUIRE(cols.size() == 15);
    const auto index = std::stoull(cols[3]);
    per_thread[cols[6]] += 1;
    CHECK(cols[5] == std::to_string(-static_cast<std::int64_t>(index) * 1000));
    CHECK(cols[4] == std::to_string(index / 4) + (index % 4 == 0   ? ""
                                                  : index % 4 == 1 ? ".25"
                                                  : index % 4 == 2 ? ".5"
                                                                   : ".75"));
    CHECK(cols[13] == frames_test::label_of(std::stoi(cols[6]), index));
  }
  CHECK(per_thread["0"] == 700);
  CHECK(per_thread["1"] == 700);
  CHECK(per_thread["9"] == 1);
  CHECK(frames_test::slurp(err) == "frames read 1401, lost 0, torn 0\n");
}

TEST_CASE("frames process: perfdm read stops on SIGTERM and refuses what is not a segment") {
  target_segment seg(::getpid(), {1, 16});
  const auto out = frames_test::temp_path("term.out"), err = frames_test::temp_path("term.err");
  {
    child read({PERFDM_BINARY, "read", seg.s.name()}, out, err);
    REQUIRE(eventually([&] { return !frames_test::slurp(out).empty(); }));
    read.signal(SIGTERM);
    const int status = read.wait();
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(frames_test::slurp(err) == "frames read 0, lost 0, torn 0\n");
  }
  {
    child read({PERFDM_BINARY, "read", "perfdm.1.0000000000000bad"}, out, err);
    const int status = read.wait();
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    CHECK_THAT(frames_test::slurp(err), Catch::StartsWith("perfdm read: cannot open the segment"));
  }
}

TEST_CASE("frames process: perfdm gen writes both files, or the schema's error with its position") {
  const auto dir = frames_test::temp_path("gen");
  const auto bad = frames_test::temp_path("bad.frames");
  {
    std::ofstream f(bad);
    f << "struct s {\n  uint64_t ok;\n  float *p;\n};\n";
  }
  const auto err = frames_test::temp_path("gen.err");
  {
    child gen({PERFDM_BINARY, "gen", bad, "-o", dir}, frames_test::temp_path("gen.out"), err);
    const int status = gen.wait();
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    CHECK_THAT(frames_test::slurp(err), Catch::StartsWith(bad + ":3:9: pointers are not allowed"));
  }
  {
    child gen({PERFDM_BINARY, "gen", PERFDM_SOURCE_DIR "/tests/frames/test.frames", "-o", dir},
              frames_test::temp_path("gen.out"), err);
    const int status = gen.wait();
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK_THAT(frames_test::slurp(dir + "/test_frames.h"), Catch::Contains("perfdm_sample_frame"));
    CHECK_THAT(frames_test::slurp(dir + "/test_frames.cpp"),
               Catch::Contains("perfdm_write_sample_observing"));
  }
  std::remove(bad.c_str());
  std::remove((dir + "/test_frames.h").c_str());
  std::remove((dir + "/test_frames.cpp").c_str());
  ::rmdir(dir.c_str());
}
