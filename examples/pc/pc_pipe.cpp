// Workload: blocking I/O on a pipe.
//
//   pc_pipe [seconds]     (default 60; ends cleanly on SIGTERM/SIGINT)
//
// The main thread reads a pipe in read_records and blocks in read(2) almost all the time: a
// thread "feeder" writes one 64-byte record every 20 ms (sleeping in between, which is
// neither I/O nor CPU).
//
// The answer the Performance Consultant must give:
// - ExcessiveIOBlockingTime true (io_wait ≈ 1 s/s), at /Code/pc_pipe/read_records and the
//   main thread /Machine/<host>/pc_pipe{<pid>}/pc_pipe{<pid>};
// - TooManySmallIOOps: 64-byte reads, so io_bytes/io_ops ≈ 64 < 4096 (true if evaluated);
// - CPUbound and ExcessiveSyncWaitingTime false.
#include <unistd.h>

#include <cstring>
#include <thread>

#include "pc_workload.hpp"

namespace {

int pipe_fds[2];
volatile long records = 0;

__attribute__((noinline)) void feed() {
  pc_workload::name_this_thread("feeder");
  char record[64];
  std::memset(record, 'r', sizeof record);
  while (pc_workload::running()) {
    if (write(pipe_fds[1], record, sizeof record) < 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  close(pipe_fds[1]);  // the reader sees the end of the pipe
}

__attribute__((noinline)) void read_records() {
  char record[64];
  for (;;) {
    ssize_t n = read(pipe_fds[0], record, sizeof record);
    if (n == 0) break;
    if (n < 0) {
      if (!pc_workload::running()) break;
      continue;  // EINTR
    }
    records = records + 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  pc_workload::start(argc, argv, "pc_pipe");
  if (pipe(pipe_fds) != 0) return 1;
  std::thread feeder(feed);
  read_records();
  feeder.join();
  return 0;
}
