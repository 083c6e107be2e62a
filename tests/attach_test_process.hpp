// A real child process for the attach tests: started with pipes on its standard input and
// output, read line by line with a generous timeout (never a fixed sleep), killed and
// reaped if the test leaves it running. The child also dies with the test (PR_SET_PDEATHSIG).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace attach_test {

using namespace std::chrono_literals;

class child_process {
 public:
  explicit child_process(const std::vector<std::string>& args) {
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    // `exec_status` closes when exec succeeds (close-on-exec) and carries errno when it
    // fails, so the constructor returns only once the child runs the program: a test that
    // looks at /proc/PID/exe right away sees the program, not a copy of the test.
    int in[2], out[2], exec_status[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 ||
        ::pipe2(exec_status, O_CLOEXEC) != 0)
      throw std::runtime_error("pipe failed");
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {  // only async-signal-safe calls until exec
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(126);
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      ::execv(argv[0], argv.data());
      const int e = errno;
      (void)!::write(exec_status[1], &e, sizeof e);
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    ::close(exec_status[1]);
    int exec_errno = 0;
    ssize_t n;
    while ((n = ::read(exec_status[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
    }
    ::close(exec_status[0]);
    if (n > 0) {
      ::waitpid(pid_, nullptr, 0);
      ::close(in[1]);
      ::close(out[0]);
      throw std::runtime_error("cannot run " + args[0] + ": " + std::strerror(exec_errno));
    }
    stdin_ = in[1];
    stdout_ = out[0];
  }
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  ~child_process() {
    close_stdin();
    if (stdout_ >= 0) ::close(stdout_);
    if (!reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  int pid() const { return pid_; }

  // The next line the child writes (without '\n'), or nothing when it closes its output or
  // writes no line within `timeout`.
  std::optional<std::string> read_line(std::chrono::milliseconds timeout = 20s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const auto nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{stdout_, POLLIN, 0};
      const int r = ::poll(&p, 1, static_cast<int>(left.count()));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return std::nullopt;
      char buf[4096];
      const ssize_t n = ::read(stdout_, buf, sizeof buf);
      if (n <= 0) return std::nullopt;
      buffer_.append(buf, static_cast<std::size_t>(n));
    }
  }

  // Reads lines until one equals `line`; false when none does within `timeout`.
  bool wait_for_line(const std::string& line, std::chrono::milliseconds timeout = 20s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      const auto got = read_line(left);
      if (!got) return false;
      if (*got == line) return true;
    }
  }

  void close_stdin() {
    if (stdin_ >= 0) ::close(stdin_);
    stdin_ = -1;
  }

  // Waits for the child to end; its wait status.
  int wait() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    reaped_ = true;
    return status;
  }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  int stdout_ = -1;
  bool reaped_ = false;
  std::string buffer_;
};

}  // namespace attach_test
