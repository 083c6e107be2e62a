// A big log: 256 MiB of uncompressed records, printed through `perfdm log` into a counting
// stream in a forked child, whose peak memory growth must stay under 64 MiB (the reader
// streams region by region, chunk by chunk; Darshan's parser loads it all).
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <ostream>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include "log/log_command.hpp"
#include "log/log_counters.hpp"
#include "log/log_writer.hpp"

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

constexpr std::uint32_t big_id = 16;
constexpr int files = 4096;
constexpr int counters_per_record = 16;

}  // namespace

TEST_CASE("log big: 256 MiB of records print in bounded memory", "[log][big]") {
  const std::string path =
      "/tmp/perfdm_log_big_test_" + std::to_string(::getpid()) + ".log";
  struct cleanup_t {
    std::string p;
    ~cleanup_t() {
      std::remove(p.c_str());
      std::remove((p + ".partial").c_str());
    }
  } cleanup{path};

  // Write: the writer streams too, records are made on the fly.
  const auto t0 = std::chrono::steady_clock::now();
  const std::uint64_t target = 256ull << 20;
  std::uint64_t records = 0;
  std::uint64_t file_bytes = 0;
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
    for (int c = 0; c < counters_per_record; ++c) {
      counter_ids.push_back(add_name("BIG_COUNTER_" + std::to_string(c)));
    }
    w.end_region();

    w.begin_region(big_id, 1, "BIG");
    std::vector<log_counter> cs(counters_per_record);
    std::vector<std::uint8_t> rec;
    std::uint64_t written = 0;
    while (written < target) {
      for (int c = 0; c < counters_per_record; ++c) {
        const auto v = static_cast<std::int64_t>(records * 7 + static_cast<std::uint64_t>(c));
        cs[c] = c < 12 ? log_counter::of(counter_ids[c], v)
                       : log_counter::of(counter_ids[c], static_cast<double>(v) / 8);
      }
      rec.clear();
      encode_log_counters(file_ids[records % files], cs, rec);
      w.write_record(rec.data(), rec.size());
      written += 4 + rec.size();
      ++records;
    }
    w.end_region();
    w.finish();
    file_bytes = w.file_size();
    REQUIRE(w.regions().back().uncompressed_size >= target);
  }
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
  INFO("records " << records << ", rows " << rep.rows << ", printed " << (rep.bytes >> 20)
                  << " MiB; write " << write_s << " s, read+print " << read_s << " s ("
                  << rep.seconds << " s in the child); RSS " << rep.base_kb << " kB -> peak "
                  << rep.peak_kb << " kB (growth " << growth_kb << " kB, VmHWM reset "
                  << rep.hwm_reset << ")");
  if (std::getenv("PERFDM_LOG_BIG_VERBOSE")) {
    std::fprintf(stderr,
                 "log big: %llu records (%llu-byte log), %llu rows, %llu MiB printed; write "
                 "%.2f s, read %.2f s; RSS growth %ld kB\n",
                 static_cast<unsigned long long>(records),
                 static_cast<unsigned long long>(file_bytes),
                 static_cast<unsigned long long>(rep.rows),
                 static_cast<unsigned long long>(rep.bytes >> 20), write_s, read_s, growth_kb);
  }
  CHECK(rep.rc == 0);
  CHECK(rep.rows == records * counters_per_record);
  CHECK(rep.hwm_reset);
  CHECK(growth_kb >= 0);
  CHECK(growth_kb < 64 * 1024);
}
