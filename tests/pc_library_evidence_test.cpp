// The search's evidence when the process has the preloaded I/O library
// (window/library_evidence.hpp), without actors: /File foci and TooManySmallIOOps decided on
// the library's exact counts and times, the stack samples' counts without it or where it does
// not count by the focus.
#include <catch2/catch.hpp>

#include "pc/evidence.hpp"
#include "pc/search_wire.hpp"
#include "window/library_evidence.hpp"
#include "window/window_evidence.hpp"

using namespace perfdm;

namespace {

const native::sampled_process app{"h", "app", 7};
constexpr std::int64_t ms = 1000000;
constexpr std::int64_t offset = 1000 * 1000 * ms;  // the process's first call: engine time 0

// The program reads a data file in 1 MiB blocks and writes a log in 16-byte records. Every
// stack sample catches its one thread inside the read of the data file, so the samples
// charge that file all of the thread's /proc counts (reads and writes alike, and 20 8-byte
// writes to a pipe: 1 MiB and 1760 bytes in 121 operations per 100 ms) and the log nothing;
// the library counts each file, and no pipe.
native::sampled_thread in_read() {
  native::sampled_thread t;
  t.tid = 7;
  t.name = "app";
  t.activity = native::thread_activity::ios;
  t.in_io_call = true;
  t.file = "/File/data/big.bin";
  t.functions = {{"libc.so.6", "read"}, {"app", "load"}};
  t.io_ops = t.stack_io_ops = 121;
  t.io_bytes = t.stack_io_bytes = (1 << 20) + 1760;
  return t;
}

iolive::live_reading reading_at(int k) {
  iolive::live_reading r;
  r.segment = "/j/7.1.seg";
  r.start_realtime_ns = offset;
  auto& log = r.files["/File/data/log.txt"];
  log.write_ops = 100.0 * k;
  log.write_bytes = 1600.0 * k;
  log.write_time = 0.05 * k;  // half the time
  log.meta_ops = 1;
  log.meta_time = 0.001;  // its open
  auto& big = r.files["/File/data/big.bin"];
  big.read_ops = k;
  big.read_bytes = k * double(1 << 20);
  big.read_time = 0.04 * k;
  return r;
}

struct watched {
  window::sample_window stacks{app};
  window::file_window files;
  explicit watched(bool library, int readings = 30) {
    for (int k = 1; k <= readings; ++k) {
      stacks.add(k * 100 * ms, 0.1, {in_read()});
      if (library) files.add(k * 100 * ms, offset, reading_at(k));
    }
  }
  window::focus_counts at(const std::vector<std::string>& focus, double since = 0) const {
    return window::counts_with_library(stacks, files, {native::parse_pc_focus(focus)}, since)[0];
  }
};

// TooManySmallIOOps at a focus, on one process's counts: decided as the search decides it
// (threshold 4096 bytes, under I/O blocking at 0.2).
pc::truth small_ops(const window::focus_counts& c) {
  pc::evidence_decision d(pc::evidence_rule{4096, false, 0.05, 0.99, {}, 0.2});
  d.take(pc::hypothesis::too_many_small_io_ops,
         {pc::evidence_of(window::evidence_counts_of(c, 7, "h"))});
  return d.concluded();
}

pc::truth io_blocking(const window::focus_counts& c) {
  pc::evidence_decision d(pc::evidence_rule{0.2, true, 0.05, 0.99, {}, 0});
  d.take(pc::hypothesis::excessive_io_blocking_time,
         {pc::evidence_of(window::evidence_counts_of(c, 7, "h"))});
  return d.concluded();
}

}  // namespace

TEST_CASE("pc library: a /File focus takes the library's operations, bytes and time",
          "[pc][pc-library]") {
  watched with(true), without(false);
  auto log = with.at({"/File/data/log.txt"});
  CHECK(log.io_ops == 3000);
  CHECK(log.io_bytes == 3000 * 16);
  CHECK(log.io_s == Approx(0.05 * 30 + 0.001));
  CHECK(log.ios_share / log.ticks == Approx((0.05 * 30 + 0.001) / 3.0));
  CHECK(log.ticks == 30);
  // Without the library, no sample caught the thread in the log: nothing there.
  auto unseen = without.at({"/File/data/log.txt"});
  CHECK(unseen.io_ops == 0);
  CHECK(unseen.ios == 0);
  CHECK(unseen.ticks == 30);

  // The data file: 1 MiB per read by the library, all of the thread's counts by the samples.
  auto big = with.at({"/File/data/big.bin"});
  auto sampled = without.at({"/File/data/big.bin"});
  CHECK(big.io_bytes / big.io_ops == 1 << 20);
  CHECK(sampled.io_bytes / sampled.io_ops == Approx(((1 << 20) + 1760) / 121.0));
  CHECK(big.ios_share / big.ticks == Approx(0.4));
  CHECK(sampled.ios_share / sampled.ticks == Approx(1.0));
  // Since a time: the readings' differences.
  CHECK(with.at({"/File/data/log.txt"}, 2.0).io_ops == 1000);
}

TEST_CASE("pc library: TooManySmallIOOps is found at the log it writes in 16-byte records",
          "[pc][pc-library]") {
  watched with(true, 60), without(false, 60);
  auto log = with.at({"/File/data/log.txt"});
  CHECK(io_blocking(log) == pc::truth::true_);
  CHECK(small_ops(log) == pc::truth::true_);
  // The data file is read in large blocks, and the thread is in I/O there 40 % of the time.
  auto big = with.at({"/File/data/big.bin"});
  CHECK(io_blocking(big) == pc::truth::true_);
  CHECK(small_ops(big) == pc::truth::false_);
  // Without the library the log has no operation at all: nothing to call small.
  CHECK(small_ops(without.at({"/File/data/log.txt"})) == pc::truth::false_);
}

TEST_CASE("pc library: the whole process's operations are its data files', its I/O time the "
          "samples'",
          "[pc][pc-library]") {
  watched with(true), without(false);
  auto whole = with.at({"/Machine/h/app{7}"});
  auto sampled = without.at({"/Machine/h/app{7}"});
  CHECK(whole.io_ops == 3000 + 30);
  CHECK(whole.io_bytes == 3000 * 16 + 30.0 * (1 << 20));
  CHECK(sampled.io_ops == 121 * 30);
  CHECK(sampled.io_bytes == 30 * ((1 << 20) + 1760.0));
  // Pipes and sockets block too, and the library does not count them: the share stays.
  CHECK(whole.ios_share == sampled.ios_share);
  CHECK(whole.ios == sampled.ios);
  CHECK(whole.ios == 30);
}

TEST_CASE("pc library: a thread's or a function's operations on a file take the file's "
          "exact mean size",
          "[pc][pc-library]") {
  watched with(true), without(false);
  for (auto focus : std::vector<std::vector<std::string>>{
           {"/File/data/big.bin", "/Machine/h/app{7}/app{7}"},
           {"/File/data/big.bin", "/Code/app/load"}}) {
    INFO(focus[1]);
    auto a = with.at(focus), b = without.at(focus);
    CHECK(a.io_ops == b.io_ops);
    CHECK(a.io_ops == 121 * 30);
    CHECK(a.io_bytes / a.io_ops == 1 << 20);
    CHECK(b.io_bytes / b.io_ops == Approx(((1 << 20) + 1760) / 121.0));
    // Its time is the samples': the library does not say which thread waited.
    CHECK(a.ios_share == b.ios_share);
    CHECK(a.ios == 30);
  }
  // No sample caught it at the log: nothing to take a mean size of.
  auto log = with.at({"/File/data/log.txt", "/Code/app/load"});
  CHECK(log.io_ops == 0);
  CHECK(log.io_bytes == 0);
  CHECK(log.ticks == 30);
}

TEST_CASE("pc library: foci the library does not count by keep the samples' counts",
          "[pc][pc-library]") {
  watched with(true), without(false);
  // A thread or a function without a file; a file the library never counted (a pipe).
  for (auto focus : std::vector<std::vector<std::string>>{
           {"/Machine/h/app{7}/app{7}"}, {"/Code/app/load"}, {"/File/pipe:[5]"}}) {
    INFO(focus[0]);
    auto a = with.at(focus), b = without.at(focus);
    CHECK(a.io_ops == b.io_ops);
    CHECK(a.io_bytes == b.io_bytes);
    CHECK(a.ios_share == b.ios_share);
    CHECK(a.ticks == b.ticks);
  }
  CHECK(with.at({"/Code/app/load"}).io_ops == 121 * 30);
  CHECK(with.at({"/File/pipe:[5]"}).io_ops == 0);
  // Another process: outside the focus, even though the library counted the file.
  auto other = with.at({"/File/data/log.txt", "/Machine/h/app{8}"});
  CHECK(other.ticks == 0);
  CHECK(other.io_ops == 0);
}
