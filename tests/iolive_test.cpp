// The live I/O of a watched process as Data Manager samples (iolive/): a segment's records
// summed per file (MPI-IO's apart from POSIX and STDIO's), the file.* metrics routed by focus, counter deltas between readings, the
// first sample carrying what was counted before its metric instance. Plain C++; one test
// reads the segment of a real process that ran with the library preloaded.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>

#include "cli/io_command.hpp"
#include "iojob/segment_snapshot.hpp"
#include "iolive/file_sample_builder.hpp"
#include "iolive/live_segment.hpp"
#include "native/pc_resources.hpp"
#include "tests/io_test_support.hpp"

using namespace perfdm;
using namespace perfdm::iolive;

namespace {

const std::string host = native::host_part();
const std::string machine = "/Machine/" + host + "/app{42}";

io::posix_file posix(std::int64_t read_bytes, std::int64_t reads, std::int64_t written,
                     std::int64_t writes, std::int64_t opens, std::int64_t read_ticks) {
  io::posix_file f{};
  f.counters[darshan::POSIX_BYTES_READ] = read_bytes;
  f.counters[darshan::POSIX_READS] = reads;
  f.counters[darshan::POSIX_BYTES_WRITTEN] = written;
  f.counters[darshan::POSIX_WRITES] = writes;
  f.counters[darshan::POSIX_OPENS] = opens;
  f.counters[darshan::POSIX_MMAPS] = -1;  // the preload library's "not counted"
  f.fticks[darshan::POSIX_F_READ_TIME] = read_ticks;
  return f;
}

// A snapshot in CLOCK_MONOTONIC nanoseconds (one tick, one nanosecond).
io::segment_snapshot snapshot(const std::string& path) {
  io::segment_snapshot s;
  s.path = path;
  s.header.tick_kind = std::uint32_t(io::tick_kind::monotonic_ns);
  s.header.start_ticks = 1'000;
  s.header.start_realtime_ns = 5'000'000'000;
  return s;
}

collecting_mi mi(std::uint64_t id, const std::string& metric, std::vector<std::string> focus) {
  collecting_mi m;
  m.mi.id = id;
  m.metric = metric;
  m.focus = std::move(focus);
  return m;
}

const sample* of(const std::vector<sample>& out, std::uint64_t id) {
  for (auto& s : out)
    if (s.mi.id == id) return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("iolive: a segment's POSIX and STDIO records are summed per /File resource",
          "[iolive]") {
  auto s = snapshot("/dev/shm/perfdm-io.x/42.1f.seg");
  s.posix.push_back(posix(4096, 2, 100, 1, 1, 2'500'000));
  s.posix_names.push_back("/tmp/d/a.bin");
  s.posix.push_back(posix(0, 0, 7, 7, 2, 0));
  s.posix_names.push_back("/tmp/d/b b.txt");
  io::stdio_file st{};
  st.counters[darshan::STDIO_BYTES_WRITTEN] = 50;
  st.counters[darshan::STDIO_WRITES] = 5;
  st.counters[darshan::STDIO_OPENS] = 1;
  st.counters[darshan::STDIO_FLUSHES] = 1;
  st.fticks[darshan::STDIO_F_WRITE_TIME] = 1'000'000;
  s.stdio.push_back(st);
  s.stdio_names.push_back("/tmp/d/a.bin");

  const auto r = totals_of(s, 2'000, 5'000'001'000);
  REQUIRE(r.files.size() == 2);
  const auto& a = r.files.at("/File/tmp/d/a.bin");
  CHECK(a.read_bytes == 4096);
  CHECK(a.read_ops == 2);
  CHECK(a.write_bytes == 150);  // 100 by write, 50 by fwrite
  CHECK(a.write_ops == 6);
  CHECK(a.meta_ops == 3);  // POSIX open, STDIO open and flush
  CHECK(a.read_time == Approx(0.0025));
  CHECK(a.write_time == Approx(0.001));
  // A path's white space is made safe as the search's /File resources make it.
  CHECK(r.files.at("/File/tmp/d/b_b.txt").write_bytes == 7);
  CHECK(r.start_realtime_ns == 5'000'000'000);
  CHECK_FALSE(r.ended);
}

// A rank's MPI-IO record: `ops` of each kind of read and write, and the opens, syncs and
// views Darshan's MPIIO module counts.
io::mpiio_file mpiio(std::int64_t read_bytes, std::int64_t written, std::int64_t ops) {
  io::mpiio_file f{};
  f.counters[darshan::MPIIO_BYTES_READ] = read_bytes;
  f.counters[darshan::MPIIO_BYTES_WRITTEN] = written;
  for (int kind : {darshan::MPIIO_INDEP_READS, darshan::MPIIO_COLL_READS,
                   darshan::MPIIO_SPLIT_READS, darshan::MPIIO_NB_READS,
                   darshan::MPIIO_INDEP_WRITES, darshan::MPIIO_COLL_WRITES,
                   darshan::MPIIO_SPLIT_WRITES, darshan::MPIIO_NB_WRITES})
    f.counters[kind] = ops;
  f.counters[darshan::MPIIO_COLL_OPENS] = 1;
  f.counters[darshan::MPIIO_SYNCS] = 2;
  f.counters[darshan::MPIIO_VIEWS] = 3;
  f.counters[darshan::MPIIO_HINTS] = 3;  // not an operation of its own
  f.fticks[darshan::MPIIO_F_READ_TIME] = 4'000'000;
  f.fticks[darshan::MPIIO_F_WRITE_TIME] = 6'000'000;
  f.fticks[darshan::MPIIO_F_META_TIME] = 500'000;
  f.fticks[darshan::MPIIO_F_OPEN_START_TIMESTAMP] = 1'500;
  return f;
}

TEST_CASE("iolive: MPI-IO records sum into file.mpiio_* and leave the POSIX sums as they are",
          "[iolive]") {
  auto s = snapshot("/dev/shm/perfdm-io.x/42.1f.seg");
  // Open MPI's POSIX calls beneath MPI-IO: the same bytes, in the file's POSIX record.
  s.posix.push_back(posix(4096, 1, 8192, 2, 1, 1'000'000));
  s.posix_names.push_back("/tmp/d/shared.dat");
  const auto posix_only = totals_of(s, 2'000, 5'000'001'000);
  s.mpiio.push_back(mpiio(4096, 8192, 1));
  s.mpiio_names.push_back("/tmp/d/shared.dat");
  s.mpiio.push_back(mpiio(0, 64, 2));
  s.mpiio_names.push_back("/tmp/d/other.dat");

  const auto r = totals_of(s, 2'000, 5'000'001'000);
  REQUIRE(r.files.size() == 2);
  const auto& f = r.files.at("/File/tmp/d/shared.dat");
  CHECK(f.mpiio_read_bytes == 4096);
  CHECK(f.mpiio_write_bytes == 8192);
  CHECK(f.mpiio_read_ops == 4);         // independent, collective, split, non-blocking
  CHECK(f.mpiio_write_ops == 4);
  CHECK(f.mpiio_collective_ops == 4);   // collective and split, reads and writes
  CHECK(f.mpiio_meta_ops == 6);         // the open, 2 syncs, 3 views
  CHECK(f.mpiio_read_time == Approx(0.004));
  CHECK(f.mpiio_write_time == Approx(0.006));
  CHECK(f.mpiio_meta_time == Approx(0.0005));
  CHECK(r.files.at("/File/tmp/d/other.dat").mpiio_collective_ops == 8);
  // The POSIX-derived sums are the POSIX record's alone: MPI-IO adds nothing to them.
  const auto& p = posix_only.files.at("/File/tmp/d/shared.dat");
  CHECK(p.mpiio_write_bytes == 0);
  CHECK(f.read_bytes == p.read_bytes);
  CHECK(f.read_bytes == 4096);
  CHECK(f.write_bytes == 8192);
  CHECK(f.read_ops == 1);
  CHECK(f.write_ops == 2);
  CHECK(f.meta_ops == 1);
  CHECK(f.read_time == Approx(0.001));
  CHECK(f.write_time == 0);
  const auto& o = r.files.at("/File/tmp/d/other.dat");
  CHECK(o.mpiio_write_bytes == 64);
  CHECK(o.write_bytes == 0);
  CHECK(o.write_ops == 0);
  CHECK(o.meta_ops == 0);
}

TEST_CASE("iolive: file.mpiio_* samples by focus beside file.*, whole at the first",
          "[iolive]") {
  file_sample_builder b({host, "app", 42});
  b.set_collecting({mi(1, "file.mpiio_write_bytes", {"/File/tmp/d/shared.dat", machine}),
                    mi(2, "file.mpiio_collective_ops", {"/File/tmp"}),
                    mi(3, "file.write_bytes", {"/File/tmp/d/shared.dat"}),
                    mi(4, "file.mpiio_write_bytes", {"/Machine/" + host + "/app{42}/app{43}"})});
  live_reading r;
  r.segment = "/dev/shm/perfdm-io.x/42.1.seg";
  auto& shared = r.files["/File/tmp/d/shared.dat"];
  shared.write_bytes = 8192;  // POSIX beneath
  shared.mpiio_write_bytes = 8192;
  shared.mpiio_collective_ops = 4;
  shared.first_realtime_ns = 5'000'000'000;
  r.files["/File/tmp/d/other.dat"].mpiio_collective_ops = 8;
  const time_ns offset = 4'000'000'000;
  std::vector<sample> out;
  b.add(r, offset, 3'000'000'000, out);
  REQUIRE(out.size() == 3);  // not a thread's
  REQUIRE(of(out, 1));
  CHECK(of(out, 1)->value == 8192);
  CHECK(of(out, 1)->start == 1.0);
  CHECK(of(out, 2)->value == 12);  // both files under /tmp
  CHECK(of(out, 3)->value == 8192);  // POSIX's, not 16384
  CHECK(of(out, 4) == nullptr);

  shared.mpiio_write_bytes = 8256;
  out.clear();
  b.add(r, offset, 4'000'000'000, out);
  REQUIRE(of(out, 1));
  CHECK(of(out, 1)->value == 64);
  CHECK(of(out, 1)->start == 3.0);
  CHECK(of(out, 3)->value == 0);
}

TEST_CASE("iolive: the I/O segments of a memory map are found by name", "[iolive]") {
  const std::string maps =
      "55d0c0a00000-55d0c0a02000 r--p 00000000 08:01 131 /usr/bin/dd\n"
      "7f1c00000000-7f1c04000000 rw-s 00000000 00:1a 77 /dev/shm/perfdm-io.ab12/4711.3f9a.seg\n"
      "7f1c04000000-7f1c04001000 rw-s 00000000 00:1a 78 /dev/shm/perfdm-io.ab12/4700.99.seg (deleted)\n"
      "7f1c05000000-7f1c05001000 rw-s 00000000 00:1a 79 /dev/shm/other/4711.3f9a.seg\n"
      "7f1c06000000-7f1c06001000 rw-s 00000000 00:1a 80 /tmp/perfdm-io.x/notes.seg\n"
      "7ffd1a000000-7ffd1a021000 rw-p 00000000 00:00 0 [stack]\n";
  const auto paths = segment_paths_in_maps(maps);
  REQUIRE(paths.size() == 1);
  CHECK(paths[0] == "/dev/shm/perfdm-io.ab12/4711.3f9a.seg");
  CHECK(segment_paths_in_maps("").empty());
  // This test's own process has no library: no segment, and no error.
  CHECK(find_io_segment(::getpid()).empty());
  CHECK(find_io_segment(999'999'999).empty());
}

TEST_CASE("iolive: file.* samples by focus, deltas between readings, whole at the first",
          "[iolive]") {
  file_sample_builder b({host, "app", 42});
  b.set_collecting({mi(1, "file.write_bytes", {"/File/tmp/d/a.bin", machine}),
                    mi(2, "file.write_bytes", {"/File/tmp", "/Code", "/Machine"}),
                    mi(3, "file.read_ops", {"/File"}),
                    mi(4, "file.write_bytes", {"/Machine/" + host + "/app{42}/app{43}"}),
                    mi(5, "file.write_bytes", {"/Code/libc.so.6/write"}),
                    mi(6, "file.write_bytes", {"/Machine/" + host + "/other{7}"}),
                    mi(7, "proc.cpu_user", {"/File"}),
                    mi(8, "file.write_bytes", {"/File/tmp/d/a"})});
  CHECK(b.collecting());

  live_reading r;
  r.segment = "/dev/shm/perfdm-io.x/42.1.seg";
  r.files["/File/tmp/d/a.bin"].write_bytes = 1000;
  r.files["/File/tmp/d/a.bin"].read_ops = 3;
  r.files["/File/tmp/d/a.bin"].first_realtime_ns = 5'000'000'000;  // engine time 1 s
  r.files["/File/tmp/e.log"].write_bytes = 24;
  r.files["/File/tmp/e.log"].first_realtime_ns = 6'000'000'000;  // 2 s
  // CLOCK_REALTIME is engine time + 4 s.
  const time_ns offset = 4'000'000'000;
  std::vector<sample> out;
  // Read at 3 s: the first samples go back to their files' first calls.
  auto fresh = b.add(r, offset, 3'000'000'000, out);
  CHECK(fresh == std::vector<std::string>{"/File/tmp/d/a.bin", "/File/tmp/e.log"});
  REQUIRE(out.size() == 4);  // MIs 1, 2, 3 and 8; not a thread, code, another process or metric
  REQUIRE(of(out, 1));
  CHECK(of(out, 1)->value == 1000);
  CHECK(of(out, 1)->start == 1.0);
  CHECK(of(out, 1)->end == 3.0);
  CHECK(of(out, 2)->value == 1024);  // both files under /tmp, from the earlier's first call
  CHECK(of(out, 2)->start == 1.0);
  CHECK(of(out, 3)->value == 3);
  CHECK(of(out, 8)->value == 0);  // /tmp/d/a is not /tmp/d/a.bin's directory
  CHECK(of(out, 8)->start == 3.0);
  CHECK(of(out, 4) == nullptr);
  CHECK(of(out, 5) == nullptr);
  CHECK(of(out, 6) == nullptr);

  // The next reading: what was counted since, over the interval.
  r.files["/File/tmp/d/a.bin"].write_bytes = 1500;
  out.clear();
  fresh = b.add(r, offset, 4'000'000'000, out);
  CHECK(fresh.empty());
  REQUIRE(of(out, 1));
  CHECK(of(out, 1)->value == 500);
  CHECK(of(out, 1)->start == 3.0);
  CHECK(of(out, 1)->end == 4.0);
  CHECK(of(out, 3)->value == 0);

  // An exec: a new segment from zero; the old one's counts stay, nothing goes back.
  live_reading after;
  after.segment = "/dev/shm/perfdm-io.x/42.2.seg";
  after.files["/File/tmp/d/a.bin"].write_bytes = 10;
  after.files["/File/tmp/d/a.bin"].first_realtime_ns = 8'500'000'000;
  out.clear();
  b.add(after, offset, 5'000'000'000, out);
  REQUIRE(of(out, 1));
  CHECK(of(out, 1)->value == 10);

  // An MI enabled later still gets the file's whole count in its first sample.
  b.set_collecting({mi(1, "file.write_bytes", {"/File/tmp/d/a.bin", machine}),
                    mi(9, "file.write_bytes", {"/File/tmp/d/a.bin"})});
  out.clear();
  b.add(after, offset, 6'000'000'000, out);
  REQUIRE(out.size() == 2);
  CHECK(of(out, 1)->value == 0);
  CHECK(of(out, 9)->value == 1510);
  CHECK(of(out, 9)->start == 1.0);
}

TEST_CASE("iolive: the segment of a real process counts its file's bytes exactly",
          "[iolive][live]") {
  io_test::scratch_dir dir("iolive");
  const std::string job = dir / "job";
  std::filesystem::create_directories(job);
  // A job directory the process does not own: it counts and leaves its segment there.
  const std::string library = io_library_path();
  REQUIRE_FALSE(library.empty());
  auto r = io_test::run({PERFDM_IO_CALLS, "example", dir.path},
                        {"LD_PRELOAD=" + library, "PERFDM_IO_JOB=" + job}, 20);
  REQUIRE(r.exit_code() == 0);
  std::vector<std::string> errors;
  auto segments = io::read_job_segments(job, errors);
  CHECK(errors.empty());
  REQUIRE(segments.size() == 1);
  const auto totals = totals_of(segments[0], io::read_ticks(), io::realtime_ns());
  CHECK(totals.ended);
  const auto& f = totals.files.at(native::file_resource(dir / "data.bin"));
  CHECK(f.write_bytes == 4 * 100 + 10 * 1000 + 4096);
  CHECK(f.write_ops == 15);
  CHECK(f.read_bytes == 3 * 4096 + 7);
  CHECK(f.read_ops == 4);
  CHECK(f.meta_ops == 2);  // the open and the lseek
  CHECK(f.write_time > 0);
  CHECK(f.write_time < 1);
  // Its first call, in the run's time: after the process's start, before now.
  CHECK(f.first_realtime_ns >= totals.start_realtime_ns);
  CHECK(f.first_realtime_ns <= io::realtime_ns());
}
