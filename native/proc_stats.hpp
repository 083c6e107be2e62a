// What /proc says about a running process and each of its threads: CPU time, resident memory,
// I/O bytes, context switches, thread count, scheduler state. Plain C++; the native source
// actor reads it once per sampling interval for the metrics that are enabled.
//
// - CPU times come from /proc/PID/stat (utime, stime in clock ticks, converted to ns).
// - The command name in stat is between the first '(' and the LAST ')': a name may itself
//   hold spaces and parentheses ("a) (b").
// - I/O bytes are rchar/wchar of /proc/PID/io: every byte passed through read(2)/write(2)
//   and their kin (pipes and sockets included), which is what a program "does" as I/O;
//   storage-level read_bytes/write_bytes are kept as well (0 where the kernel lacks I/O
//   accounting).
// - A process that vanishes (before or in the middle of a read) is a native_error
//   no_such_process; a thread that exits while its siblings are read is simply left out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "proc/process_facts.hpp"

namespace perfdm::native {

// The fields of /proc/PID/stat (or /proc/PID/task/TID/stat) that perfdm uses.
using stat_fields = proc::stat_line;
// Throws native_error(bad_data) when the text is not a stat line.
stat_fields parse_stat(std::string_view text);

// The fields of /proc/PID/status that perfdm uses (absent ones stay 0).
struct status_fields {
  std::uint64_t voluntary_ctxt_switches = 0, nonvoluntary_ctxt_switches = 0;
  std::uint64_t vm_rss_bytes = 0;
  std::int64_t threads = 0;
  // Its pid in its own pid namespace (the last of NSpid; 0 when the kernel does not say):
  // what the process itself, and a file it names after its pid, calls it.
  int namespace_pid = 0;
};
status_fields parse_status(std::string_view text);

// The fields of /proc/PID/io (absent ones stay 0).
struct io_fields {
  std::uint64_t rchar = 0, wchar = 0, read_bytes = 0, write_bytes = 0;
};
io_fields parse_io(std::string_view text);

// "running", "sleeping", "disk-sleep", "stopped", "tracing-stop", "zombie", "dead", "idle"
// for the one-letter state of stat; "unknown" for anything else.
const char* state_name(char state);

struct thread_stats {
  int tid = 0;
  std::string name;  // /proc/PID/task/TID/comm
  char state = '?';
  std::uint64_t cpu_user_ns = 0, cpu_system_ns = 0;
  std::uint64_t ctx_voluntary = 0, ctx_involuntary = 0;
};

struct process_stats {
  int pid = 0;
  std::string name;
  char state = '?';
  std::uint64_t cpu_user_ns = 0, cpu_system_ns = 0;
  std::uint64_t rss_bytes = 0;
  std::uint64_t io_read_bytes = 0, io_write_bytes = 0;        // rchar, wchar
  std::uint64_t storage_read_bytes = 0, storage_write_bytes = 0;
  std::uint64_t ctx_voluntary = 0, ctx_involuntary = 0;
  std::uint32_t threads = 0;
  std::vector<thread_stats> per_thread;  // filled when asked for
};

// What to read: the process's own files always (stat, status), /proc/PID/io only when I/O
// is wanted (it needs ptrace-read permission), and the threads only when they are wanted.
struct proc_read_options {
  bool io = true;
  bool threads = true;
};

// Reads /proc for `pid`. Throws native_error: no_such_process (also when it exits during the
// read), not_permitted, bad_data.
process_stats read_process_stats(int pid, const proc_read_options& options = {});

// One thread's figures; throws native_error(no_such_process) when the thread is gone.
thread_stats read_thread_stats(int pid, int tid);

// The thread ids of `pid` (/proc/PID/task), ascending. Throws no_such_process.
std::vector<int> thread_ids(int pid);

// Every thread's figures, by thread id ascending; a thread that exits while its siblings are
// read is left out. Throws native_error: no_such_process when the process itself is gone.
std::vector<thread_stats> read_threads(int pid);

// The whole of a small /proc file; throws native_error (via process_failure) when it cannot
// be opened or read.
std::string read_proc_file(int pid, const std::string& path);

}  // namespace perfdm::native
