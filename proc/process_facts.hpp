// Facts about the processes of this machine as the kernel tells them (/proc, kill(2),
// gethostname): whether one is alive, its stat line, its descendants, its executable, when
// it started, the host's name. One reader of each, for every part of perfdm that asks.
//
// - The command name in a stat line is between the first '(' and the LAST ')': a name may
//   itself hold spaces and parentheses ("a) (b").
// - A zombie (exited, not yet reaped) is not alive: kill(pid, 0) still succeeds on it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfdm::proc {

// The fields of /proc/PID/stat (or /proc/PID/task/TID/stat) that perfdm uses, numbered as in
// proc(5): 3 state, 4 ppid, 14 utime, 15 stime, 20 num_threads, 22 starttime, 24 rss.
struct stat_line {
  std::string comm;
  char state = '?';
  pid_t ppid = -1;
  std::uint64_t utime_ticks = 0, stime_ticks = 0;
  std::int64_t num_threads = 0;
  std::uint64_t start_ticks = 0;
  std::int64_t rss_pages = 0;
};

// Why a text is not a stat line, or nothing when it is one.
std::optional<std::string> stat_line_problem(std::string_view text);
// nullopt when `text` is not a stat line.
std::optional<stat_line> parse_stat_line(std::string_view text);
// The stat line of a process (tid 0) or of one of its threads; nullopt when it is gone or
// unreadable.
std::optional<stat_line> read_stat(pid_t pid, pid_t tid = 0);

// The process exists and is not a zombie (a process of another user counts: EPERM).
bool process_alive(pid_t pid);

// Every process now on this machine with its parent (/proc/*/stat).
std::vector<std::pair<pid_t, pid_t>> processes_with_parents();
// The processes below `root` now: children, grandchildren… `adopted_by`: also those whose
// parent is that process (a subreaper holding the root's orphans), the root itself excepted.
std::vector<pid_t> descendants(pid_t root, pid_t adopted_by = -1);

// The path of a process's executable (/proc/PID/exe); "" when it is gone or unreadable.
std::string executable_of(pid_t pid);

// When the machine booted, ns since the epoch (/proc/stat btime); read once.
std::int64_t boot_time_ns();
// A stat line's start time (clock ticks since boot) as ns since the epoch.
std::int64_t start_time_ns(std::uint64_t start_ticks);

// This machine's host name; "localhost" when gethostname fails or gives nothing.
std::string host_name();

}  // namespace perfdm::proc
