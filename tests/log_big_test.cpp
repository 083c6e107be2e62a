// A big log: a 1 GiB log file (on disk), printed through `perfdm log` into a counting stream
// in a forked child, whose peak memory growth must stay under 64 MiB (the reader streams
// region by region, chunk by chunk; Darshan's parser loads it all). The values and counter
// names come from a fast PRNG, so the records hardly compress and 1 GiB on disk is about
// 1 GiB of records, not many GiB: the test writes and reads about 1 GiB.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include "log/log_listing.hpp"
#include "log/log_counters.hpp"
#include "log/log_writer.hpp"
#include "tests/skip_test.hpp"

using namespace perfdm;

namespace {

// Counts bytes and rows (lines not starting with '#') and keeps nothing.
class counting_buf : public std::streambuf {
 public:
  std::uint64_t bytes = 0, rows = 0, lines = 0;

 protected:
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) {
      const char ch = traits_type::to_char_type(c);
      xsputn(&ch, 1);
    }
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const char* p = s;
    const char* end = s + n;
    while (p < end) {
      if (at_line_start_) {
        rows += *p != '#';
        at_line_start_ = false;
      }
      const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
      if (!nl) break;
      ++lines;
      p = static_cast<const char*>(nl) + 1;
      at_line_start_ = true;
    }
    bytes += static_cast<std::uint64_t>(n);
    return n;
  }

 private:
  bool at_line_start_ = true;
};

// kB from /proc/self/status ("VmRSS", "VmHWM").
long status_kb(const char* field) {
  std::ifstream in("/proc/self/status");
  const std::string key = std::string(field) + ":";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) == 0) return std::stol(line.substr(key.size()));
  }
  return -1;
}

struct child_report {
  int rc;
  long base_kb;
  long peak_kb;
  std::uint64_t rows;
  std::uint64_t bytes;
  double seconds;
  bool hwm_reset;
};

// xorshift64*: fast, and its output does not compress.
struct prng {
  std::uint64_t s = 0x9E3779B97F4A7C15ULL;
  std::uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545F4914F6CDD1DULL;
  }
};

constexpr std::uint32_t big_id = 16;
constexpr std::uint64_t target_file_bytes = 1ull << 30;  // 1 GiB on disk
constexpr int files = 16384;                             // record ids
constexpr int counter_names = 65536;                     // counter ids, a large set
constexpr int counters_per_record = 64;

}  // namespace

TEST_CASE("log big: a 1 GiB log file prints in bounded memory", "[log][big]") {
  // The file needs 1 GiB of disk; a machine without it says so instead of failing the suite.
  auto free_bytes = std::filesystem::space(std::filesystem::temp_directory_path()).available;
  if (free_bytes < (3ull << 29))
    return skip_test("the 1 GiB log needs 1.5 GiB free in the temporary directory, " +
                           std::to_string(free_bytes >> 20) + " MiB are free");
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("perfdm_log_big_test_" + std::to_string(::getpid()) + ".log"))
                               .string();
  struct cleanup_t {
    std::string p;
    ~cleanup_t() {
      std::remove(p.c_str());
      std::remove((p + ".partial").c_str());
    }
  } cleanup{path};

  // Write: the writer streams too, records are made on the fly until the file holds 1 GiB.
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t records = 0;
  std::uint64_t record_bytes = 0;
  {
    log_writer w(path, 3, 1);
    job_record job;
    job.command_line = "big-test";
    w.write_job(job);

    std::vector<std::uint64_t> file_ids, counter_ids;
    w.begin_region(logfmt::region_names, logfmt::names_version, "names");
    std::vector<std::uint8_t> entry;
    auto add_name = [&](const std::string& n) {
      entry.clear();
      byte_sink s(entry);
      s.u64(log_name_id(n));
      s.u32(0);
      s.u32(static_cast<std::uint32_t>(n.size()));
      s.bytes(n.data(), n.size());
      w.write(entry.data(), entry.size());
      return log_name_id(n);
    };
    for (int f = 0; f < files; ++f) {
      file_ids.push_back(add_name("/scratch/big/run/file-" + std::to_string(f) + ".dat"));
    }
    for (int c = 0; c < counter_names; ++c) {
      counter_ids.push_back(add_name("BIG_COUNTER_" + std::to_string(c)));
    }
    w.end_region();

    w.begin_region(big_id, 1, "BIG");
    prng rng;
    std::vector<log_counter> cs(counters_per_record);
    std::vector<std::uint8_t> rec;
    // file_size() counts the compressed bytes written so far (deflate holds back a little).
    while (w.file_size() < target_file_bytes) {
      for (auto& c : cs) {
        const std::uint64_t r = rng.next();
        const std::uint64_t id = counter_ids[r % counter_names];
        const std::uint64_t v = rng.next();
        // Three in four integers (any non-negative i64), one in four reals in [0, 2^20).
        c = (r >> 32) % 4 != 0 ? log_counter::of(id, static_cast<std::int64_t>(v >> 1))
                               : log_counter::of(id, static_cast<double>(v >> 11) * 0x1p-33);
      }
      rec.clear();
      encode_log_counters(file_ids[rng.next() % files], cs, rec);
      w.write_record(rec.data(), rec.size());
      record_bytes += 4 + rec.size();
      ++records;
    }
    w.end_region();
    w.finish();
    REQUIRE(w.regions().back().uncompressed_size == record_bytes);
  }
  const std::uint64_t file_bytes = std::filesystem::file_size(path);
  REQUIRE(file_bytes >= target_file_bytes);
  const auto t1 = std::chrono::steady_clock::now();
  // Read, in a child whose memory is measured alone.
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    child_report rep{};
    {
      std::ofstream clear("/proc/self/clear_refs");
      clear << "5";  // resets VmHWM to the current RSS
      clear.flush();
      rep.hwm_reset = static_cast<bool>(clear);
    }
    log_printer_registry reg;
    reg.add(big_id, "BIG", 1, print_log_counters);
    counting_buf buf;
    std::ostream out(&buf);
    std::ostringstream err;
    log_command_options o;
    o.file = path;
    o.registry = &reg;
    rep.base_kb = status_kb("VmRSS");
    const auto c0 = std::chrono::steady_clock::now();
    rep.rc = run_log_command(o, out, err);
    rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
    rep.peak_kb = status_kb("VmHWM");
    rep.rows = buf.rows;
    rep.bytes = buf.bytes;
    [[maybe_unused]] const auto n = ::write(fds[1], &rep, sizeof rep);
    ::_exit(0);
  }
  ::close(fds[1]);
  child_report rep{};
  const auto got = ::read(fds[0], &rep, sizeof rep);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const auto t2 = std::chrono::steady_clock::now();
  REQUIRE(WIFEXITED(status));
  REQUIRE(got == static_cast<ssize_t>(sizeof rep));

  const double write_s = std::chrono::duration<double>(t1 - t0).count();
  const double read_s = std::chrono::duration<double>(t2 - t1).count();
  const long growth_kb = rep.peak_kb - rep.base_kb;
  INFO("records " << records << " (" << record_bytes << " bytes), file " << file_bytes
                  << " bytes, rows " << rep.rows << ", printed " << (rep.bytes >> 20)
                  << " MiB; write " << write_s << " s, read+print " << read_s << " s ("
                  << rep.seconds << " s in the child); RSS " << rep.base_kb << " kB -> peak "
                  << rep.peak_kb << " kB (growth " << growth_kb << " kB, VmHWM reset "
                  << rep.hwm_reset << ")");
  if (std::getenv("PERFDM_LOG_BIG_VERBOSE")) {
    std::fprintf(
        stderr,
        "log big: %llu records (%llu bytes; %llu-byte log), %llu rows, %llu MiB printed; "
        "write %.2f s, read %.2f s; RSS growth %ld kB\n",
        static_cast<unsigned long long>(records), static_cast<unsigned long long>(record_bytes),
        static_cast<unsigned long long>(file_bytes), static_cast<unsigned long long>(rep.rows),
        static_cast<unsigned long long>(rep.bytes >> 20), write_s, read_s, growth_kb);
  }
  CHECK(rep.rc == 0);
  CHECK(rep.rows == records * counters_per_record);
  CHECK(rep.hwm_reset);
  CHECK(growth_kb >= 0);
  CHECK(growth_kb < 64 * 1024);
}
