// perfdm io under bad input and faults (issue "Bad input and faults"): more files than the
// records granted, a program closing or dup2-ing over every descriptor, a name that is not
// UTF-8, a 5 GiB file, a statically linked program; and the library used alone
// (LD_PRELOAD=$(perfdm io --library) PERFDM_IO_LOG=DIR), and the summary perfdm io prints.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "darshan/darshan_counters.hpp"
#include "log/log_listing.hpp"
#include "log/log_modules.hpp"
#include "tests/io_test_support.hpp"

using namespace perfdm;
using namespace perfdm::darshan;
using namespace io_test;

TEST_CASE("io faults: more files than the grant: partial, the first N kept", "[io]") {
  scratch_dir d("many");
  run_result rr;
  const std::string log_path = d / "run.log";
  rr = run({PERFDM_BINARY, "io", "-o", log_path, "--max-records", "50", "--", PERFDM_IO_CALLS,
            "many", d.path, "80"});
  REQUIRE(rr.exit_code() == 0);
  const auto log = io::read_io_log(log_path);
  CHECK(log.posix_partial);
  int kept = 0, first = 0;
  for (const auto& r : log.posix) {
    const std::string n = log.name(r.id);
    if (n.find("many-") == std::string::npos) continue;
    ++kept;
    if (n < d / "many-0050") ++first;
    CHECK(r.counters[POSIX_WRITES] == 1);
  }
  CHECK(kept == 50);
  CHECK(first == 50);  // the first 50 opened
  CHECK(rr.err.find("partial: a process reached its POSIX record limit") != std::string::npos);
  // perfdm log refuses a partial module unless asked.
  std::ostringstream out, err;
  log_command_options o;
  o.file = log_path;
  add_log_module_printers(default_log_printers());
  CHECK(run_log_command(o, out, err) == 0);
  CHECK(out.str().find("partial module refused: module posix") != std::string::npos);
}

TEST_CASE("io faults: closing and dup2-ing over every descriptor loses nothing", "[io]") {
  scratch_dir d("closeall");
  const auto log = perfdm_io(d, "close-all");
  CHECK(posix_of(log, d / "before.bin").counters[POSIX_WRITES] == 2);
  CHECK(posix_of(log, d / "after.bin").counters[POSIX_WRITES] == 1);
}

TEST_CASE("io faults: a file name that is not UTF-8", "[io]") {
  scratch_dir d("nonutf8");
  const std::string log_path = d / "run.log";
  const auto rr = run(
      {PERFDM_BINARY, "io", "--json", "-o", log_path, "--", PERFDM_IO_CALLS, "non-utf8", d.path});
  REQUIRE(rr.exit_code() == 0);
  const auto log = io::read_io_log(log_path);
  const std::string name = d / "bad-\xff\xfe-name";
  CHECK(posix_of(log, name).counters[POSIX_WRITES] == 1);
  const auto j = nlohmann::json::parse(rr.err);  // the summary is valid JSON all the same
  CHECK(j["files"] == 1);
  CHECK(j["top"][0]["name"].get<std::string>().find("bad-") != std::string::npos);
}

TEST_CASE("io faults: a 5 GiB file", "[io]") {
  scratch_dir d("big");
  const auto r = posix_of(perfdm_io(d, "big"), d / "big.bin");
  CHECK(r.counters[POSIX_MAX_BYTE_WRITTEN] == (std::int64_t(5) << 30) - 1);
  CHECK(r.counters[POSIX_MAX_BYTE_READ] == (std::int64_t(5) << 30) - 1);
  CHECK(r.counters[POSIX_BYTES_WRITTEN] == 1);
  CHECK(r.counters[POSIX_SIZE_WRITE_0_100] == 1);
  CHECK(r.extra[POSIX_UNLINKS] == 1);
}

TEST_CASE("io faults: a statically linked program gets a clear message, and runs", "[io]") {
  scratch_dir d("static");
  const std::string log_path = d / "run.log";
  const auto rr = run({PERFDM_BINARY, "io", "-o", log_path, "--", PERFDM_IO_STATIC, d / "s.txt"});
  CHECK(rr.exit_code() == 0);
  CHECK(rr.err.find("is statically linked: LD_PRELOAD cannot reach it") != std::string::npos);
  CHECK(std::filesystem::file_size(d / "s.txt") == 6);  // it ran
  const auto log = io::read_io_log(log_path);
  CHECK(log.posix.empty());
  CHECK(rr.err.find("0 files") != std::string::npos);
}

TEST_CASE("io: the library alone, LD_PRELOAD and PERFDM_IO_LOG, one log for the job", "[io]") {
  scratch_dir d("alone");
  const auto lib = run({PERFDM_BINARY, "io", "--library"});
  REQUIRE(lib.exit_code() == 0);
  const std::string library = lib.out.substr(0, lib.out.find('\n'));
  REQUIRE(std::filesystem::exists(library));
  const std::string logs = d / "logs";
  std::filesystem::create_directories(logs);
  const auto rr =
      run({PERFDM_IO_CALLS, "shared", d.path}, {"LD_PRELOAD=" + library, "PERFDM_IO_LOG=" + logs});
  REQUIRE(rr.exit_code() == 0);
  std::vector<std::string> found;
  for (const auto& e : std::filesystem::directory_iterator(logs)) found.push_back(e.path());
  REQUIRE(found.size() == 1);  // one log for the four processes
  CHECK(found[0].find("perfdm-io-io_calls-") != std::string::npos);
  const auto log = io::read_io_log(found[0]);
  CHECK(log.metadata("nprocs") == "4");
  CHECK(posix_of(log, d / "shared.bin").rank == -1);
  // The job's segments are gone.
  for (const auto& e : std::filesystem::directory_iterator("/dev/shm")) {
    const std::string n = e.path().filename();
    CHECK(n.find("perfdm-io." + std::to_string(getuid()) + ".") == std::string::npos);
  }
}

TEST_CASE("io: the summary names files, bytes, times and the access pattern", "[io]") {
  scratch_dir d("summary");
  const std::string log_path = d / "run.log";
  const auto text =
      run({PERFDM_BINARY, "io", "-o", log_path, "--", PERFDM_IO_CALLS, "threads", d.path});
  REQUIRE(text.exit_code() == 0);
  CHECK(text.err.find("1 process, 1 file (0 read, 1 written), 0 B read, 800 KiB written") !=
        std::string::npos);
  CHECK(text.err.find(d / "t.bin") != std::string::npos);
  CHECK(text.err.find("64 B ") != std::string::npos);
  CHECK(text.err.find("partial: no") != std::string::npos);
  const auto json = run(
      {PERFDM_BINARY, "io", "--json", "-o", log_path, "--", PERFDM_IO_CALLS, "example", d.path});
  REQUIRE(json.exit_code() == 0);
  const auto j = nlohmann::json::parse(json.err);
  CHECK(j["processes"] == 1);
  CHECK(j["bytes_written"] == 14496);
  CHECK(j["top"][0]["name"] == d / "data.bin");
  CHECK(j["top"][0]["pattern"] == "1000 B sequential writes, 7 % not sequential (and 4 reads)");
  CHECK(j["partial"] == false);
}

TEST_CASE("io: the library alone, the first process exec'ing: its new image writes the log", "[io]") {
  scratch_dir d("alone_exec");
  const auto lib = run({PERFDM_BINARY, "io", "--library"});
  const std::string library = lib.out.substr(0, lib.out.find('\n'));
  const std::string logs = d / "logs";
  std::filesystem::create_directories(logs);
  const std::string script = "exec " + std::string(PERFDM_IO_CALLS) + " example " + d.path;
  const auto rr = run({"/bin/sh", "-c", script}, {"LD_PRELOAD=" + library, "PERFDM_IO_LOG=" + logs});
  REQUIRE(rr.exit_code() == 0);
  std::vector<std::string> found;
  for (const auto& e : std::filesystem::directory_iterator(logs)) found.push_back(e.path());
  REQUIRE(found.size() == 1);
  const auto log = io::read_io_log(found[0]);
  CHECK(posix_of(log, d / "data.bin").counters[POSIX_WRITES] == 15);
  bool execed = false;
  for (const auto& [k, v] : log.job.metadata)
    if (k == "process" && v.find("(exec'd)") != std::string::npos) execed = true;
  CHECK(execed);  // the shell's image
  CHECK(log.metadata("nprocs") == "2");
}
