// A workload of examples/pc/ started for a test and killed at its end (SIGTERM, then SIGKILL
// if need be). Like native_test::target_process, a grandchild handed to init, so that no
// thread of the test process takes the ptrace stops the sampler waits for. Its stdout stays
// readable line by line (pc_lock prints its mutex, pc_phases its phase changes).
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <regex>
#include <string>
#include <thread>
#include <vector>

namespace pc_test {

struct workload_process {
  // `program`: a name in PERFDM_PC_WORKLOADS (the build's examples folder).
  explicit workload_process(const std::string& program, std::vector<std::string> args = {"30"}) {
    std::string path = std::string(PERFDM_PC_WORKLOADS) + "/" + program;
    int out[2];
    REQUIRE(pipe(out) == 0);
    pid_t middle = fork();
    REQUIRE(middle >= 0);
    if (middle == 0) {
      if (fork() == 0) {
        dup2(out[1], STDOUT_FILENO);
        close(out[0]);
        std::vector<char*> argv{path.data()};
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        execv(path.c_str(), argv.data());
        _exit(127);
      }
      _exit(0);
    }
    waitpid(middle, nullptr, 0);
    close(out[1]);
    fd = out[0];
    std::smatch m;
    auto first = line();
    REQUIRE(std::regex_search(first, m, std::regex("pid ([0-9]+)")));
    pid = std::stoi(m[1].str());
  }
  ~workload_process() {
    if (pid > 0) {
      kill(pid, SIGTERM);
      for (int i = 0; i < 100 && kill(pid, 0) == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      kill(pid, SIGKILL);
    }
    if (fd >= 0) close(fd);
  }
  // The next line it prints ("" if none within 20 s).
  std::string line() {
    std::string out;
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < end) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      char c = 0;
      if (read(fd, &c, 1) != 1) break;
      if (c == '\n') return out;
      out += c;
    }
    return out;
  }
  int pid = -1;
  int fd = -1;
};

}  // namespace pc_test
