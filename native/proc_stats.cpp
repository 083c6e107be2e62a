#include "native/proc_stats.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "native/native_error.hpp"
#include "proc/process_facts.hpp"

namespace perfdm::native {

namespace {

std::uint64_t ns_per_tick() {
  static const std::uint64_t ns = [] {
    long hz = sysconf(_SC_CLK_TCK);
    return static_cast<std::uint64_t>(1'000'000'000 / (hz > 0 ? hz : 100));
  }();
  return ns;
}

template <class T>
bool parse_int(std::string_view s, T& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && p == s.data() + s.size();
}

// The value of `key:` in a "Key:\tvalue [unit]" file, or empty.
std::string_view value_of(std::string_view text, std::string_view key) {
  for (std::size_t pos = 0; pos < text.size();) {
    auto nl = text.find('\n', pos);
    auto line = text.substr(pos, nl == std::string_view::npos ? text.npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (line.size() > key.size() && line.compare(0, key.size(), key) == 0 &&
        line[key.size()] == ':') {
      auto v = line.substr(key.size() + 1);
      auto b = v.find_first_not_of(" \t");
      if (b == std::string_view::npos) return {};
      v = v.substr(b);
      return v.substr(0, v.find_first_of(" \t"));
    }
  }
  return {};
}

template <class T>
void field(std::string_view text, std::string_view key, T& out) {
  T x{};
  if (auto v = value_of(text, key); !v.empty() && parse_int(v, x)) out = x;
}

std::string first_line(std::string s) {
  if (auto nl = s.find('\n'); nl != std::string::npos) s.resize(nl);
  return s;
}

}  // namespace

stat_fields parse_stat(std::string_view text) {
  if (auto problem = proc::stat_line_problem(text))
    throw native_error(native_errc::bad_data, "not a /proc stat line: " + *problem);
  return *proc::parse_stat_line(text);
}

status_fields parse_status(std::string_view text) {
  status_fields out;
  field(text, "voluntary_ctxt_switches", out.voluntary_ctxt_switches);
  field(text, "nonvoluntary_ctxt_switches", out.nonvoluntary_ctxt_switches);
  std::uint64_t kib = 0;
  field(text, "VmRSS", kib);
  out.vm_rss_bytes = kib * 1024;
  field(text, "Threads", out.threads);
  // "NSpid:\t4711\t1": the outermost namespace first, the process's own last.
  auto at = text.find("\nNSpid:");
  if (at != std::string_view::npos) {
    auto line = text.substr(at + 7);
    line = line.substr(0, line.find('\n'));
    auto last = line.find_last_not_of(" \t");
    if (last != std::string_view::npos) {
      auto first = line.find_last_of(" \t", last);
      first = first == std::string_view::npos ? 0 : first + 1;
      std::int64_t pid = 0;
      if (parse_int(line.substr(first, last + 1 - first), pid) && pid > 0)
        out.namespace_pid = static_cast<int>(pid);
    }
  }
  return out;
}

io_fields parse_io(std::string_view text) {
  io_fields out;
  field(text, "rchar", out.rchar);
  field(text, "wchar", out.wchar);
  field(text, "read_bytes", out.read_bytes);
  field(text, "write_bytes", out.write_bytes);
  return out;
}

const char* state_name(char state) {
  switch (state) {
    case 'R': return "running";
    case 'S': return "sleeping";
    case 'D': return "disk-sleep";
    case 'T': return "stopped";
    case 't': return "tracing-stop";
    case 'Z': return "zombie";
    case 'X': return "dead";
    case 'I': return "idle";
    case 'P': return "parked";
    default: return "unknown";
  }
}

std::string read_proc_file(int pid, const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw process_failure(pid, "open " + path, errno);
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    int err = errno;
    ::close(fd);
    // A process that exits between open and read makes read fail with ESRCH.
    if (n < 0) throw process_failure(pid, "read " + path, err);
    return out;
  }
}

std::vector<int> thread_ids(int pid) {
  auto dir_path = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = ::opendir(dir_path.c_str());
  if (dir == nullptr) throw process_failure(pid, "list the threads in " + dir_path, errno);
  std::vector<int> out;
  while (auto* e = ::readdir(dir)) {
    int tid = 0;
    if (parse_int(std::string_view(e->d_name), tid) && tid > 0) out.push_back(tid);
  }
  ::closedir(dir);
  std::sort(out.begin(), out.end());
  return out;
}

thread_stats read_thread_stats(int pid, int tid) {
  auto base = "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/";
  auto stat = parse_stat(read_proc_file(pid, base + "stat"));
  auto status = parse_status(read_proc_file(pid, base + "status"));
  thread_stats t;
  t.tid = tid;
  t.name = stat.comm;
  t.state = stat.state;
  t.cpu_user_ns = stat.utime_ticks * ns_per_tick();
  t.cpu_system_ns = stat.stime_ticks * ns_per_tick();
  t.ctx_voluntary = status.voluntary_ctxt_switches;
  t.ctx_involuntary = status.nonvoluntary_ctxt_switches;
  return t;
}

process_stats read_process_stats(int pid, const proc_read_options& options) {
  if (pid <= 0)
    throw native_error(native_errc::no_such_process,
                       "process " + std::to_string(pid) + ": not a process id");
  auto base = "/proc/" + std::to_string(pid) + "/";
  auto stat = parse_stat(read_proc_file(pid, base + "stat"));
  auto status = parse_status(read_proc_file(pid, base + "status"));
  process_stats p;
  p.pid = pid;
  p.name = first_line(read_proc_file(pid, base + "comm"));
  p.state = stat.state;
  if (stat.state == 'Z' || stat.state == 'X')
    throw native_error(native_errc::no_such_process,
                       "process " + std::to_string(pid) + ": no such process (it exited)");
  p.cpu_user_ns = stat.utime_ticks * ns_per_tick();
  p.cpu_system_ns = stat.stime_ticks * ns_per_tick();
  p.rss_bytes = status.vm_rss_bytes;
  p.ctx_voluntary = status.voluntary_ctxt_switches;
  p.ctx_involuntary = status.nonvoluntary_ctxt_switches;
  p.threads = static_cast<std::uint32_t>(std::max<std::int64_t>(stat.num_threads, 0));
  if (options.io) {
    auto io = parse_io(read_proc_file(pid, base + "io"));
    p.io_read_bytes = io.rchar;
    p.io_write_bytes = io.wchar;
    p.storage_read_bytes = io.read_bytes;
    p.storage_write_bytes = io.write_bytes;
  }
  // The process's own context switches in status are its main thread's; the sum over
  // threads is the process's.
  if (options.threads) {
    p.per_thread = read_threads(pid);
    std::uint64_t vol = 0, invol = 0;
    for (auto& t : p.per_thread) {
      vol += t.ctx_voluntary;
      invol += t.ctx_involuntary;
    }
    p.ctx_voluntary = vol;
    p.ctx_involuntary = invol;
  }
  return p;
}

std::vector<thread_stats> read_threads(int pid) {
  const std::string base = "/proc/" + std::to_string(pid) + "/";
  std::vector<thread_stats> out;
  for (int tid : thread_ids(pid)) {
    try {
      out.push_back(read_thread_stats(pid, tid));
    } catch (const native_error& e) {
      if (e.code != native_errc::no_such_process) throw;
      // That thread exited meanwhile; the process must still be there.
      if (::access(base.c_str(), F_OK) != 0) throw;
    }
  }
  return out;
}

}  // namespace perfdm::native
