// The per-thread /proc files the Performance Consultant's metrics read besides the stacks:
// - /proc/PID/task/TID/io: the thread's read/write-family calls (syscr, syscw) and the bytes
//   they passed (rchar, wchar) — io_ops and io_bytes;
// - /proc/PID/task/TID/syscall: the system call a blocked thread is in and its arguments —
//   the futex a thread blocked on a lock sleeps on is the lock's address.
// Both need the ptrace access the stack sampler has anyway. Plain C++; never throw: a thread
// that ended, or a file that cannot be read, gives an empty result.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace perfdm::native {

struct thread_io {
  std::uint64_t syscr = 0, syscw = 0, rchar = 0, wchar = 0;
};

// The fields of a task's io file (absent ones 0).
thread_io parse_thread_io(std::string_view text);
std::optional<thread_io> read_thread_io(int pid, int tid);

// A blocked thread's system call: its number and first arguments. `running` when the thread
// was not in a system call (the file says "running"), `valid` false when unreadable.
struct thread_syscall {
  bool valid = false;
  bool running = false;
  long number = -1;  // -1: blocked, but not in a system call
  std::array<std::uint64_t, 6> args{};
};

thread_syscall parse_thread_syscall(std::string_view text);
// The raw text of /proc/PID/task/TID/syscall ("" if unreadable).
std::string read_thread_syscall(int pid, int tid);

// The futex system call's number on this machine.
long futex_syscall_number();

// The descriptor an I/O system call works on (its first argument: read, write, pread64,
// pwrite64, readv, writev, preadv(2), pwritev(2), fsync, fdatasync, sync_file_range, fallocate,
// ftruncate, recvfrom, sendto, recvmsg, sendmsg, recvmmsg, sendmmsg, accept(4), connect,
// sendfile, splice, copy_file_range); none for any other call (poll and epoll_wait wait on many).
std::optional<int> io_call_descriptor(const thread_syscall& syscall);

// What /proc/PID/fd/FD links to: a path, `socket:[inode]`, `pipe:[inode]`, ... ("" if gone).
std::string read_descriptor_target(int pid, int fd);

}  // namespace perfdm::native
