// The native modules' test program (tests/native/native_target.cpp), started for a test and
// killed at its end; ready once it printed its pid (every thread is in place by then).
#pragma once

#include "tests/live_engine_test_support.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace native_test {

// The program is not a child of the test process but a grandchild, handed to init: a ptrace
// stop of a tracee is reported to every thread of the tracer's process, so a test reaping
// its children would take the stops the sampler waits for. The sampler copes with that now
// (native_stack_test.cpp, "a child of the sampling process…"); as a grandchild the program
// is nobody's here, and the other tests do not depend on it.
struct target_process {
  explicit target_process(double seconds = 0) {
    int out[2];
    REQUIRE(pipe(out) == 0);
    pid_t middle = fork();
    REQUIRE(middle >= 0);
    if (middle == 0) {
      if (fork() == 0) {
        dup2(out[1], STDOUT_FILENO);
        close(out[0]);
        auto arg = std::to_string(seconds);
        execl(PERFDM_NATIVE_TARGET, PERFDM_NATIVE_TARGET, arg.c_str(), static_cast<char*>(nullptr));
        _exit(127);
      }
      _exit(0);
    }
    waitpid(middle, nullptr, 0);
    close(out[1]);
    char c = 0;
    std::string line;
    while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
    close(out[0]);
    REQUIRE(!line.empty());
    pid = std::stoi(line);
  }
  ~target_process() { stop(); }
  void stop() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      eventually_gone();
      pid = -1;
    }
  }
  // True once the program exited (init reaps it; a zombie counts as exited).
  bool exited() {
    if (pid <= 0) return true;
    if (alive()) return false;
    pid = -1;
    return true;
  }

  pid_t pid = -1;

 private:
  bool alive() const {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(stat, text)) return false;
    auto close_paren = text.rfind(')');
    return close_paren != std::string::npos && close_paren + 2 < text.size() &&
           text[close_paren + 2] != 'Z' && text[close_paren + 2] != 'X';
  }
  void eventually_gone() const {
    for (int i = 0; i < 1000 && alive(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
};

using perfdm::test::eventually;

// The line of the test program's source that holds `marker`.
inline int source_line(const std::string& marker) {
  std::ifstream in(PERFDM_NATIVE_TARGET_SOURCE);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  return 0;
}

}  // namespace native_test
