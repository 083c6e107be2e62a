// A frames writer for the tests, driven by commands on standard input, one per line; it
// answers "ok" on standard output once a command is done:
//   handle HEX      stores HEX into perfdm_handle_sample (what perfdm attach does from outside)
//   write N T B     T threads, numbered B.., each write N sample frames, then exit
//   spin T          T threads write sample frames until the process is killed
//   pair HEX N      stores HEX into perfdm_handle_pair and writes N pair frames
//   fork N          forks; the child writes N frames as thread 77 and exits; "ok" once reaped
//   exit
// Frame i of thread t holds values derived from (t, i): tests/frames_test_values.hpp.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "test_frames.h"
#include "tests/frames_test_values.hpp"

namespace {

void write_frames(int thread, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) {
    perfdm_sample_frame f;
    frames_test::fill(f, thread, i);
    perfdm_write_sample(&f);
  }
}

void spin(int thread) {
  for (std::uint64_t i = 0;; ++i) {
    perfdm_sample_frame f;
    frames_test::fill(f, thread, i);
    perfdm_write_sample(&f);
  }
}

}  // namespace

int main() {
  std::string cmd;
  std::vector<std::thread> spinners;
  while (std::cin >> cmd) {
    if (cmd == "handle") {
      std::string hex;
      std::cin >> hex;
      perfdm_handle_sample = std::stoull(hex, nullptr, 16);
    } else if (cmd == "write") {
      std::uint64_t n = 0;
      int threads = 1, base = 0;
      std::cin >> n >> threads >> base;
      std::vector<std::thread> ts;
      for (int t = 0; t < threads; ++t) ts.emplace_back(write_frames, base + t, n);
      for (auto& t : ts) t.join();
    } else if (cmd == "spin") {
      int threads = 1;
      std::cin >> threads;
      for (int t = 0; t < threads; ++t) spinners.emplace_back(spin, t);
    } else if (cmd == "pair") {
      std::string hex;
      std::uint64_t n = 0;
      std::cin >> hex >> n;
      perfdm_handle_pair = std::stoull(hex, nullptr, 16);
      for (std::uint64_t i = 0; i < n; ++i) {
        perfdm_pair_frame f;
        PERFDM_pair_SET_first(&f, i);
        PERFDM_pair_SET_second(&f, 2 * i);
        perfdm_write_pair(&f);
      }
    } else if (cmd == "fork") {
      std::uint64_t n = 0;
      std::cin >> n;
      const pid_t child = fork();
      if (child == 0) {
        write_frames(77, n);
        std::_Exit(0);
      }
      int status = 0;
      waitpid(child, &status, 0);
    } else if (cmd == "exit") {
      std::cout << "ok" << std::endl;
      std::_Exit(0);
    } else {
      std::cout << "unknown command " << cmd << std::endl;
      return 2;
    }
    std::cout << "ok" << std::endl;
  }
  std::_Exit(0);
}
