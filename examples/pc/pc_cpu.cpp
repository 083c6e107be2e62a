// Workload: CPU-bound deep in a call chain.
//
//   pc_cpu [seconds]     (default 60; ends early and cleanly on SIGTERM/SIGINT)
//
// The main thread runs main → run → parse → tokenize without pause; tokenize scans a text
// byte by byte and takes about 90 % of the time, parse's own balance check the rest. A second
// thread, "housekeeper", sleeps in idle_housekeeping and wakes every 100 ms to do nothing.
// At the end it prints its progress: `pc_cpu: parsed N texts in S s (R per s)`.
//
// The answer the Performance Consultant must give:
// - CPUbound true (cpu ≈ 1 s/s at the top focus; below 0.30 would be wrong);
// - where: /Code/pc_cpu/tokenize (refined along main → run → parse → tokenize) and the main
//   thread /Machine/<host>/pc_cpu{<pid>}/pc_cpu{<pid>};
// - never true: /Code/pc_cpu/idle_housekeeping and the housekeeper thread (cpu ≈ 0);
//   ExcessiveSyncWaitingTime and ExcessiveIOBlockingTime false.
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "pc_workload.hpp"

namespace {

std::string text;
volatile std::size_t checksum = 0;

__attribute__((noinline)) std::size_t tokenize(const std::string& s) {
  std::size_t tokens = 0;
  bool in_token = false;
  for (char c : s) {
    bool separator = c == ' ' || c == ',' || c == '\n';
    if (!separator && !in_token) ++tokens;
    in_token = !separator;
  }
  return tokens;
}

// About a tenth of tokenize's work, in parse's own frame.
__attribute__((noinline)) std::size_t parse(const std::string& s) {
  std::size_t tokens = tokenize(s);
  long depth = 0;
  for (std::size_t i = 0; i < s.size(); i += 10) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')') --depth;
  }
  return tokens + static_cast<std::size_t>(depth);
}

// Texts parsed: the program's progress, printed at the end (its rate with and without a
// search watching is the search's observed slowdown, bench/RESULTS.md).
unsigned long parsed = 0;

__attribute__((noinline)) void run() {
  while (pc_workload::running()) {
    checksum = checksum + parse(text);
    ++parsed;
  }
}

__attribute__((noinline)) void idle_housekeeping() {
  pc_workload::name_this_thread("housekeeper");
  while (pc_workload::running()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

}  // namespace

int main(int argc, char** argv) {
  pc_workload::start(argc, argv, "pc_cpu");
  for (int i = 0; text.size() < 256 * 1024; ++i)
    text += (i % 7 == 0) ? "(alpha, beta)\n" : "gamma delta epsilon, ";
  std::thread housekeeper(idle_housekeeping);
  auto started = std::chrono::steady_clock::now();
  run();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("pc_cpu: parsed %lu texts in %.3f s (%.1f per s)\n", parsed, seconds,
              seconds > 0 ? parsed / seconds : 0.0);
  std::fflush(stdout);
  housekeeper.join();
  return 0;
}
