// Darshan's counting rules as perfdm's I/O library applies them (iocounters/), without
// preloading anything: the offset model, sequential and consecutive accesses, strides, the size
// buckets, the top-4 common values, the non-overlapping timers, STDIO's rules, the mount table,
// exclusions, the heatmap's bins and the shared-file reduction (iojob/shared_reduction).
// Tests are named after the sections of Darshan's facts they check (IO-FACTS §).
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "darshan/darshan_record_id.hpp"
#include "iocounters/heatmap_bins.hpp"
#include "iocounters/mount_table.hpp"
#include "iocounters/path_exclusions.hpp"
#include "iocounters/posix_file.hpp"
#include "iocounters/stdio_file.hpp"
#include "iojob/heatmap_output.hpp"
#include "iojob/io_summary.hpp"
#include "iojob/shared_reduction.hpp"

using namespace perfdm;
using namespace perfdm::io;

namespace {

// Common values past the fourth of the record new_file makes (one record at a time).
posix_file_more more{};

posix_file new_file(std::int64_t file_alignment = 4096) {
  posix_file f{};
  more = {};
  posix_init(f, 42, 0, 0, 8, file_alignment, false, &more);
  return f;
}

}  // namespace

TEST_CASE("IO-FACTS 1.4: the measured example gives Darshan's counters", "[io]") {
  // 4 x 100 B writes from 0, 10 pwrites of 1000 B at 10000 + i*1024, pwrite 4096 B at 0,
  // lseek 0, 3 x read 4096, pread 7 B at 100 into a misaligned buffer.
  posix_file f = new_file();
  std::uint64_t t = 1000;
  posix_open(f, 0644, true, -1, t, t + 1);
  t += 10;
  for (int i = 0; i < 4; ++i, t += 10) posix_access(f, false, -1, 100, true, t, t + 5);
  for (int i = 0; i < 10; ++i, t += 10)
    posix_access(f, false, 10000 + i * 1024, 1000, true, t, t + 5);
  posix_access(f, false, 0, 4096, true, t, t + 5);
  t += 10;
  posix_seek(f, 0, t, t + 1);
  t += 10;
  for (int i = 0; i < 3; ++i, t += 10) posix_access(f, true, -1, 4096, true, t, t + 5);
  posix_access(f, true, 100, 7, false, t, t + 5);
  const auto* c = f.counters;
  CHECK(c[POSIX_WRITES] == 15);
  CHECK(c[POSIX_SEQ_WRITES] == 13);
  CHECK(c[POSIX_CONSEC_WRITES] == 3);
  CHECK(c[POSIX_STRIDE1_STRIDE] == 24);
  CHECK(c[POSIX_STRIDE1_COUNT] == 9);
  CHECK(c[POSIX_STRIDE2_STRIDE] == 9600);
  CHECK(c[POSIX_STRIDE2_COUNT] == 1);
  CHECK(c[POSIX_ACCESS1_ACCESS] == 1000);
  CHECK(c[POSIX_ACCESS1_COUNT] == 10);
  CHECK(c[POSIX_ACCESS2_ACCESS] == 4096);
  CHECK(c[POSIX_ACCESS2_COUNT] == 4);
  CHECK(c[POSIX_ACCESS3_ACCESS] == 100);
  CHECK(c[POSIX_ACCESS3_COUNT] == 4);
  CHECK(c[POSIX_ACCESS4_ACCESS] == 7);
  CHECK(c[POSIX_ACCESS4_COUNT] == 1);
  CHECK(c[POSIX_READS] == 4);
  CHECK(c[POSIX_SEQ_READS] == 2);
  CHECK(c[POSIX_CONSEC_READS] == 2);
  CHECK(c[POSIX_RW_SWITCHES] == 1);
  CHECK(c[POSIX_FILE_NOT_ALIGNED] == 14);
  CHECK(c[POSIX_MEM_NOT_ALIGNED] == 1);
  CHECK(c[POSIX_MAX_BYTE_WRITTEN] == 20215);
  CHECK(c[POSIX_MODE] == 420);
  CHECK(c[POSIX_MMAPS] == -1);
  CHECK(c[POSIX_SIZE_WRITE_0_100] == 4);
  CHECK(c[POSIX_SIZE_WRITE_100_1K] == 10);
  CHECK(c[POSIX_SIZE_WRITE_1K_10K] == 1);
  CHECK(c[POSIX_SIZE_READ_0_100] == 1);
  CHECK(c[POSIX_SIZE_READ_1K_10K] == 3);
}

TEST_CASE("IO-FACTS 1.4: the first access after an open is neither sequential nor consecutive",
          "[io]") {
  posix_file f = new_file();
  posix_open(f, 0, true, -1, 1, 2);
  posix_access(f, true, -1, 10, true, 3, 4);
  CHECK(f.counters[POSIX_SEQ_READS] == 0);
  CHECK(f.counters[POSIX_CONSEC_READS] == 0);
  posix_access(f, true, -1, 10, true, 5, 6);  // at 10: after byte 9
  CHECK(f.counters[POSIX_SEQ_READS] == 1);
  CHECK(f.counters[POSIX_CONSEC_READS] == 1);
  // A dup is an open that resets nothing; close zeroes the last bytes, keeps the offset.
  posix_open(f, 0, false, POSIX_DUPS, 7, 8);
  CHECK(f.counters[POSIX_OPENS] == 2);
  CHECK(f.counters[POSIX_DUPS] == 1);
  CHECK(f.offset == 20);
  posix_close(f, 9, 10);
  CHECK(f.offset == 20);
  CHECK(f.last_byte_read == 0);
  // A 0-byte read at offset o makes the highest byte o - 1; its bucket is the first.
  posix_access(f, true, 20, 0, true, 11, 12);
  CHECK(f.counters[POSIX_SIZE_READ_0_100] == 3);
  CHECK(f.counters[POSIX_MAX_BYTE_READ] == 19);
}

TEST_CASE("IO-FACTS 1.4: 32 distinct values at most, the value 0 never listed", "[io]") {
  posix_file f = new_file(-1);
  std::uint64_t t = 1;
  posix_access(f, false, 0, 0, true, t, t + 1);  // a 0-byte write: tracked, never listed
  t += 2;
  for (int v = 1; v <= 40; ++v, t += 2) posix_access(f, false, 0, v, true, t, t + 1);
  // 0 took one of the 32 places: sizes 1..31 were tracked, 32..40 were not.
  CHECK(f.access.tracked == 32);
  // The record holds the first four values (0, 1, 2, 3), its own table the other 28.
  CHECK(f.access.values[3] == 3);
  CHECK(more.access.values[0] == 4);
  CHECK(more.access.values[27] == 31);
  for (int k = 0; k < 3; ++k, t += 2) posix_access(f, false, 0, 35, true, t, t + 1);
  CHECK(f.counters[POSIX_ACCESS1_COUNT] == 1);    // 35 is not tracked: no slot has it
  CHECK(f.counters[POSIX_ACCESS1_ACCESS] == 31);  // ties: the larger value first
  posix_access(f, false, 0, 5, true, t, t + 1);
  CHECK(f.counters[POSIX_ACCESS1_ACCESS] == 5);
  CHECK(f.counters[POSIX_ACCESS1_COUNT] == 2);
  CHECK(f.counters[POSIX_STRIDE1_STRIDE] == 0);  // only stride 0 seen, never listed
  CHECK(f.counters[POSIX_STRIDE1_COUNT] == 0);
  CHECK(f.counters[POSIX_FILE_NOT_ALIGNED] == 0);  // alignment -1: no mount matched
}

TEST_CASE("IO-FACTS 1.3: overlapping calls on one file are not timed twice", "[io]") {
  posix_file f = new_file();
  posix_access(f, true, 0, 10, true, 100, 200);
  posix_access(f, true, 0, 10, true, 150, 260);  // overlaps: adds 60
  posix_access(f, true, 0, 10, true, 300, 310);
  CHECK(f.fticks[POSIX_F_READ_TIME] == 100 + 60 + 10);
  CHECK(f.fticks[POSIX_F_MAX_READ_TIME] == 110);
  CHECK(f.counters[POSIX_MAX_READ_TIME_SIZE] == 10);
  CHECK(f.fticks[POSIX_F_READ_START_TIMESTAMP] == 100);
  CHECK(f.fticks[POSIX_F_READ_END_TIMESTAMP] == 310);
  // As Darshan codes it, a call ending inside a counted interval subtracts.
  posix_access(f, true, 0, 10, true, 305, 308);
  CHECK(f.fticks[POSIX_F_READ_TIME] == 170 - 2);
  // fsync and fdatasync time is write time.
  posix_sync(f, false, 400, 450);
  posix_sync(f, true, 500, 510);
  CHECK(f.fticks[POSIX_F_WRITE_TIME] == 60);
  CHECK(f.counters[POSIX_FSYNCS] == 1);
  CHECK(f.counters[POSIX_FDSYNCS] == 1);
}

TEST_CASE("IO-FACTS 1.2: renames and perfdm's metadata counters", "[io]") {
  posix_file src = new_file(), dst = new_file();
  posix_rename_source(src, 10, 20);
  posix_rename_target(dst, 777);
  posix_rename_target(dst, 888);
  CHECK(src.counters[POSIX_RENAME_SOURCES] == 1);
  CHECK(src.fticks[POSIX_F_META_TIME] == 10);
  CHECK(dst.counters[POSIX_RENAME_TARGETS] == 2);
  CHECK(dst.counters[POSIX_RENAMED_FROM] == 777);  // the first source only
  posix_meta_extra(dst, POSIX_TRUNCATES, 30, 35);
  posix_meta_extra(dst, POSIX_UNLINKS, 40, 42);
  CHECK(dst.extra[POSIX_TRUNCATES] == 1);
  CHECK(dst.extra[POSIX_UNLINKS] == 1);
  CHECK(dst.fticks[POSIX_F_META_TIME] == 7);
  posix_mmap(dst);
  CHECK(dst.counters[POSIX_MMAPS] == 1);  // -1 (not counted) becomes a count
}

TEST_CASE("IO-FACTS 2.1: STDIO's shadow offset and flushes", "[io]") {
  stdio_file f{};
  stdio_init(f, 1, 0, -1);
  stdio_open(f, true, -1, 10, 11);
  stdio_write(f, 6, false, 12, 13);
  stdio_write(f, 0, true, 14, 15);
  stdio_seek(f, 0, 16, 17);
  stdio_read(f, 6, 18, 19);
  stdio_close(f, 20, 21);
  CHECK(f.counters[STDIO_OPENS] == 1);
  CHECK(f.counters[STDIO_WRITES] == 1);
  CHECK(f.counters[STDIO_FLUSHES] == 1);
  CHECK(f.counters[STDIO_SEEKS] == 1);
  CHECK(f.counters[STDIO_READS] == 1);
  CHECK(f.counters[STDIO_BYTES_WRITTEN] == 6);
  CHECK(f.counters[STDIO_BYTES_READ] == 6);
  CHECK(f.counters[STDIO_MAX_BYTE_WRITTEN] == 5);
  CHECK(f.counters[STDIO_MAX_BYTE_READ] == 5);
  CHECK(f.fticks[STDIO_F_WRITE_TIME] == 2);
  CHECK(f.fticks[STDIO_F_META_TIME] == 3);
  CHECK(f.fticks[STDIO_F_CLOSE_END_TIMESTAMP] == 21);
}

TEST_CASE("IO-FACTS 3.2: the mount table in Darshan's order, longest prefix first", "[io]") {
  const std::string text =
      "proc /proc proc rw 0 0\n"
      "/dev/vda / ext4 rw 0 0\n"
      "server:/export /home nfs rw 0 0\n"
      "tmpfs /dev/shm tmpfs rw 0 0\n"
      "/dev/vdb /scratch\\040space xfs rw 0 0\n"
      "/dev/vda / ext4 rw 0 0\n";
  mount_entry table[8];
  std::vector<std::string> statted;
  const std::uint32_t n = parse_mount_table(text, table, 8, [&](const char* path, mount_entry& e) {
    statted.push_back(path);
    e.block_size = std::string(path) == "/home" ? 1048576 : 4096;
  });
  REQUIRE(n == 3);  // proc and tmpfs left out, "/" once
  CHECK(std::string(table[0].path) == "/scratch space");
  CHECK(std::string(table[0].type) == "xfs");
  CHECK(std::string(table[1].path) == "/home");  // NFS after the others, then by length
  CHECK(std::string(table[2].path) == "/");
  CHECK(statted.size() == 3);
  CHECK(find_mount(table, n, "/home/u/f") == 1);
  CHECK(find_mount(table, n, "/homework") == 1);  // a plain string prefix, as Darshan
  CHECK(find_mount(table, n, "/tmp/x") == 2);
  CHECK(find_mount(table, n, "<STDOUT>") == -1);
  CHECK(mount_block_size(false, 0, 0) == 4096);
  CHECK(mount_block_size(true, 0x0BD00BD0, 4096) == 1048576);
}

TEST_CASE("IO-FACTS 3.5: Darshan's default exclusions, and perfdm's expressions", "[io]") {
  CHECK(default_excluded("/usr/lib/x"));
  CHECK(default_excluded("/dev/shm/x"));
  CHECK_FALSE(default_excluded("/usr"));  // the prefixes end in '/'
  CHECK_FALSE(default_excluded("/tmp/x"));
  CHECK_FALSE(default_excluded("/var/opt/cray/dws/mounts/a"));
  path_exclusions e;
  char error[256] = "";
  REQUIRE(e.configure("\\.tmp$,^/scratch/", "^/usr/local/", true, error, sizeof error));
  CHECK(e.excluded("/data/a.tmp"));
  CHECK(e.excluded("/scratch/b"));
  CHECK(e.excluded("/usr/lib/libc.so"));
  CHECK_FALSE(e.excluded("/usr/local/data"));
  CHECK_FALSE(e.excluded("/data/a.txt"));
  CHECK_FALSE(e.excluded("<STDOUT>"));
  path_exclusions none;
  REQUIRE(none.configure("", "", false, error, sizeof error));
  CHECK_FALSE(none.excluded("/usr/lib/x"));
  path_exclusions bad;
  CHECK_FALSE(bad.configure("(", "", true, error, sizeof error));
  CHECK(std::string(error).find("not a valid regular expression") != std::string::npos);
}

TEST_CASE("IO-FACTS 5: heatmap bytes spread over time, none lost", "[io]") {
  static heatmap_bins h;  // 1.2 MiB: not on the stack
  std::memset(&h, 0, sizeof h);
  h.origin = 1000;
  heatmap_add(h, false, 1000, 1000, 1000);  // no duration: one bin
  const std::uint64_t w = std::uint64_t(1) << heatmap_bins::shift(0);
  heatmap_add(h, true, 300, 1000 + w / 2, 1000 + w + w / 4);  // half a bin, then a quarter
  CHECK(h.write[0][0] == 1000);
  CHECK(h.read[0][0] == 200);
  CHECK(h.read[0][1] == 100);
  // A call ending past the first level's range goes to the next level.
  const std::uint64_t far = 1000 + w * heatmap_bins::bins + 10;
  heatmap_add(h, false, 7, far, far);
  CHECK(h.write[1][(far - 1000) >> heatmap_bins::shift(1)] == 7);
  CHECK(heatmap_bin_width(1.0) == Approx(0.1));
  CHECK(heatmap_bin_width(20.0) == Approx(0.1));
  CHECK(heatmap_bin_width(20.01) == Approx(0.2));
  CHECK(heatmap_bin_width(100.0) == Approx(0.8));
}

TEST_CASE("IO-FACTS 3.9: a file every process had becomes one record of rank -1", "[io]") {
  std::vector<log_posix_record> ranks(3);
  for (int r = 0; r < 3; ++r) {
    auto& x = ranks[r];
    x.id = 99;
    x.rank = r;
    x.counters[POSIX_OPENS] = 1;
    x.counters[POSIX_READS] = 10 * (r + 1);
    x.counters[POSIX_BYTES_READ] = 1000 * (r + 1);
    x.counters[POSIX_MAX_BYTE_READ] = 100 * (r + 1);
    x.counters[POSIX_MMAPS] = -1;
    x.counters[POSIX_ACCESS1_ACCESS] = 100;
    x.counters[POSIX_ACCESS1_COUNT] = 10 * (r + 1);
    x.counters[POSIX_ACCESS2_ACCESS] = r == 1 ? 7 : 0;
    x.counters[POSIX_ACCESS2_COUNT] = r == 1 ? 3 : 0;
    x.fcounters[POSIX_F_READ_TIME] = 1.0 * (r + 1);
    x.fcounters[POSIX_F_OPEN_START_TIMESTAMP] = r == 0 ? 0 : 0.5 * r;
    x.fcounters[POSIX_F_OPEN_END_TIMESTAMP] = 2.0 + r;
    x.fcounters[POSIX_F_MAX_READ_TIME] = r == 1 ? 0.9 : 0.1;
    x.counters[POSIX_MAX_READ_TIME_SIZE] = r == 1 ? 4096 : 1;
  }
  const log_posix_record s = reduce_shared(ranks);
  CHECK(s.rank == -1);
  CHECK(s.id == 99);
  CHECK(s.counters[POSIX_OPENS] == 3);
  CHECK(s.counters[POSIX_READS] == 60);
  CHECK(s.counters[POSIX_BYTES_READ] == 6000);
  CHECK(s.counters[POSIX_MAX_BYTE_READ] == 300);
  CHECK(s.counters[POSIX_MMAPS] == -1);
  CHECK(s.counters[POSIX_ACCESS1_ACCESS] == 100);
  CHECK(s.counters[POSIX_ACCESS1_COUNT] == 60);
  CHECK(s.counters[POSIX_ACCESS2_ACCESS] == 7);
  CHECK(s.counters[POSIX_ACCESS2_COUNT] == 3);
  CHECK(s.fcounters[POSIX_F_READ_TIME] == Approx(6.0));
  CHECK(s.fcounters[POSIX_F_OPEN_START_TIMESTAMP] == Approx(0.5));  // earliest non-zero
  CHECK(s.fcounters[POSIX_F_OPEN_END_TIMESTAMP] == Approx(4.0));
  CHECK(s.fcounters[POSIX_F_MAX_READ_TIME] == Approx(0.9));
  CHECK(s.counters[POSIX_MAX_READ_TIME_SIZE] == 4096);
  CHECK(s.counters[POSIX_FASTEST_RANK] == 0);
  CHECK(s.counters[POSIX_FASTEST_RANK_BYTES] == 1000);
  CHECK(s.fcounters[POSIX_F_FASTEST_RANK_TIME] == Approx(1.0));
  CHECK(s.counters[POSIX_SLOWEST_RANK] == 2);
  CHECK(s.counters[POSIX_SLOWEST_RANK_BYTES] == 3000);
  CHECK(s.fcounters[POSIX_F_SLOWEST_RANK_TIME] == Approx(3.0));
  // Population variance of 1, 2, 3 s and of 1000, 2000, 3000 bytes.
  CHECK(s.fcounters[POSIX_F_VARIANCE_RANK_TIME] == Approx(2.0 / 3.0));
  CHECK(s.fcounters[POSIX_F_VARIANCE_RANK_BYTES] == Approx(2e6 / 3.0));
}

TEST_CASE("summary: an access pattern in words", "[io]") {
  log_posix_record r{};
  r.counters[POSIX_OPENS] = 1;
  r.counters[POSIX_READS] = 100;
  r.counters[POSIX_SEQ_READS] = 7;
  r.counters[POSIX_BYTES_READ] = 409600;
  r.counters[POSIX_ACCESS1_ACCESS] = 4096;
  r.counters[POSIX_ACCESS1_COUNT] = 100;
  CHECK(access_pattern(r) == "4 KiB random reads, 92 % not sequential");
  r.counters[POSIX_SEQ_READS] = 99;
  CHECK(access_pattern(r) == "4 KiB sequential reads, 0 % not sequential");
  log_posix_record none{};
  none.counters[POSIX_OPENS] = 2;
  CHECK(access_pattern(none) == "opened 2 times, no reads or writes");
  CHECK(size_in_words(1536) == "1.5 KiB");
  CHECK(size_in_words(100) == "100 B");
}

TEST_CASE("IO-FACTS 3.1: record ids are Darshan's hash of the cleaned path", "[io]") {
  CHECK(darshan::record_id("/tmp/x.dat") == 6509962763214165340ull);
  CHECK(darshan::record_id(darshan::clean_path("x.dat", "/tmp")) == 6509962763214165340ull);
  CHECK(darshan::record_id(heatmap_names[heatmap_posix]) == 16592106915301738621ull);
}
