// Workload: many tiny writes.
//
//   pc_tiny_writes [seconds]     (default 60; ends cleanly on SIGTERM/SIGINT)
//
// The main thread writes 16-byte records to /dev/null, one write(2) each, in write_log, as
// fast as it can: nearly all its time is inside write (I/O code), so it counts as in I/O.
//
// The answer the Performance Consultant must give:
// - ExcessiveIOBlockingTime true (io_wait well above 0.20 s/s) at /Code/pc_tiny_writes/write_log
//   and the main thread;
// - TooManySmallIOOps true: io_bytes/io_ops = 16 bytes per operation, far below 4096;
// - ExcessiveSyncWaitingTime false.
#include <fcntl.h>
#include <unistd.h>

#include "pc_workload.hpp"

namespace {

__attribute__((noinline)) void write_log(int fd) {
  const char record[16] = "tiny log record";
  while (pc_workload::running())
    if (write(fd, record, sizeof record) < 0) break;
}

}  // namespace

int main(int argc, char** argv) {
  pc_workload::start(argc, argv, "pc_tiny_writes");
  int fd = open("/dev/null", O_WRONLY);
  if (fd < 0) return 1;
  write_log(fd);
  close(fd);
  return 0;
}
