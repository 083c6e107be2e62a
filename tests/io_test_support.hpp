// Running real programs under perfdm's I/O library for the io tests: `perfdm io` itself, or the
// library preloaded by hand, with the scenarios of tests/io/io_calls.c, and reading the log back.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "darshan/darshan_record_id.hpp"
#include "iojob/io_log_contents.hpp"

namespace io_test {

// A fresh directory for one test's files, removed at the end.
struct scratch_dir {
  std::string path;
  explicit scratch_dir(const std::string& name) {
    path = (std::filesystem::temp_directory_path() /
            ("perfdm_io_" + name + "_" + std::to_string(::getpid())))
               .string();
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
};

struct run_result {
  int status = -1;  // waitpid status
  std::string out;
  std::string err;
  int exit_code() const { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }
};

// Runs argv with extra environment entries ("NAME=value"), standard output and error captured
// through files; at most `seconds`, then SIGKILL (the test then fails on the status).
inline run_result run(const std::vector<std::string>& argv,
                      const std::vector<std::string>& env = {}, double seconds = 60) {
  const std::string base =
      (std::filesystem::temp_directory_path() / ("perfdm_io_run_" + std::to_string(::getpid())))
          .string();
  const pid_t pid = fork();
  if (pid == 0) {
    const int o = ::open((base + ".out").c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
    const int e = ::open((base + ".err").c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
    dup2(o, 1);
    dup2(e, 2);
    for (const auto& kv : env) putenv(const_cast<char*>(kv.c_str()));
    std::vector<char*> a;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    execv(a[0], a.data());
    _exit(127);
  }
  run_result r;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (waitpid(pid, &r.status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      kill(pid, SIGKILL);
      waitpid(pid, &r.status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  auto slurp = [](const std::string& p) {
    std::string s;
    if (FILE* f = std::fopen(p.c_str(), "rb")) {
      char b[4096];
      for (std::size_t n; (n = std::fread(b, 1, sizeof b, f)) > 0;) s.append(b, n);
      std::fclose(f);
    }
    std::remove(p.c_str());
    return s;
  };
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  return r;
}

// `perfdm io -q -o LOG [options] -- io_calls SCENARIO DIR [N]`, and the log read back.
inline perfdm::io::io_log_contents perfdm_io(const scratch_dir& dir, const std::string& scenario,
                                             const std::vector<std::string>& options = {},
                                             const std::string& n = "",
                                             run_result* result = nullptr) {
  const std::string log = dir / "run.log";
  std::vector<std::string> argv = {PERFDM_BINARY, "io", "-q", "-o", log};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {"--", PERFDM_IO_CALLS, scenario, dir.path});
  if (!n.empty()) argv.push_back(n);
  run_result r = run(argv);
  INFO("perfdm io " << scenario << ": " << r.err);
  if (result != nullptr) *result = r;
  return perfdm::io::read_io_log(log);
}

// The records of one name (any rank).
template <class Record>
std::vector<Record> records_of(const perfdm::io::io_log_contents& log,
                               const std::vector<Record>& all, const std::string& name) {
  std::vector<Record> out;
  for (const auto& r : all)
    if (log.name(r.id) == name) out.push_back(r);
  return out;
}

inline perfdm::log_posix_record posix_of(const perfdm::io::io_log_contents& log,
                                         const std::string& name) {
  auto rs = records_of(log, log.posix, name);
  INFO("POSIX record of " << name);
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].id == perfdm::darshan::record_id(name));
  return rs[0];
}

inline perfdm::log_stdio_record stdio_of(const perfdm::io::io_log_contents& log,
                                         const std::string& name) {
  auto rs = records_of(log, log.stdio, name);
  INFO("STDIO record of " << name);
  REQUIRE(rs.size() == 1);
  return rs[0];
}

}  // namespace io_test
