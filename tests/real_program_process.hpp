// A program nobody here wrote (xz, sqlite3, python3, a binary built by the test), started for a
// live test and killed at its end (SIGTERM, then SIGKILL). Like pc_test::workload_process, a
// grandchild handed to init, so that no thread of the test process takes the ptrace stops the
// sampler waits for; its pid comes back through a pipe. Standard input and output can be files.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace real_program {

// A fresh folder under /tmp, removed with everything in it at the end.
struct temp_dir {
  temp_dir() {
    char name[] = "/tmp/perfdm-real-XXXXXX";
    REQUIRE(mkdtemp(name) != nullptr);
    path = name;
  }
  ~temp_dir() {
    std::string command = "rm -rf '" + path + "'";
    if (std::system(command.c_str()) != 0) std::fprintf(stderr, "cannot remove %s\n", path.c_str());
  }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
  std::string path;
};

inline void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Waits (at most 20 s) until the file at `path` holds `text`: a program that says it is ready.
inline bool wait_for_text(const std::string& path, const std::string& text) {
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (read_file(path).find(text) == std::string::npos) {
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// Runs a shell command; true when it exits 0.
inline bool shell(const std::string& command) {
  return std::system(command.c_str()) == 0;
}

// Runs a shell command; what it wrote to its standard output.
inline std::string output_of(const std::string& command) {
  std::string out;
  if (FILE* p = popen(command.c_str(), "r")) {
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);
  }
  return out;
}

struct process {
  // argv[0] is looked up in PATH. `in`, `out`: files for standard input and output ("" keeps
  // /dev/null). Returns once the exec has replaced the test's own copy (its close-on-exec pipe
  // closed): a search started earlier would watch that copy, under the test's name.
  explicit process(std::vector<std::string> argv, const std::string& in = "",
                   const std::string& out = "") {
    int p[2];
    REQUIRE(pipe(p) == 0);
    // Closed by a successful exec; carries exec's errno otherwise.
    int exec_status[2];
    REQUIRE(pipe2(exec_status, O_CLOEXEC) == 0);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    pid_t middle = fork();
    REQUIRE(middle >= 0);
    if (middle == 0) {
      pid_t child = fork();
      if (child == 0) {
        int i = open(in.empty() ? "/dev/null" : in.c_str(), O_RDONLY);
        int o = open(out.empty() ? "/dev/null" : out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (i >= 0) dup2(i, STDIN_FILENO);
        if (o >= 0) dup2(o, STDOUT_FILENO);
        close(p[0]);
        close(p[1]);
        close(exec_status[0]);
        execvp(args[0], args.data());
        int e = errno;
        if (write(exec_status[1], &e, sizeof e) != sizeof e) _exit(126);
        _exit(127);
      }
      if (write(p[1], &child, sizeof child) != sizeof child) _exit(1);
      _exit(0);
    }
    close(p[1]);
    close(exec_status[1]);
    pid_t child = -1;
    REQUIRE(read(p[0], &child, sizeof child) == sizeof child);
    close(p[0]);
    waitpid(middle, nullptr, 0);
    pid = child;
    int exec_errno = 0;
    ssize_t n;
    while ((n = read(exec_status[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
    }
    close(exec_status[0]);
    INFO("cannot run " << argv[0] << ": " << std::strerror(exec_errno));
    REQUIRE(n == 0);
  }
  ~process() {
    if (pid <= 0) return;
    kill(pid, SIGTERM);
    for (int i = 0; i < 100 && kill(pid, 0) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    kill(pid, SIGKILL);
  }
  bool alive() const { return kill(pid, 0) == 0; }
  int pid = -1;
};

// A small C++ program of the test's own: `crunch` burns the CPU under `spin_forever` under
// main. Built in `dir` as `spin` with `flags` (-O1 and any others); returns its path.
inline std::string build_spin(const temp_dir& dir, const std::string& flags = "") {
  write_file(dir / "spin.cpp", R"(
volatile unsigned long sink;
__attribute__((noinline)) unsigned long crunch(unsigned long n) {
  unsigned long x = n;
  for (unsigned long i = 0; i < 50000000UL; ++i) x = x * 6364136223846793005UL + (i ^ sink);
  return x;
}
__attribute__((noinline)) void spin_forever() { for (;;) sink += crunch(sink); }
int main() { spin_forever(); }
)");
  REQUIRE(shell("c++ -O1 " + flags + " -o " + dir / "spin" + " " + dir / "spin.cpp"));
  return dir / "spin";
}

// The address `nm` gives a function of `binary` (its symbol's value, 0x…), "" if none.
inline std::string symbol_address(const std::string& binary, const std::string& function) {
  std::string out;
  if (FILE* p = popen(("nm " + binary).c_str(), "r")) {
    char buf[512];
    while (fgets(buf, sizeof buf, p)) {
      std::string line = buf;
      while (!line.empty() && line.back() == '\n') line.pop_back();
      // "0000000000001139 T _Z6crunchm"
      auto space = line.find(' ');
      if (space == std::string::npos || line.size() < space + 3) continue;
      auto name = line.substr(space + 3);
      if (name == function) {
        char hex[32];
        std::snprintf(hex, sizeof hex, "0x%llx", std::stoull(line.substr(0, space), nullptr, 16));
        out = hex;
      }
    }
    pclose(p);
  }
  return out;
}

}  // namespace real_program
