// The native modules' costs (docs/NATIVE.md): one stack sample of every thread of the test
// program (tests/native/native_target.cpp: 6 threads), and the slowdown of a fixed amount of
// work in that program when it is watched at CHECKTIME 10 ms, side by side with
// `perf record -F 100 -g` on the same program. Figures: bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "native/native_error.hpp"
#include "native/sampling_delay.hpp"
#include "native/stack_sampler.hpp"

namespace {

// Rounds of the hot function for the fixed work: about a second on the CI kind of machine.
const char* work_rounds = "300000000";

// Starts the program; returns its pid once it printed it (every thread in place).
pid_t start(const std::vector<std::string>& args) {
  int out[2];
  if (pipe(out) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  close(out[1]);
  char c;
  while (read(out[0], &c, 1) == 1 && c != '\n') {
  }
  close(out[0]);
  return pid;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void BM_stack_sample(benchmark::State& state) {
  pid_t pid = start({PERFDM_NATIVE_TARGET});
  perfdm::native::stack_sampler sampler(pid);
  sampler.sample();  // the first sample reads the debug information
  std::size_t threads = 0;
  for (auto _ : state) {
    auto snap = sampler.sample();
    threads = snap.threads.size();
    benchmark::DoNotOptimize(snap);
  }
  state.counters["threads"] = static_cast<double>(threads);
  state.counters["per_thread"] = benchmark::Counter(
      static_cast<double>(state.iterations() * threads), benchmark::Counter::kIsRate |
                                                             benchmark::Counter::kInvert);
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}
BENCHMARK(BM_stack_sample)->Unit(benchmark::kMicrosecond)->MinTime(2.0);

// The fixed work alone.
void BM_work_alone(benchmark::State& state) {
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    pid_t pid = start({PERFDM_NATIVE_TARGET, "work", work_rounds});
    waitpid(pid, nullptr, 0);
    state.SetIterationTime(seconds_since(t0));
  }
}
BENCHMARK(BM_work_alone)->UseManualTime()->Iterations(5)->Unit(benchmark::kMillisecond);

// The fixed work while every thread's stack is sampled at DyPer's delays (exponential, mean
// CHECKTIME 10 ms, 10 % budget), as a watched process is.
void BM_work_sampled_10ms(benchmark::State& state) {
  std::uint64_t samples = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    pid_t pid = start({PERFDM_NATIVE_TARGET, "work", work_rounds});
    perfdm::native::sampling_delay delay;
    try {
      perfdm::native::stack_sampler sampler(pid);
      for (;;) {
        std::this_thread::sleep_for(std::chrono::nanoseconds(delay.next_ns()));
        auto snap = sampler.sample();
        delay.record_cost(snap.cost_ns);
        ++samples;
      }
    } catch (const perfdm::native::native_error&) {
      // It finished its work and exited.
    }
    waitpid(pid, nullptr, 0);
    state.SetIterationTime(seconds_since(t0));
  }
  state.counters["samples"] = static_cast<double>(samples) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_work_sampled_10ms)->UseManualTime()->Iterations(5)->Unit(benchmark::kMillisecond);

// The fixed work under `perf record -F 100 -g` (perf's start and its writing included).
void BM_work_perf_record_100hz(benchmark::State& state) {
  if (system("perf record -q -o /dev/null -- true > /dev/null 2>&1") != 0) {
    state.SkipWithError("perf record does not work here");
    return;
  }
  std::string data = "/tmp/perfdm-native-bench-" + std::to_string(getpid()) + ".data";
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    pid_t pid = start({"perf", "record", "-q", "-F", "100", "-g", "-o", data, "--",
                       PERFDM_NATIVE_TARGET, "work", work_rounds});
    waitpid(pid, nullptr, 0);
    state.SetIterationTime(seconds_since(t0));
  }
  unlink(data.c_str());
}
BENCHMARK(BM_work_perf_record_100hz)->UseManualTime()->Iterations(5)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
