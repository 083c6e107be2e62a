// Workload: the bottleneck changes between phases.
//
//   pc_phases [seconds] [switch_seconds]   (default 60 s, switch at 10 s; ends cleanly on
//                                           SIGTERM/SIGINT)
//
// Phase 1 ("cpu", from the start to switch_seconds): the main thread computes in
// crunch_numbers without pause. Phase 2 ("lock", to the end): the main thread stops computing
// and waits (join) for 4 threads "locker-<k>" that contend for one mutex in
// update_shared_table, as pc_lock does. The program prints a line as each phase starts:
//   `pc_phases: phase cpu` first, and `pc_phases: phase lock mutex 0x…` at the switch,
// flushed at once, so that a test or a user starts a new perfdm phase (PHASE) on reading it.
//
// The answer the Performance Consultant must give:
// - phase 1: CPUbound true at /Code/pc_phases/crunch_numbers and the main thread;
//   ExcessiveSyncWaitingTime false;
// - phase 2 (a search of the new phase): ExcessiveSyncWaitingTime true at
//   /SyncObject/Mutex/<the printed address> and /Code/pc_phases/update_shared_table;
//   crunch_numbers no longer CPU-bound. The phase change ends the phase-1 search.
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pc_workload.hpp"

namespace {

std::mutex table_lock;
volatile double result = 0;

__attribute__((noinline)) double crunch_numbers(int rounds) {
  double x = 1.0;
  for (int i = 0; i < rounds; ++i) x = x * 1.0000001 + 1.0 / (i + 1.0);
  return x;
}

__attribute__((noinline)) void compute_phase(std::chrono::steady_clock::time_point until) {
  while (pc_workload::running() && std::chrono::steady_clock::now() < until)
    result = result + crunch_numbers(100000);
}

__attribute__((noinline)) void update_shared_table() {
  std::lock_guard<std::mutex> guard(table_lock);
  pc_workload::spin_for_micros(2000);
}

__attribute__((noinline)) void locker(int k) {
  pc_workload::name_this_thread("locker-" + std::to_string(k));
  while (pc_workload::running()) {
    pc_workload::spin_for_micros(200);
    update_shared_table();
  }
}

}  // namespace

int main(int argc, char** argv) {
  pc_workload::start(argc, argv, "pc_phases");
  double switch_seconds = argc > 2 ? std::atof(argv[2]) : 10.0;
  auto until = std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(switch_seconds));
  std::printf("pc_phases: phase cpu\n");
  std::fflush(stdout);
  compute_phase(until);
  if (!pc_workload::running()) return 0;
  std::printf("pc_phases: phase lock mutex %p\n", static_cast<void*>(&table_lock));
  std::fflush(stdout);
  std::vector<std::thread> workers;
  for (int k = 0; k < 4; ++k) workers.emplace_back(locker, k);
  for (auto& w : workers) w.join();
  return 0;
}
