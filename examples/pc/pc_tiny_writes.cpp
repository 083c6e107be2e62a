// Workload: many tiny writes.
//
//   pc_tiny_writes [seconds] [log]    (default 60 s; ends cleanly on SIGTERM/SIGINT)
//
// The main thread writes 16-byte records, one write(2) each, in write_log, as fast as it can:
// nearly all its time is inside write (I/O code), so it counts as in I/O. Without `log` it
// writes to /dev/null. With `log` it writes to that file as a ring of 4096 records (64 KiB,
// back to its start with lseek, so the file stays small), and reads its input in 1 MiB blocks
// from /dev/zero, one per ring: the thread's /proc counts then mix those large reads with the
// small writes, which the preloaded I/O library's per-file counts keep apart.
//
// The answer the Performance Consultant must give:
// - ExcessiveIOBlockingTime true (io_wait well above 0.20 s/s) at /Code/pc_tiny_writes/write_log
//   and the main thread;
// - TooManySmallIOOps true: io_bytes/io_ops = 16 bytes per operation, far below 4096 (with
//   `log` and the library: exactly 16 at the log's /File resource);
// - ExcessiveSyncWaitingTime false.
#include <fcntl.h>
#include <unistd.h>

#include <vector>

#include "pc_workload.hpp"

namespace {

constexpr int ring_records = 4096;

__attribute__((noinline)) void write_log(int fd, int input) {
  const char record[16] = "tiny log record";
  std::vector<char> block(input >= 0 ? 1 << 20 : 0);
  for (int n = 0; pc_workload::running(); ++n) {
    if (input >= 0 && n % ring_records == 0) {
      if (read(input, block.data(), block.size()) < 0 || lseek(fd, 0, SEEK_SET) < 0) break;
    }
    if (write(fd, record, sizeof record) < 0) break;
  }
}

}  // namespace

int main(int argc, char** argv) {
  pc_workload::start(argc, argv, "pc_tiny_writes");
  const bool to_file = argc > 2;
  int fd = to_file ? open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644)
                   : open("/dev/null", O_WRONLY);
  int input = to_file ? open("/dev/zero", O_RDONLY) : -1;
  if (fd < 0 || (to_file && input < 0)) return 1;
  write_log(fd, input);
  close(fd);
  if (input >= 0) close(input);
  return 0;
}
