#include "shm/process_memory.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>

namespace perfdm::shm {

namespace {

std::string proc_path(int pid, const char* entry) {
  return "/proc/" + std::to_string(pid) + "/" + entry;
}

void check_pid(int pid, const std::string& action) {
  // /proc/0, negative or absurd pids would name something else (or nothing) in /proc.
  if (pid <= 0)
    throw attach_error(
        attach_errc::no_such_process,
        "cannot " + action + " of process " + std::to_string(pid) + ": not a process id");
}

// The whole of a /proc file (they report a size of 0, so read until the end).
std::string read_proc_file(int pid, const char* entry, const std::string& action) {
  check_pid(pid, action);
  const int fd = ::open(proc_path(pid, entry).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw process_error(pid, action, errno);
  std::string text;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      throw process_error(pid, action, e);
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

std::string read_link(int pid, const char* entry, const std::string& action) {
  check_pid(pid, action);
  std::string target(4096, '\0');
  const ssize_t n = ::readlink(proc_path(pid, entry).c_str(), target.data(), target.size());
  if (n < 0) throw process_error(pid, action, errno);
  target.resize(static_cast<std::size_t>(n));
  return target;
}

std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

// One transfer through /proc/PID/mem; returns 0 or an errno value.
int transfer_proc_mem(int pid, std::uint64_t address, void* buf, std::size_t size, bool write) {
  const int fd = ::open(proc_path(pid, "mem").c_str(), (write ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) return errno;
  int result = 0;
  std::size_t done = 0;
  while (done < size) {
    const off_t at = static_cast<off_t>(address + done);
    const ssize_t n = write ? ::pwrite(fd, static_cast<const char*>(buf) + done, size - done, at)
                            : ::pread(fd, static_cast<char*>(buf) + done, size - done, at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      result = n < 0 ? errno : EIO;  // 0 bytes: the address is not mapped
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return result;
}

// One transfer with process_vm_readv/writev; returns 0 or an errno value.
int transfer_vm(int pid, std::uint64_t address, void* buf, std::size_t size, bool write) {
  iovec local{buf, size};
  iovec remote{reinterpret_cast<void*>(static_cast<std::uintptr_t>(address)), size};
  const ssize_t n = write ? ::process_vm_writev(pid, &local, 1, &remote, 1, 0)
                          : ::process_vm_readv(pid, &local, 1, &remote, 1, 0);
  if (n < 0) return errno;
  return static_cast<std::size_t>(n) == size ? 0 : EFAULT;  // partly unmapped range
}

void transfer(int pid, std::uint64_t address, void* buf, std::size_t size, bool write,
              memory_method method) {
  const std::string action = std::string(write ? "write " : "read ") + std::to_string(size) +
                             " bytes at " + hex(address) + " in the memory";
  check_pid(pid, action);
  if (size == 0) return;
  int err = 0;
  if (method == memory_method::automatic) {
    err = transfer_vm(pid, address, buf, size, write);
    if (err == 0) return;
    // A process that is gone stays gone; every other refusal (no such system call, a
    // seccomp filter, a read-only page that /proc/PID/mem may still write) gets a second try.
    if (err == ESRCH) throw process_error(pid, action, err);
  }
  err = transfer_proc_mem(pid, address, buf, size, write);
  if (err != 0) throw process_error(pid, action, err);
}

}  // namespace

attach_error process_error(int pid, const std::string& action, int errno_value) {
  attach_errc code = attach_errc::memory_access;
  const char* meaning = "";
  if (errno_value == ESRCH || errno_value == ENOENT) {
    code = attach_errc::no_such_process;
    meaning = "no such process: ";
  } else if (errno_value == EPERM || errno_value == EACCES) {
    code = attach_errc::not_permitted;
    meaning = "not permitted (attach needs the same user as the process, or root): ";
  }
  return attach_error(code, "cannot " + action + " of process " + std::to_string(pid) + ": " +
                                meaning + std::strerror(errno_value));
}

std::string process_executable(int pid) {
  return read_link(pid, "exe", "find the executable");
}

std::string process_executable_file(int pid) {
  // Fails the same way the link does, so callers learn "no such process" or "not permitted"
  // here rather than as an unreadable file.
  read_link(pid, "exe", "find the executable");
  return proc_path(pid, "exe");
}

std::string process_name(int pid) {
  std::string name = read_proc_file(pid, "comm", "read the name");
  while (!name.empty() && (name.back() == '\n' || name.back() == '\0')) name.pop_back();
  return name;
}

std::uint64_t executable_load_base(int pid) {
  const std::string action = "find the executable's load address";
  const std::string exe = read_link(pid, "exe", action);
  struct stat exe_stat;
  const bool have_inode = ::stat(proc_path(pid, "exe").c_str(), &exe_stat) == 0;
  const std::string maps = read_proc_file(pid, "maps", action);

  std::uint64_t lowest = std::numeric_limits<std::uint64_t>::max();
  std::istringstream lines(maps);
  std::string line;
  while (std::getline(lines, line)) {
    // start-end perms offset major:minor inode   path
    unsigned long long start = 0, end = 0, offset = 0, inode = 0;
    unsigned major = 0, minor = 0;
    char perms[8] = {};
    int path_at = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &offset,
                    &major, &minor, &inode, &path_at) < 7)
      continue;
    const std::string path = path_at > 0 ? line.substr(static_cast<std::size_t>(path_at)) : "";
    // By path, as the kernel prints both; by inode when the path differs (e.g. a file seen
    // through another mount namespace).
    const bool same =
        (!path.empty() && path == exe) || (have_inode && inode != 0 && inode == exe_stat.st_ino &&
                                           !path.empty() && path.front() == '/');
    if (same && start < lowest) lowest = start;
  }
  if (lowest == std::numeric_limits<std::uint64_t>::max())
    throw attach_error(attach_errc::memory_access,
                       "cannot " + action + " of process " + std::to_string(pid) + ": " + exe +
                           " is not mapped in /proc/" + std::to_string(pid) + "/maps");
  return lowest;
}

std::uint64_t runtime_address(std::uint64_t value, bool position_independent,
                              std::uint64_t lowest_load_address, std::uint64_t load_base) {
  if (!position_independent) return value;
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t linked_base = lowest_load_address & ~(page - 1);
  return value - linked_base + load_base;
}

void read_memory(int pid, std::uint64_t address, void* out, std::size_t size,
                 memory_method method) {
  transfer(pid, address, out, size, false, method);
}

void write_memory(int pid, std::uint64_t address, const void* in, std::size_t size,
                  memory_method method) {
  // process_vm_writev and pwrite take the buffer as read-only; the cast only unifies the path.
  transfer(pid, address, const_cast<void*>(in), size, true, method);
}

}  // namespace perfdm::shm
