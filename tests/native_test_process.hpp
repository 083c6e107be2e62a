// The native modules' test program (tests/native/native_target.cpp), started for a test and
// killed at its end; ready once it printed its pid (every thread is in place by then).
#pragma once

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace native_test {

struct target_process {
  explicit target_process(double seconds = 0) {
    int out[2];
    REQUIRE(pipe(out) == 0);
    pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      auto arg = std::to_string(seconds);
      execl(PERFDM_NATIVE_TARGET, PERFDM_NATIVE_TARGET, arg.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    char c = 0;
    std::string line;
    while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
    close(out[0]);
    REQUIRE(line == std::to_string(pid));
  }
  ~target_process() { stop(); }
  void stop() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      pid = -1;
    }
  }
  bool exited() {
    int status = 0;
    if (pid <= 0) return true;
    if (waitpid(pid, &status, WNOHANG) != pid) return false;
    pid = -1;
    return true;
  }
  pid_t pid = -1;
};

// Polls `condition` for up to 20 s (a loaded machine is slow, never wrong).
template <class F>
bool eventually(F&& condition) {
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < end) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

// The line of the test program's source that holds `marker`.
inline int source_line(const std::string& marker) {
  std::ifstream in(PERFDM_NATIVE_TARGET_SOURCE);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  return 0;
}

}  // namespace native_test
