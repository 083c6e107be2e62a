// The bundled demo workload: a small server-like program built with the frames component
// generated from workload.frames. Two worker threads serve "requests" through three load
// phases that repeat: idle (few requests), busy (many small ones) and bulk (fewer, larger,
// slower ones). Each request writes one `work` frame; until perfdm attaches, that costs one
// branch. Usage: perfdm_workload [SECONDS] (default: run until killed). Prints its pid.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <unistd.h>

#include "workload_frames.h"

namespace {

using clock_type = std::chrono::steady_clock;

struct stage {
  const char* name;
  int pause_us;         // between requests
  int work_iterations;  // the cost of one request
  std::uint64_t bytes;  // the size of one request
};

constexpr stage stages[] = {
    {"idle", 2000, 200, 64},
    {"busy", 20, 2000, 512},
    {"bulk", 200, 20000, 65536},
};
constexpr auto stage_length = std::chrono::milliseconds(1500);

std::atomic<bool> running{true};
std::atomic<std::uint32_t> queue_depth{0};

void on_signal(int) { running = false; }

// Stands for the request's real work; the result is kept so it is not optimised away.
double serve(int iterations) {
  double x = 1.0;
  for (int i = 0; i < iterations; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

void worker(std::uint8_t id, clock_type::time_point start) {
  double sink = 0;
  while (running) {
    auto elapsed = clock_type::now() - start;
    const stage& s = stages[(elapsed / stage_length) % (sizeof stages / sizeof stages[0])];
    queue_depth.fetch_add(1, std::memory_order_relaxed);
    auto t0 = clock_type::now();
    sink += serve(s.work_iterations);
    auto us = std::chrono::duration<double, std::micro>(clock_type::now() - t0).count();
    auto depth = queue_depth.fetch_sub(1, std::memory_order_relaxed);

    perfdm_work_frame f;
    std::memset(&f, 0, sizeof f);
    PERFDM_work_SET_requests(&f, 1);
    PERFDM_work_SET_bytes(&f, s.bytes);
    PERFDM_work_SET_latency_us(&f, us);
    PERFDM_work_SET_queue_depth(&f, depth);
    PERFDM_work_SET_worker(&f, id);
    PERFDM_work_SET_stage(&f, s.name);
    perfdm_write_work(&f);

    std::this_thread::sleep_for(std::chrono::microseconds(s.pause_us));
  }
  if (sink == 0) std::puts("");  // never: keeps the work
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = argc > 1 ? std::atof(argv[1]) : 0;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::printf("%d\n", static_cast<int>(getpid()));
  std::fflush(stdout);
  auto start = clock_type::now();
  std::vector<std::thread> workers;
  for (std::uint8_t i = 0; i < 2; ++i) workers.emplace_back(worker, i, start);
  while (running) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (seconds > 0 && clock_type::now() - start > std::chrono::duration<double>(seconds))
      running = false;
  }
  for (auto& w : workers) w.join();
  return 0;
}
