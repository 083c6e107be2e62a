// perfdm's I/O library preloaded into real processes (tests/io/io_calls.c): Darshan's
// counters for the calls Darshan sees, the calls it misses (issue part 3, each with the counter
// docs/IO.md §3 says it feeds, and 0 with --darshan-only), and many processes in one log.
#include <sys/statfs.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "darshan/darshan_counters.hpp"
#include "tests/io_test_support.hpp"

using namespace perfdm;
using namespace perfdm::darshan;
using namespace io_test;

TEST_CASE("IO-FACTS 1.4: perfdm io counts the measured example as Darshan does", "[io]") {
  scratch_dir d("example");
  const auto log = perfdm_io(d, "example");
  const auto r = posix_of(log, d / "data.bin");
  CHECK(r.rank == 0);
  CHECK(r.counters[POSIX_OPENS] == 1);
  CHECK(r.counters[POSIX_WRITES] == 15);
  CHECK(r.counters[POSIX_SEQ_WRITES] == 13);
  CHECK(r.counters[POSIX_CONSEC_WRITES] == 3);
  CHECK(r.counters[POSIX_READS] == 4);
  CHECK(r.counters[POSIX_SEEKS] == 1);
  CHECK(r.counters[POSIX_BYTES_READ] == 12295);
  CHECK(r.counters[POSIX_BYTES_WRITTEN] == 14496);
  CHECK(r.counters[POSIX_MAX_BYTE_WRITTEN] == 20215);
  CHECK(r.counters[POSIX_STRIDE1_STRIDE] == 24);
  CHECK(r.counters[POSIX_STRIDE1_COUNT] == 9);
  CHECK(r.counters[POSIX_ACCESS1_ACCESS] == 1000);
  CHECK(r.counters[POSIX_RW_SWITCHES] == 1);
  CHECK(r.counters[POSIX_MEM_NOT_ALIGNED] == 1);
  CHECK(r.counters[POSIX_MODE] == 0644);
  struct statfs s;
  REQUIRE(statfs(d.path.c_str(), &s) == 0);
  CHECK(r.counters[POSIX_FILE_ALIGNMENT] == std::int64_t(s.f_bsize));
  CHECK(r.fcounters[POSIX_F_WRITE_TIME] > 0);
  CHECK(r.fcounters[POSIX_F_OPEN_START_TIMESTAMP] > 0);
  CHECK(r.fcounters[POSIX_F_CLOSE_END_TIMESTAMP] >= r.fcounters[POSIX_F_READ_END_TIMESTAMP]);
  CHECK(log.metadata("nprocs") == "1");
  CHECK_FALSE(log.metadata("mount").empty());
  CHECK_FALSE(log.posix_partial);
  REQUIRE_FALSE(log.heatmaps.empty());
  std::int64_t heat = 0;
  for (const auto& h : log.heatmaps)
    for (std::size_t i = 0; i < h.read_bins.size(); ++i) heat += h.read_bins[i] + h.write_bins[i];
  CHECK(heat >= 12295 + 14496);  // POSIX's bytes (and <STDOUT>'s, none here)
}

TEST_CASE("io, what Darshan misses: the stat family as glibc 2.33 exports it feeds POSIX_STATS", "[io]") {
  scratch_dir d("stats");
  const auto r = posix_of(perfdm_io(d, "stats"), d / "s.bin");
  CHECK(r.counters[POSIX_OPENS] == 1);
  CHECK(r.counters[POSIX_STATS] == 5);  // stat, lstat, fstat, fstatat, statx
  CHECK(r.fcounters[POSIX_F_META_TIME] > 0);
  const auto strict = posix_of(perfdm_io(d, "stats", {"--darshan-only"}), d / "s.bin");
  CHECK(strict.counters[POSIX_OPENS] == 1);
  CHECK(strict.counters[POSIX_STATS] == 0);  // Darshan sees none of them on Debian 12
}

TEST_CASE("io, what Darshan misses: __openat_2 and openat2 feed POSIX_OPENS", "[io]") {
  scratch_dir d("opens");
  const auto log = perfdm_io(d, "opens");
  const auto r = posix_of(log, d / "o.bin");
  // open, __openat_2 relative to the directory, openat2, and openat relative to a directory
  // opendir opened (Darshan names that one as if relative to the working directory)
  CHECK(r.counters[POSIX_OPENS] == 4);
  CHECK(r.counters[POSIX_MODE] == 0600);
  CHECK(posix_of(log, d.path).counters[POSIX_OPENS] == 1);  // the directory, as Darshan
  const auto strict = posix_of(perfdm_io(d, "opens", {"--darshan-only"}), d / "o.bin");
  CHECK(strict.counters[POSIX_OPENS] == 1);
}

TEST_CASE("io, what Darshan misses: copy_file_range, sendfile and splice are reads and writes", "[io]") {
  scratch_dir d("copies");
  const auto log = perfdm_io(d, "copies");
  const auto src = posix_of(log, d / "src.bin");
  const auto dst = posix_of(log, d / "dst.bin");
  CHECK(src.counters[POSIX_READS] == 3);
  CHECK(src.counters[POSIX_BYTES_READ] == 4096 + 4096 + 1000);
  CHECK(src.counters[POSIX_MAX_BYTE_READ] == 8191);  // sendfile's explicit offset 4096
  CHECK(dst.counters[POSIX_WRITES] == 3);
  CHECK(dst.counters[POSIX_BYTES_WRITTEN] == 4096 + 4096 + 1000);
  const auto strict = perfdm_io(d, "copies", {"--darshan-only"});
  CHECK(posix_of(strict, d / "dst.bin").counters[POSIX_BYTES_WRITTEN] == 0);  // cp's 0 bytes
  CHECK(posix_of(strict, d / "src.bin").counters[POSIX_BYTES_WRITTEN] == 8192);
}

TEST_CASE("io, what Darshan misses: truncate, ftruncate, unlink and mkdir feed perfdm's counters", "[io]") {
  scratch_dir d("meta");
  const auto log = perfdm_io(d, "meta");
  const auto m = posix_of(log, d / "m.bin");
  CHECK(m.extra[POSIX_TRUNCATES] == 2);
  CHECK(m.extra[POSIX_UNLINKS] == 1);
  CHECK(m.counters[POSIX_OPENS] == 1);
  CHECK(posix_of(log, d / "sub").extra[POSIX_MKDIRS] == 1);
  const auto strict = perfdm_io(d, "meta", {"--darshan-only"});
  CHECK(posix_of(strict, d / "m.bin").extra[POSIX_TRUNCATES] == 0);
  CHECK(records_of(strict, strict.posix, d / "sub").empty());
  CHECK(posix_of(strict, d / "m.bin").counters[POSIX_OPENS] == 1);
}

TEST_CASE("io, what Darshan misses: mmap of a file in the preload build feeds POSIX_MMAPS", "[io]") {
  scratch_dir d("mmap");
  CHECK(posix_of(perfdm_io(d, "mmap"), d / "map.bin").counters[POSIX_MMAPS] == 1);
  CHECK(posix_of(perfdm_io(d, "mmap", {"--darshan-only"}), d / "map.bin").counters[POSIX_MMAPS] ==
        -1);
}

TEST_CASE("io, what Darshan misses: puts, putchar, getline, getdelim and the _unlocked calls feed STDIO", "[io]") {
  scratch_dir d("stdio");
  const auto log = perfdm_io(d, "stdio");
  const auto out = stdio_of(log, "<STDOUT>");
  CHECK(out.counters[STDIO_WRITES] == 5);  // puts, putchar, putchar_unlocked, fputs/fwrite_unlocked
  CHECK(out.counters[STDIO_BYTES_WRITTEN] == 10 + 1 + 1 + 9 + 3);
  CHECK(out.counters[STDIO_FLUSHES] == 1);
  const auto lines = stdio_of(log, d / "lines.txt");
  CHECK(lines.counters[STDIO_OPENS] == 2);
  CHECK(lines.counters[STDIO_READS] == 3);  // getline, getdelim, getc_unlocked
  CHECK(lines.counters[STDIO_BYTES_READ] == 4 + 10 + 1);
  const auto strict = perfdm_io(d, "stdio", {"--darshan-only"});
  CHECK(records_of(strict, strict.stdio, "<STDOUT>").empty());  // no write Darshan sees
  CHECK(stdio_of(strict, d / "lines.txt").counters[STDIO_READS] == 0);
  CHECK(stdio_of(strict, d / "lines.txt").counters[STDIO_WRITES] == 1);  // fputs
}

TEST_CASE("io, what Darshan misses: files a process inherits open (a shell's < and >) are counted", "[io]") {
  scratch_dir d("inherited");
  {
    std::ofstream in(d / "in.bin", std::ios::binary);
    in << std::string(100000, 'x') << std::string(50000, 'y');
  }
  // cat opens nothing: its standard input and output are the shell's redirections.
  const std::string script = "cat < '" + d / "in.bin" + "' > '" + d / "copy.bin" + "'; " +
                             "cat '" + d / "in.bin" + "' >> '" + d / "copy.bin" + "'";
  auto counted = [&](const std::vector<std::string>& options) {
    const std::string log = d / "run.log";
    std::vector<std::string> argv = {PERFDM_BINARY, "io", "-q", "-o", log};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"--", "/bin/sh", "-c", script});
    const auto r = run(argv);
    INFO(r.err);
    REQUIRE(WIFEXITED(r.status));
    REQUIRE(WEXITSTATUS(r.status) == 0);
    return perfdm::io::read_io_log(log);
  };
  auto sum = [](const perfdm::io::io_log_contents& log, const std::string& name, int counter) {
    std::int64_t total = 0;
    for (const auto& r : records_of(log, log.posix, name)) total += r.counters[counter];
    return total;
  };
  auto most = [](const perfdm::io::io_log_contents& log, const std::string& name, int counter) {
    std::int64_t m = -1;
    for (const auto& r : records_of(log, log.posix, name)) m = std::max(m, r.counters[counter]);
    return m;
  };
  const auto log = counted({});
  CHECK(sum(log, d / "in.bin", POSIX_BYTES_READ) == 2 * 150000);
  CHECK(sum(log, d / "copy.bin", POSIX_BYTES_WRITTEN) == 2 * 150000);
  // The second cat appends: its writes start where the file ended, as the offset model says.
  CHECK(most(log, d / "copy.bin", POSIX_MAX_BYTE_WRITTEN) == 2 * 150000 - 1);
  const auto strict = counted({"--darshan-only"});
  CHECK(sum(strict, d / "in.bin", POSIX_BYTES_READ) == 150000);  // the cat that opened it
  CHECK(sum(strict, d / "copy.bin", POSIX_BYTES_WRITTEN) == 0);
}

TEST_CASE("io, what Darshan misses: io_submit counts its reads and writes, with bytes", "[io]") {
  scratch_dir d("aio");
  const auto r = posix_of(perfdm_io(d, "aio"), d / "aio.bin");
  CHECK(r.counters[POSIX_READS] == 2);
  CHECK(r.counters[POSIX_BYTES_READ] == 4096);
  CHECK(r.counters[POSIX_WRITES] == 2);  // write() and one iocb
  CHECK(r.counters[POSIX_BYTES_WRITTEN] == 8192 + 2048);
  const auto strict = posix_of(perfdm_io(d, "aio", {"--darshan-only"}), d / "aio.bin");
  CHECK(strict.counters[POSIX_READS] == 0);
  CHECK(strict.counters[POSIX_WRITES] == 1);
}

TEST_CASE("io, what Darshan misses: io_uring_enter counts its reads and writes, with bytes", "[io]") {
  scratch_dir d("uring");
  run_result rr;
  const auto log = perfdm_io(d, "uring", {}, "", &rr);
  if (rr.exit_code() == 4) {
    std::printf("SKIPPED: %s", rr.out.c_str());
    std::exit(77);  // io_uring is off in this kernel (tests/CMakeLists.txt: SKIP_RETURN_CODE)
  }
  const auto r = posix_of(log, d / "uring.bin");
  CHECK(r.counters[POSIX_WRITES] == 1);
  CHECK(r.counters[POSIX_BYTES_WRITTEN] == 4096);
  CHECK(r.counters[POSIX_READS] == 1);
  CHECK(r.counters[POSIX_BYTES_READ] == 1024);
}

TEST_CASE("io, one job: fork without exec: each process counts its own calls", "[io]") {
  scratch_dir d("fork");
  const auto log = perfdm_io(d, "fork");
  CHECK(log.metadata("nprocs") == "2");
  // Both processes wrote f.bin: one record of rank -1.
  const auto f = posix_of(log, d / "f.bin");
  CHECK(f.rank == -1);
  CHECK(f.counters[POSIX_WRITES] == 18);
  CHECK(f.counters[POSIX_OPENS] == 1);
  CHECK(f.counters[POSIX_SLOWEST_RANK_BYTES] + f.counters[POSIX_FASTEST_RANK_BYTES] == 18);
  const auto c = posix_of(log, d / "child.bin");
  CHECK(c.rank == 1);
  CHECK(c.counters[POSIX_WRITES] == 1);
}

TEST_CASE("io, one job: a file every process opened becomes one record of rank -1", "[io]") {
  scratch_dir d("shared");
  const auto log = perfdm_io(d, "shared");
  CHECK(log.metadata("nprocs") == "4");
  const auto s = posix_of(log, d / "shared.bin");
  CHECK(s.rank == -1);
  CHECK(s.counters[POSIX_OPENS] == 4);
  CHECK(s.counters[POSIX_WRITES] == 4);
  CHECK(s.counters[POSIX_BYTES_WRITTEN] == 4 + 3 * 5);
  CHECK(s.fcounters[POSIX_F_VARIANCE_RANK_BYTES] > 0);
  const auto own = records_of(log, log.posix, d / "own.bin");
  REQUIRE(own.size() == 3);  // three of four processes: per rank
  for (const auto& r : own) CHECK(r.rank >= 1);
}

TEST_CASE("io, one job: 64 threads writing one file lose no count", "[io]") {
  scratch_dir d("threads");
  const auto r = posix_of(perfdm_io(d, "threads"), d / "t.bin");
  CHECK(r.counters[POSIX_WRITES] == 64 * 200);
  CHECK(r.counters[POSIX_BYTES_WRITTEN] == 64 * 200 * 64);
  CHECK(r.counters[POSIX_ACCESS1_COUNT] == 64 * 200);
  CHECK(r.counters[POSIX_MAX_BYTE_WRITTEN] == 64 * 200 * 64 - 1);
}

TEST_CASE("io, one job: signals: EINTR is not counted, a handler's writes are", "[io]") {
  scratch_dir d("eintr");
  run_result rr;
  const auto log = perfdm_io(d, "eintr", {}, "", &rr);
  int interrupted = -1, alarms = -1;
  REQUIRE(std::sscanf(rr.out.c_str(), "interrupted %d alarms %d", &interrupted, &alarms) == 2);
  CHECK(interrupted >= 1);
  CHECK(posix_of(log, d / "sig.bin").counters[POSIX_WRITES] == alarms);
  CHECK(posix_of(log, d / "sig-in.bin").counters[POSIX_WRITES] == 5);
}

TEST_CASE("io, one job: SIGKILL keeps every record up to the last call", "[io]") {
  scratch_dir d("kill");
  const std::string log_path = d / "run.log";
  const std::string out = d / "out";
  const pid_t pid = fork();
  if (pid == 0) {
    const int o = ::open(out.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
    dup2(o, 1);
    execl(PERFDM_BINARY, "perfdm", "io", "-q", "-o", log_path.c_str(), "--", PERFDM_IO_CALLS,
          "until-killed", d.path.c_str(), "1000", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Waits for "wrote 1000", then kills the program (perfdm io's child) with SIGKILL.
  int child = 0;
  for (int i = 0; i < 2000 && child == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (FILE* f = std::fopen(out.c_str(), "r")) {
      char line[64] = "";
      if (std::fgets(line, sizeof line, f) && std::string(line) == "wrote 1000\n") {
        for (const auto& e : std::filesystem::directory_iterator("/proc")) {
          const std::string n = e.path().filename();
          if (n.find_first_not_of("0123456789") != std::string::npos) continue;
          std::string stat;
          if (FILE* s = std::fopen((e.path() / "stat").c_str(), "r")) {
            char b[512] = "";
            std::fgets(b, sizeof b, s);
            std::fclose(s);
            stat = b;
          }
          const auto close_paren = stat.rfind(')');
          if (close_paren != std::string::npos &&
              std::atoi(stat.c_str() + close_paren + 4) == pid) {
            child = std::stoi(n);
          }
        }
      }
      std::fclose(f);
    }
  }
  REQUIRE(child > 0);
  kill(child, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WEXITSTATUS(status) == 128 + SIGKILL);
  const auto log = io::read_io_log(log_path);
  CHECK(posix_of(log, d / "k.bin").counters[POSIX_WRITES] == 1000);
  bool did_not_exit = false;
  for (const auto& [k, v] : log.job.metadata)
    if (k == "process" && v.find("(did not exit)") != std::string::npos) did_not_exit = true;
  CHECK(did_not_exit);
}

TEST_CASE("IO-FACTS 4: --trace keeps every read and write with offset, length and times", "[io]") {
  scratch_dir d("trace");
  const auto log = perfdm_io(d, "example", {"--trace"});
  REQUIRE(log.traces.size() == 1);
  const auto& t = log.traces[0];
  CHECK(log.name(t.id) == d / "data.bin");
  CHECK_FALSE(t.hostname.empty());
  REQUIRE(t.writes.size() == 15);
  REQUIRE(t.reads.size() == 4);
  CHECK(t.writes[1].offset == 100);
  CHECK(t.writes[4].offset == 10000);
  CHECK(t.writes[4].length == 1000);
  CHECK(t.writes[14].offset == 0);
  CHECK(t.writes[14].length == 4096);
  CHECK(t.reads[3].offset == 100);
  CHECK(t.reads[3].length == 7);
  for (const auto& w : t.writes) CHECK(w.end >= w.start);
  CHECK(t.reads[0].start >= t.writes[14].end);
  CHECK_FALSE(log.trace_partial);
  const auto plain = perfdm_io(d, "example");
  CHECK(plain.traces.empty());  // off by default
  CHECK(posix_of(plain, d / "data.bin").counters[POSIX_WRITES] == 15);
}
