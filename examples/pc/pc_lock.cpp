// Workload: lock contention among threads.
//
//   pc_lock [seconds] [threads]   (default 60 s, 4 threads; ends cleanly on SIGTERM/SIGINT)
//
// Each worker thread "locker-<k>" loops: prepare_update (0.2 ms of CPU, no lock), then
// update_shared_table, which takes the one mutex `table_lock` and holds it for 2 ms of CPU.
// With 4 threads the mutex is always held and each thread waits for it about 3/4 of the time.
// The main thread only joins the workers (it waits, and counts in sync_wait too: a join).
// The first line printed gives the mutex's address: `pc_lock: mutex 0x…`.
//
// The answer the Performance Consultant must give:
// - ExcessiveSyncWaitingTime true (sync_wait ≈ 3 s/s of the workers at the top focus), at
//   /SyncObject/Mutex/<the mutex's address> and at /Code/pc_lock/update_shared_table (the
//   function that calls the lock);
// - CPUbound also true (the holder runs: cpu ≈ 1 s/s) at /Code/pc_lock/update_shared_table;
// - ExcessiveIOBlockingTime false.
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pc_workload.hpp"

namespace {

std::mutex table_lock;
volatile long table_updates = 0;

__attribute__((noinline)) void prepare_update() {
  pc_workload::spin_for_micros(200);
}

__attribute__((noinline)) void update_shared_table() {
  std::lock_guard<std::mutex> guard(table_lock);
  pc_workload::spin_for_micros(2000);
  table_updates = table_updates + 1;
}

__attribute__((noinline)) void locker(int k) {
  pc_workload::name_this_thread("locker-" + std::to_string(k));
  while (pc_workload::running()) {
    prepare_update();
    update_shared_table();
  }
}

}  // namespace

int main(int argc, char** argv) {
  pc_workload::start(argc, argv, "pc_lock");
  int threads = argc > 2 ? std::atoi(argv[2]) : 4;
  if (threads < 2) threads = 2;
  std::printf("pc_lock: mutex %p\n", static_cast<void*>(&table_lock));
  std::fflush(stdout);
  std::vector<std::thread> workers;
  for (int k = 0; k < threads; ++k) workers.emplace_back(locker, k);
  for (auto& w : workers) w.join();
  return 0;
}
