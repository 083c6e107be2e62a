#include "native/thread_proc_files.hpp"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>

namespace perfdm::native {

namespace {

std::string read_small_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string out;
  char buf[1024];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;
  }
  ::close(fd);
  return out;
}

std::string task_file(int pid, int tid, const char* name) {
  return "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/" + name;
}

// The value after "name:" on its own line, 0 if absent.
std::uint64_t io_field(std::string_view text, std::string_view name) {
  for (std::size_t at = 0; at < text.size();) {
    auto end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    auto line = text.substr(at, end - at);
    if (line.size() > name.size() && line.compare(0, name.size(), name) == 0 &&
        line[name.size()] == ':') {
      auto value = line.substr(name.size() + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      std::uint64_t x = 0;
      std::from_chars(value.data(), value.data() + value.size(), x);
      return x;
    }
    at = end + 1;
  }
  return 0;
}

}  // namespace

thread_io parse_thread_io(std::string_view text) {
  return thread_io{io_field(text, "syscr"), io_field(text, "syscw"), io_field(text, "rchar"),
                   io_field(text, "wchar")};
}

std::optional<thread_io> read_thread_io(int pid, int tid) {
  auto text = read_small_file(task_file(pid, tid, "io"));
  if (text.empty()) return std::nullopt;
  return parse_thread_io(text);
}

thread_syscall parse_thread_syscall(std::string_view text) {
  thread_syscall out;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text.empty()) return out;
  if (text == "running") {
    out.valid = out.running = true;
    return out;
  }
  // "<nr> <arg1> … <arg6> <sp> <pc>" (hexadecimal arguments), or "-1 <sp> <pc>".
  std::string copy(text);
  char* p = copy.data();
  char* end = nullptr;
  errno = 0;
  long number = std::strtol(p, &end, 10);
  if (end == p || errno != 0) return out;
  out.valid = true;
  out.number = number;
  if (number < 0) return out;
  for (auto& a : out.args) {
    p = end;
    a = std::strtoull(p, &end, 16);
    if (end == p) {
      out.valid = false;
      return out;
    }
  }
  return out;
}

std::string read_thread_syscall(int pid, int tid) {
  return read_small_file(task_file(pid, tid, "syscall"));
}

long futex_syscall_number() {
  return SYS_futex;
}

std::optional<int> io_call_descriptor(const thread_syscall& syscall) {
  if (!syscall.valid || syscall.running || syscall.number < 0) return std::nullopt;
  switch (syscall.number) {
    case SYS_read: case SYS_write: case SYS_pread64: case SYS_pwrite64: case SYS_readv:
    case SYS_writev: case SYS_preadv: case SYS_pwritev: case SYS_preadv2: case SYS_pwritev2:
    case SYS_fsync: case SYS_fdatasync: case SYS_sync_file_range: case SYS_fallocate:
    case SYS_ftruncate: case SYS_recvfrom: case SYS_sendto: case SYS_recvmsg: case SYS_sendmsg:
    case SYS_recvmmsg: case SYS_sendmmsg: case SYS_accept: case SYS_accept4: case SYS_connect:
    case SYS_sendfile: case SYS_splice: case SYS_copy_file_range: {
      auto fd = static_cast<std::int64_t>(syscall.args[0]);
      if (fd < 0 || fd > 0x7fffffff) return std::nullopt;
      return static_cast<int>(fd);
    }
    default:
      return std::nullopt;
  }
}

std::string read_descriptor_target(int pid, int fd) {
  auto path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  char buf[4096];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
  if (n <= 0) return {};
  return std::string(buf, static_cast<std::size_t>(n));
}

}  // namespace perfdm::native
