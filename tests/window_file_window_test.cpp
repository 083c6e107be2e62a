// The window of the I/O library's readings (window/file_window.hpp), without actors: what a
// focus did since a time as differences of the library's cumulative per-file totals, which
// files a focus takes, and the bounds (span and bytes), with what goes counted.
#include <catch2/catch.hpp>

#include "native/focus_attribution.hpp"
#include "window/file_window.hpp"

using namespace perfdm;

namespace {

const native::sampled_process app{"h", "app", 7};
constexpr std::int64_t ms = 1000000;
// CLOCK_REALTIME minus engine time: the process's first call is at engine time 0.
constexpr std::int64_t offset = 1000 * 1000 * ms;

iolive::file_counts writes(double ops, double bytes_each, double seconds) {
  iolive::file_counts c;
  c.write_ops = ops;
  c.write_bytes = ops * bytes_each;
  c.write_time = seconds;
  return c;
}

iolive::file_counts reads(double ops, double bytes_each, double seconds) {
  iolive::file_counts c;
  c.read_ops = ops;
  c.read_bytes = ops * bytes_each;
  c.read_time = seconds;
  return c;
}

// At the k-th reading (every 100 ms): a log of 100 16-byte writes per reading, a data file of
// one 1 MiB read, and /proc/self/stat read 5 times (a pseudo-file).
iolive::live_reading reading_at(int k, const std::string& segment = "/j/7.1.seg",
                                std::int64_t start = offset) {
  iolive::live_reading r;
  r.segment = segment;
  r.start_realtime_ns = start;
  r.files["/File/data/log.txt"] = writes(100.0 * k, 16, 0.05 * k);
  r.files["/File/data/big.bin"] = reads(1.0 * k, 1 << 20, 0.04 * k);
  r.files["/File/proc/self/stat"] = reads(5.0 * k, 300, 0.001 * k);
  return r;
}

native::pc_focus focus(std::vector<std::string> resources) {
  return native::parse_pc_focus(resources);
}

}  // namespace

TEST_CASE("window files: a file's counts since a time are the differences of its totals",
          "[window][window-files]") {
  window::file_window w;
  CHECK_FALSE(w.present());
  CHECK_FALSE(w.count(focus({"/File/data/log.txt"}), app, 0));
  for (int k = 1; k <= 30; ++k) w.add(k * 100 * ms, offset, reading_at(k));
  REQUIRE(w.present());

  // Since 1.0 s: the totals at the reading at 1.0 s (the 10th) are before the focus.
  auto log = w.count(focus({"/File/data/log.txt"}), app, 1.0);
  REQUIRE(log);
  CHECK(log->ops == 2000);
  CHECK(log->bytes == 2000 * 16);
  CHECK(log->time == Approx(0.05 * 20));
  CHECK(log->from == Approx(1.0));
  CHECK(log->to == Approx(3.0));
  CHECK(log->files == 1);

  // A directory takes every data file under it; the whole process takes every data file:
  // the pseudo-file's reads are in neither.
  auto data = w.count(focus({"/File/data"}), app, 1.0);
  auto whole = w.count(focus({"/Machine/h/app{7}"}), app, 1.0);
  REQUIRE(data);
  REQUIRE(whole);
  CHECK(data->ops == 2000 + 20);
  CHECK(data->bytes == 2000 * 16 + 20.0 * (1 << 20));
  CHECK(data->files == 2);
  CHECK(whole->ops == data->ops);
  CHECK(whole->bytes == data->bytes);
  CHECK(whole->files == 2);
  CHECK(w.count(focus({"/"}), app, 1.0)->ops == data->ops);

  // Since the start: the process's first call is at engine time 0, so everything counts.
  auto all = w.count(focus({"/File/data/log.txt"}), app, 0);
  REQUIRE(all);
  CHECK(all->ops == 3000);
  CHECK(all->from == Approx(0));
}

TEST_CASE("window files: the library speaks only for the foci it counts by",
          "[window][window-files]") {
  window::file_window w;
  for (int k = 1; k <= 10; ++k) w.add(k * 100 * ms, offset, reading_at(k));
  // Per process and file: the process, its host, a file in it.
  CHECK(w.count(focus({"/File/data/log.txt", "/Machine/h/app{7}"}), app, 0));
  CHECK(w.count(focus({"/File/data/log.txt", "/Machine/h"}), app, 0));
  CHECK(w.count(focus({"/File/data/log.txt"}), app, 0)->whole);
  // A thread's or a function's use of a file: the file's counts, not the focus's whole.
  auto thread = w.count(focus({"/File/data/log.txt", "/Machine/h/app{7}/app{7}"}), app, 0);
  auto code = w.count(focus({"/File/data/log.txt", "/Code/app/write_log"}), app, 0);
  REQUIRE(thread);
  REQUIRE(code);
  CHECK_FALSE(thread->whole);
  CHECK_FALSE(code->whole);
  CHECK(code->bytes / code->ops == 16);
  // Not a thread or a function without a file, not a lock; not another process's; not a pipe
  // it never counted; not a pseudo-file (the stack samples' rules leave those out too).
  CHECK_FALSE(w.count(focus({"/Machine/h/app{7}/app{7}"}), app, 0));
  CHECK_FALSE(w.count(focus({"/Code/app/write_log"}), app, 0));
  CHECK_FALSE(w.count(focus({"/SyncObject/Mutex"}), app, 0));
  CHECK_FALSE(w.count(focus({"/File/data/log.txt", "/Machine/h/app{8}"}), app, 0));
  CHECK_FALSE(w.count(focus({"/File/data/log.txt", "/Machine/other"}), app, 0));
  CHECK_FALSE(w.count(focus({"/File/pipe:[5]"}), app, 0));
  CHECK_FALSE(w.count(focus({"/File/proc/self/stat"}), app, 0));
  CHECK_FALSE(w.count(focus({"/Process/x"}), app, 0));
}

TEST_CASE("window files: a process watched after it began counts from its first reading",
          "[window][window-files]") {
  // It started 50 s before engine time 0; the search began at 0.5 s, before the first reading.
  window::file_window w;
  for (int k = 10; k <= 20; ++k) w.add(k * 100 * ms, offset, reading_at(k, "/j/7.1.seg", offset - 50000 * ms));
  auto log = w.count(focus({"/File/data/log.txt"}), app, 0.5);
  REQUIRE(log);
  CHECK(log->ops == 1000);  // readings 10 to 20, not its 50 s before
  CHECK(log->from == Approx(1.0));
  // Started after the search began: all it counted is the focus's.
  window::file_window late;
  for (int k = 10; k <= 20; ++k) late.add(k * 100 * ms, offset, reading_at(k, "/j/7.1.seg", offset + 900 * ms));
  auto whole = late.count(focus({"/File/data/log.txt"}), app, 0.5);
  REQUIRE(whole);
  CHECK(whole->ops == 2000);
  CHECK(whole->from == Approx(0.9));
}

TEST_CASE("window files: a process that execs keeps its old segment's counts in the totals",
          "[window][window-files]") {
  window::file_window w;
  for (int k = 1; k <= 10; ++k) w.add(k * 100 * ms, offset, reading_at(k, "/j/7.1.seg"));
  // The new image counts from 0 in a new segment.
  for (int k = 1; k <= 5; ++k) w.add((10 + k) * 100 * ms, offset, reading_at(k, "/j/7.2.seg"));
  auto log = w.count(focus({"/File/data/log.txt"}), app, 0);
  REQUIRE(log);
  CHECK(log->ops == 1000 + 500);
  auto since = w.count(focus({"/File/data/log.txt"}), app, 1.0);
  REQUIRE(since);
  CHECK(since->ops == 500);
}

TEST_CASE("window files: the span and the byte bound evict the oldest readings, counted",
          "[window][window-files]") {
  window::file_window by_span({1.0, 1u << 30});
  for (int k = 1; k <= 30; ++k) by_span.add(k * 100 * ms, offset, reading_at(k));
  auto s = by_span.stats();
  CHECK(s.readings == 11);  // 2.0 s to 3.0 s
  CHECK(s.evicted_readings == 19);
  CHECK(s.evicted_entries == 19 * 3);
  CHECK(s.evicted_bytes > 0);
  CHECK(s.oldest == Approx(2.0));
  CHECK(s.files == 3);
  // Asked from before what is held: from the newest evicted reading on, as the stack
  // samples count from the oldest they hold.
  auto log = by_span.count(focus({"/File/data/log.txt"}), app, 0);
  REQUIRE(log);
  CHECK(log->ops == 3000 - 1900);
  CHECK(log->from == Approx(1.9));
  // Asked from within what is held: exact as before.
  CHECK(by_span.count(focus({"/File/data/log.txt"}), app, 2.5)->ops == 500);

  window::file_window by_bytes({120, 2048});
  for (int k = 1; k <= 30; ++k) by_bytes.add(k * 100 * ms, offset, reading_at(k));
  auto b = by_bytes.stats();
  CHECK(b.bytes <= 2048);
  CHECK(b.readings >= 1);
  CHECK(b.evicted_readings + b.readings == 30);
  CHECK(b.evicted_readings > 0);
  CHECK(by_bytes.count(focus({"/File/data/log.txt"}), app, 0)->to == Approx(3.0));
}

TEST_CASE("window files: a reading holds only the files that changed", "[window][window-files]") {
  window::file_window w;
  w.add(100 * ms, offset, reading_at(1));
  auto idle = reading_at(1);
  idle.files["/File/data/log.txt"] = writes(150, 16, 0.08);  // only the log moved
  w.add(200 * ms, offset, idle);
  w.add(300 * ms, offset, idle);  // nothing moved
  auto s = w.stats();
  CHECK(s.readings == 3);
  CHECK(s.entries == 3 + 1);
  auto big = w.count(focus({"/File/data/big.bin"}), app, 0.1);
  auto log = w.count(focus({"/File/data/log.txt"}), app, 0.1);
  REQUIRE(big);
  REQUIRE(log);
  CHECK(big->ops == 0);
  CHECK(log->ops == 50);
  CHECK(log->bytes == 50 * 16);
}
