// Reading Darshan's logs (darshan/): every format version, compression and byte order read
// back through the reader; older record versions under the current counter names; damaged
// logs (truncated, flipped bytes, a wrong version, a region past the end of the file) give
// the readable part with a note or a clear error, never a crash; a 100 MB DXT log reads in
// bounded memory; names past the memory limit are fetched in batches. The comparison with
// darshan-parser itself is the ctest darshan.golden.* (tests/darshan/check_golden.sh).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "darshan/darshan_log.hpp"
#include "darshan/darshan_log_writer.hpp"
#include "darshan/darshan_names.hpp"
#include "darshan/darshan_text.hpp"
#include "log/log_listing.hpp"
#include "tests/darshan/test_log_contents.hpp"
#include "tests/log_test_files.hpp"

using namespace perfdm;
using namespace perfdm::darshan;
using darshan_test::float_value;
using darshan_test::int_value;

namespace {

std::string temp_path(const std::string& name) {
  return log_test::temp_path("darshan_log_test", name);
}

struct command_result {
  int rc;
  std::string out, err;
};

command_result run_log(const std::string& file, const log_command_options& base = {}) {
  log_command_options o = base;
  o.file = file;
  std::ostringstream out, err;
  int rc = run_log_command(o, out, err);
  return {rc, out.str(), err.str()};
}

std::string sample_log(const std::string& name) {
  return std::string(PERFDM_SOURCE_DIR) + "/tests/darshan/logs/" + name + ".darshan";
}

// The data lines of a module in darshan-parser's output for one counter.
std::vector<std::string> lines_with(const std::string& text, const std::string& what) {
  std::vector<std::string> found;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find(what) != std::string::npos) found.push_back(line);
  return found;
}

}  // namespace

TEST_CASE("darshan: logs of every format, compression and byte order read back") {
  const std::string format = GENERATE("3.00", "3.10", "3.20", "3.21", "3.41");
  const unsigned char compression = GENERATE(zlib, bzip2, none);
  const bool swapped = GENERATE(false, true);
  log_test::removed_on_exit cleanup;
  const std::string path = temp_path("rt_" + format + ".darshan");
  cleanup.paths.push_back(path);
  writer_options w;
  w.version = format;
  w.compression = compression;
  w.other_byte_order = swapped;
  darshan_test::write_test_log(path, w);
  CAPTURE(format, int(compression), swapped);

  REQUIRE(log_file::is_darshan_log(path));
  log_file log(path);
  CHECK(log.version() == format);
  CHECK(log.byte_swapped() == swapped);
  CHECK(log.compression() == compression);
  const job_info& job = log.job();
  CHECK(job.uid == 1000);
  CHECK(job.nprocs == 4);
  CHECK(job.jobid == 4242);
  CHECK(job.exe == "/usr/bin/app --input /home/u/in.txt");
  REQUIRE(job.mounts.size() == 3);
  CHECK(job.mounts[0].point == "/scratch");  // longest first, ties in log order
  CHECK(job.mounts[2].point == "/");
  REQUIRE(job.metadata.size() == 2);
  CHECK(job.metadata[1].second == "romio_no_indep_rw=true;cb_nodes=4");
  CHECK(job.run_time == (format == "3.41" ? 42.5 : 43.0));

  name_table names(log);
  CHECK(names.complete());
  CHECK(names.names_in_log() == 3);
  REQUIRE(names.find(record_id("/home/u/in.txt")));
  CHECK(*names.find(record_id("/home/u/in.txt")) == "/home/u/in.txt");
  CHECK_FALSE(names.find(record_id("/not/in/the/log")));

  const auto expected = darshan_test::modules_of(format);
  REQUIRE(log.modules().size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const module_region& m = log.modules()[i];
    CHECK(m.id == expected[i].module);
    CHECK(m.version == expected[i].version);
    REQUIRE(m.layout);
    int seed = 0;
    log.for_each_record(m, [&](const record& r) {
      ++seed;
      CHECK(r.rank == (m.id == HEATMAP_MOD ? seed - 1 : seed == 1 ? 0 : -1));
      switch (m.layout->kind) {
        case record_kind::counters:
          for (std::size_t k = 0; k < m.layout->ints.size(); ++k)
            if (std::string(m.layout->ints[k]).rfind("POSIX_F", 0) != 0) {
              std::string n = m.layout->ints[k];
              if (n == "POSIX_FOPENS" || n == "POSIX_FREADS" || n == "POSIX_FWRITES" ||
                  n == "POSIX_FSEEKS")
                CHECK(r.ints[k] == 0);
              else
                CHECK(r.ints[k] == int_value(seed, k));
            }
          for (std::size_t k = 0; k < m.layout->floats.size(); ++k)
            CHECK(r.floats[k] == float_value(seed, k));
          break;
        case record_kind::heatmap:
          CHECK(r.bin_width_seconds == 0.1);
          REQUIRE(r.nbins == 3);
          CHECK(r.write_bins[2] == seed * 100 + 2);
          CHECK(r.read_bins[0] == seed * 100 + 50);
          break;
        case record_kind::lustre:
          REQUIRE(r.components.size() == 2);
          CHECK(r.components[0].pool_name == "pool1");
          CHECK(r.components[1].counters[LUSTRE_COMP_EXT_END] == -1);
          REQUIRE(r.ost_count == 3);
          CHECK(r.ost_ids[2] == 9);
          break;
        case record_kind::lustre_v1:
          CHECK(r.v1_osts == 16);
          CHECK(r.components[0].counters[LUSTRE_COMP_STRIPE_SIZE] == 1048576);
          REQUIRE(r.ost_count == 2);
          CHECK(r.ost_ids[1] == 11);
          break;
        case record_kind::dxt: {
          CHECK(r.hostname == "node" + std::to_string(seed));
          CHECK(r.write_count == 2);
          CHECK(r.read_count == 1);
          std::vector<dxt_segment> segs;
          r.for_each_segment([&](const dxt_segment* s, std::size_t n) {
            segs.insert(segs.end(), s, s + n);
          });
          REQUIRE(segs.size() == 3);
          CHECK(segs[2].length == 4096);
          CHECK(segs[2].end_time == 2.75);
          CHECK(segs[1].offset == (m.layout->dxt_offsets_unknown ? -1 : 4096));
          CHECK(segs[1].thread == (m.layout->dxt_segment_size == 40 ? 139000000000001ull : 0));
          break;
        }
      }
    });
    CHECK(seed == 2);
  }
  CHECK(log.notes().empty());
}

TEST_CASE("darshan: a command line with newlines is written on one line, the mount table intact") {
  log_test::removed_on_exit cleanup;
  const std::string path = temp_path("newline_exe.darshan");
  cleanup.paths.push_back(path);
  {
    log_file_writer w(path, {});
    job_info j = darshan_test::test_job("3.41");
    j.exe = "python3 -c import os\nprint(os.getpid())";
    w.write_job(j);
    w.finish();
  }
  log_file log(path);
  CHECK(log.job().exe == "python3 -c import os print(os.getpid())");
  REQUIRE(log.job().mounts.size() == 3);
  CHECK(log.job().mounts[0].point == "/scratch");
  CHECK(log.job().mounts[0].type == "lustre");
  auto shown = run_log(path);
  CHECK(shown.rc == 0);
  CHECK(shown.out.find("# mount entry:\t/scratch\tlustre") != std::string::npos);
  CHECK(shown.out.find("print(os.getpid())\t") == std::string::npos);
  CHECK(shown.err.find("mount table") == std::string::npos);
}

TEST_CASE("darshan: older records read under the current counter names as darshan-util fills them") {
  log_test::removed_on_exit cleanup;
  const std::string path = temp_path("old.darshan");
  cleanup.paths.push_back(path);
  writer_options w;
  w.version = "3.10";
  darshan_test::write_test_log(path, w);
  log_file log(path);
  int checked = 0;
  log.for_each_record(*log.find(POSIX_MOD), [&](const record& r) {
    REQUIRE(r.layout->version == 2);
    // Version 2: no FILENOS, DUPS, renames; OPEN and CLOSE timestamps under their new names.
    CHECK(r.counter(POSIX_FILENOS) == -1);
    CHECK(r.counter(POSIX_RENAMED_FROM) == 0);
    CHECK(r.counter(POSIX_OPENS) == r.ints[0]);
    CHECK(r.counter(POSIX_READS) == r.ints[1]);
    CHECK(r.fcounter(POSIX_F_OPEN_START_TIMESTAMP) == r.floats[0]);
    CHECK(r.fcounter(POSIX_F_CLOSE_START_TIMESTAMP) == -1);
    CHECK(r.fcounter(POSIX_F_CLOSE_END_TIMESTAMP) == r.floats[5]);
    ++checked;
  });
  log.for_each_record(*log.find(PNETCDF_FILE_MOD), [&](const record& r) {
    // Independent and collective opens add into FILE_OPENS.
    CHECK(r.counter(PNETCDF_FILE_OPENS) == r.ints[0] + r.ints[1]);
    CHECK(r.counter(PNETCDF_FILE_CREATES) == -1);
    ++checked;
  });
  CHECK(checked == 4);
  // The text keeps the version's names.
  auto res = run_log(path);
  CHECK(res.rc == 0);
  CHECK(res.out.find("POSIX\t0\t1078948942690381235\tPOSIX_F_OPEN_TIMESTAMP\t1.000000\t"
                     "/scratch/run/out.dat\t/scratch\tlustre\n") != std::string::npos);
  CHECK(res.out.find("\tPOSIX_FILENOS\t") == std::string::npos);
  CHECK(res.out.find("# note: POSIX records of version 2 carry their version's counters; "
                     "they have no POSIX_FILENOS") != std::string::npos);
}

TEST_CASE("darshan: POSIX version 1 records with stdio counters print (darshan-parser drops them)") {
  log_test::removed_on_exit cleanup;
  const std::string path = temp_path("v1.darshan");
  cleanup.paths.push_back(path);
  log_file_writer w(path, {"3.00", zlib, false});
  w.write_job(darshan_test::test_job("3.00"));
  w.add_name(record_id("/tmp/f"), "/tmp/f");
  w.begin_module(POSIX_MOD, 1);
  record_bytes r = w.record();
  r.u64(record_id("/tmp/f")).i64(0);
  const record_layout* l = find_layout(POSIX_MOD, 1);
  for (std::size_t i = 0; i < l->ints.size(); ++i) r.i64(i == 6 ? 3 : 0);  // POSIX_FOPENS 3
  for (std::size_t i = 0; i < l->floats.size(); ++i) r.f64(0);
  w.add_record(r);
  w.finish();
  auto res = run_log(path);
  CHECK(res.rc == 0);
  CHECK(res.out.find("POSIX\t0\t" + std::to_string(record_id("/tmp/f")) +
                     "\tPOSIX_FOPENS\t3\t/tmp/f\t/\text4\n") != std::string::npos);
}

TEST_CASE("darshan: Lustre components after an unused one are dropped, with their OSTs") {
  log_test::removed_on_exit cleanup;
  const std::string path = temp_path("lustre.darshan");
  cleanup.paths.push_back(path);
  log_file_writer w(path, {});
  w.write_job(darshan_test::test_job("3.41"));
  w.add_name(record_id("/scratch/f"), "/scratch/f");
  w.begin_module(LUSTRE_MOD, 2);
  record_bytes r = w.record();
  r.u64(record_id("/scratch/f")).i64(0).i64(3).i64(4);
  r.i64(1048576).i64(2).i64(0).i64(0x11).i64(0).i64(-1).i64(0).chars("fast", 16);
  r.i64(-1).i64(1).i64(0).i64(0).i64(0).i64(0).i64(0).chars("", 16);  // unused
  r.i64(2097152).i64(1).i64(0).i64(0).i64(0).i64(0).i64(0).chars("", 16);
  r.i64(7).i64(8).i64(9).i64(10);
  w.add_record(r);
  w.finish();
  auto res = run_log(path);
  REQUIRE(res.rc == 0);
  const std::string id = std::to_string(record_id("/scratch/f"));
  const std::string tail = "\t/scratch/f\t/scratch\tlustre\n";
  CHECK(res.out.find("LUSTRE\t0\t" + id + "\tLUSTRE_NUM_COMPONENTS\t1" + tail) != std::string::npos);
  CHECK(res.out.find("LUSTRE\t0\t" + id + "\tLUSTRE_NUM_STRIPES\t2" + tail) != std::string::npos);
  CHECK(res.out.find("LUSTRE\t0\t" + id + "\tLUSTRE_COMP1_FLAGS\tstale,init" + tail) !=
        std::string::npos);
  CHECK(res.out.find("LUSTRE\t0\t" + id + "\tLUSTRE_COMP1_POOL_NAME\tfast" + tail) != std::string::npos);
  CHECK(res.out.find("LUSTRE\t0\t" + id + "\tLUSTRE_COMP1_OST_ID_1\t8" + tail) != std::string::npos);
  CHECK(res.out.find("LUSTRE_COMP2_") == std::string::npos);
}

TEST_CASE("darshan: record ids of the sample logs are the Jenkins hash of their names") {
  std::size_t checked = 0;
  for (const char* name : {"mpi-io-test-x86_64-3.0.0", "mpi-io-test-x86_64-3.5.0",
                           "mpi-io-test-ppc64-3.1.8", "treddy_runtime_heatmap_inactive_ranks",
                           "partial_data_stdio"}) {
    log_file log(sample_log(name));
    log.for_each_name([&](std::uint64_t id, std::string_view n) {
      CAPTURE(name, n);
      CHECK(record_id(n) == id);
      ++checked;
    });
  }
  CHECK(checked > 1000);  // partial_data_stdio holds a thousand file names
}

TEST_CASE("darshan: a partial module is refused without --show-incomplete, printed with it") {
  const std::string path = sample_log("partial_data_stdio");
  auto refused = run_log(path);
  CHECK(refused.rc == 1);
  CHECK(refused.err.find("*ERROR*: The STDIO module contains incomplete data!") != std::string::npos);
  CHECK(refused.out.find("# STDIO module data") != std::string::npos);
  CHECK(refused.out.find("STDIO\t0\t") == std::string::npos);
  log_command_options o;
  o.show_partial = true;
  auto shown = run_log(path, o);
  CHECK(shown.rc == 0);
  CHECK(shown.out.find("# *WARNING*: The STDIO module contains incomplete data!") != std::string::npos);
  CHECK(lines_with(shown.out, "STDIO_OPENS").size() > 1000);
}

TEST_CASE("darshan: names past the memory limit are fetched in batches, the output unchanged") {
  const std::string path = sample_log("partial_data_stdio");
  log_file log(path);
  text_options all;
  all.show_incomplete = true;
  std::ostringstream full, err;
  REQUIRE(print_parser_text(log, all, full, err) == 0);
  text_options small = all;
  small.max_name_bytes = 4096;     // a few dozen names
  small.lookahead_records = 100;   // a fetch every 100 records
  std::ostringstream batched;
  REQUIRE(print_parser_text(log, small, batched, err) == 0);
  CHECK(batched.str() == full.str());
  name_table limited(log, 4096);
  CHECK_FALSE(limited.complete());
  CHECK(limited.names_in_log() > 1000);
}

TEST_CASE("darshan: a truncated log prints what it holds, with a note, and fails") {
  log_test::removed_on_exit cleanup;
  const std::string whole = temp_path("whole.darshan");
  const std::string cut = temp_path("cut.darshan");
  cleanup.paths = {whole, cut};
  darshan_test::write_test_log(whole, {});
  const std::string bytes = log_test::slurp(whole);
  auto complete = run_log(whole);
  REQUIRE(complete.rc == 0);
  log_command_options o;
  o.show_partial = true;
  for (std::size_t size = 0; size < bytes.size(); size += 37) {
    CAPTURE(size);
    log_test::spit(cut, bytes.substr(0, size));
    auto res = run_log(cut, o);
    CHECK(res.rc == 1);
    CHECK_FALSE(res.err.empty());
    if (size < header_size) {
      CHECK(res.out.empty());
    } else if (res.out.find("# darshan log version: 3.41") != std::string::npos) {
      // Read up to the cut: the notes say so, in the output and in the error stream.
      CHECK(res.out.find("# note: ") != std::string::npos);
      CHECK(res.err.find("truncated") != std::string::npos);
    } else {
      CHECK(res.err.find("job record cannot be read") != std::string::npos);
    }
  }
  // Cut inside the POSIX region of a log stored uncompressed: its first record survives.
  darshan_test::write_test_log(whole, {"3.41", none, false});
  const std::string stored = log_test::slurp(whole);
  log_file log(whole);
  const module_region* posix = log.find(POSIX_MOD);
  log_test::spit(cut, stored.substr(0, posix->offset + posix_record_size + 100));
  auto res = run_log(cut, o);
  CHECK(res.rc == 1);
  CHECK(lines_with(res.out, "\tPOSIX_OPENS\t").size() == 1);
  CHECK(res.err.find("the POSIX region claims " + std::to_string(posix->length) +
                     " bytes at offset " + std::to_string(posix->offset) +
                     ", but the file ends after 804 of them") != std::string::npos);
  CHECK(res.err.find("ends inside a record (100 of 704 bytes)") != std::string::npos);
}

TEST_CASE("darshan: flipped bytes never crash the reader or the printers") {
  log_test::removed_on_exit cleanup;
  const std::string whole = temp_path("flip_src.darshan");
  const std::string bad = temp_path("flip.darshan");
  cleanup.paths = {whole, bad};
  writer_options w;
  w.compression = GENERATE(zlib, bzip2, none);
  darshan_test::write_test_log(whole, w);
  const std::string bytes = log_test::slurp(whole);
  std::mt19937 rng(1234 + w.compression);
  int refused = 0, read = 0;
  for (int round = 0; round < 150; ++round) {
    std::string b = bytes;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < flips; ++i) b[rng() % b.size()] ^= static_cast<char>(1u << (rng() % 8));
    log_test::spit(bad, b);
    log_command_options o;
    o.show_partial = true;
    o.total = o.perf = o.file_counts = o.base = round % 2 == 0;
    o.dxt = round % 5 == 1;
    auto res = run_log(bad, o);
    CHECK((res.rc == 0 || res.rc == 1));
    if (res.rc == 0)
      ++read;
    else
      ++refused;
    if (res.rc == 1) CHECK_FALSE(res.err.empty());
  }
  CHECK(read + refused == 150);
}

TEST_CASE("darshan: a wrong version, another file, or a region past the end are named") {
  log_test::removed_on_exit cleanup;
  const std::string whole = temp_path("v.darshan");
  const std::string bad = temp_path("v_bad.darshan");
  cleanup.paths = {whole, bad};
  darshan_test::write_test_log(whole, {});
  std::string bytes = log_test::slurp(whole);

  std::string v = bytes;
  v.replace(0, 4, "3.99");
  log_test::spit(bad, v);
  auto res = run_log(bad);
  CHECK(res.rc == 1);
  CHECK(res.err.find("unsupported Darshan log format version \"3.99\"") != std::string::npos);

  // A perfdm option for Darshan logs on a file that is not one.
  log_test::spit(bad, "just text, not a log\n");
  log_command_options o;
  o.total = true;
  res = run_log(bad, o);
  CHECK(res.rc == 1);
  CHECK(res.err.find("read Darshan logs and perfdm io's logs; this is neither") != std::string::npos);

  // The STDIO region claims a terabyte: it is read up to the next region.
  log_file log(whole);
  const module_region* stdio = log.find(STDIO_MOD);
  std::string big = bytes;
  const std::uint64_t claim = 1ull << 40;
  std::memcpy(&big[header_mod_map_offset + 16 * STDIO_MOD + 8], &claim, 8);
  log_test::spit(bad, big);
  res = run_log(bad);
  CHECK(res.rc == 1);
  CHECK(res.err.find("the STDIO region claims 1099511627776 bytes at offset " +
                     std::to_string(stdio->offset) + ", but the next region starts at offset " +
                     std::to_string(stdio->offset + stdio->length)) != std::string::npos);
  CHECK(lines_with(res.out, "\tSTDIO_OPENS\t").size() == 2);
  CHECK(lines_with(res.out, "\tHEATMAP_F_BIN_WIDTH_SECONDS\t").size() == 2);

  // The last region (HEATMAP) claims more than the file holds.
  const module_region* heat = log.find(HEATMAP_MOD);
  big = bytes;
  std::memcpy(&big[header_mod_map_offset + 16 * HEATMAP_MOD + 8], &claim, 8);
  log_test::spit(bad, big);
  res = run_log(bad);
  CHECK(res.rc == 1);
  CHECK(res.err.find("the HEATMAP region claims 1099511627776 bytes at offset " +
                     std::to_string(heat->offset) + ", but the file ends after " +
                     std::to_string(heat->length)) != std::string::npos);
  CHECK(lines_with(res.out, "\tHEATMAP_F_BIN_WIDTH_SECONDS\t").size() == 2);
}

TEST_CASE("darshan: a 100 MB DXT log prints in bounded memory") {
  log_test::removed_on_exit cleanup;
  const std::string path = temp_path("big_dxt.darshan");
  cleanup.paths.push_back(path);
  // One record of 2.6 million segments (104 MB), stored uncompressed.
  const std::int64_t writes = 2000000, reads = 600000;
  {
    log_file_writer w(path, {"3.41", none, false});
    w.write_job(darshan_test::test_job("3.41"));
    w.add_name(record_id("/scratch/trace.dat"), "/scratch/trace.dat");
    w.begin_module(DXT_POSIX_MOD, 2);
    record_bytes head = w.record();
    head.u64(record_id("/scratch/trace.dat")).i64(0).i64(0).chars("bignode", 64).i64(writes).i64(reads);
    w.add_record(head);
    record_bytes seg = w.record();
    for (std::int64_t i = 0; i < writes + reads; ++i) {
      seg.clear();
      seg.i64(i * 4096).i64(4096).f64(i * 1e-6).f64(i * 1e-6 + 5e-7).u64(1000 + i % 3);
      w.add_record(seg);
    }
    REQUIRE(w.finish() > 100000000);
  }
  // perfdm log --dxt in a process of its own, its output read through a pipe.
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::close(fds[0]);
    ::close(fds[1]);
    ::execl(PERFDM_BINARY, PERFDM_BINARY, "log", "--dxt", path.c_str(), nullptr);
    ::_exit(127);
  }
  ::close(fds[1]);
  std::uint64_t lines = 0, bytes = 0;
  std::string last, threads;
  char buf[1 << 16];
  std::string partial;
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) {
    bytes += static_cast<std::uint64_t>(n);
    partial.append(buf, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t nl; (nl = partial.find('\n', start)) != std::string::npos; start = nl + 1) {
      ++lines;
      std::string_view line(partial.data() + start, nl - start);
      if (line.rfind("# DXT, number of threads:", 0) == 0) threads = line;
      if (line.rfind(" X_POSIX", 0) == 0) last = line;
    }
    partial.erase(0, start);
  }
  ::close(fds[0]);
  int status = 0;
  struct rusage ru {};
  REQUIRE(::wait4(pid, &status, 0, &ru) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(threads == "# DXT, number of threads: 3");
  CHECK(last.find("read   599999") != std::string::npos);
  CHECK(lines > static_cast<std::uint64_t>(writes + reads));
  // The segments are streamed twice (threads, then lines), never held: memory stays far
  // below the 104 MB of segments.
  CHECK(ru.ru_maxrss < 48 * 1024);  // KiB
  INFO("peak RSS " << ru.ru_maxrss << " KiB for " << bytes << " bytes of output");
}
