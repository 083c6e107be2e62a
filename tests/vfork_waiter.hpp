// A process whose one thread cannot stop for a while, for the stack sampler's late threads:
// it waits, uninterruptibly ('D'), for a vfork child that sleeps `hold` seconds, as a thread
// that gets no CPU on a loaded machine cannot stop. A ptrace interrupt stops it only once the
// vfork child has exited; then it writes a byte to a pipe (it ran on: not held stopped) and
// waits to be killed.
#pragma once

#include <catch2/catch.hpp>

#include <ctime>
#include <fstream>
#include <iterator>
#include <string>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace native_test {

class vfork_waiter {
 public:
  explicit vfork_waiter(std::timespec hold) {
    int out[2];
    REQUIRE(pipe(out) == 0);
    pid_ = fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      close(out[0]);
      pid_t g = vfork();
      if (g == 0) {
        nanosleep(&hold, nullptr);
        _exit(0);
      }
      waitpid(g, nullptr, 0);
      if (write(out[1], "x", 1) != 1) _exit(1);
      for (;;) pause();
    }
    close(out[1]);
    fd_ = out[0];
  }
  ~vfork_waiter() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    close(fd_);
  }
  vfork_waiter(const vfork_waiter&) = delete;
  vfork_waiter& operator=(const vfork_waiter&) = delete;

  pid_t pid() const { return pid_; }

  // Whether its thread waits uninterruptibly now (for the vfork child).
  bool waiting() const {
    std::ifstream stat("/proc/" + std::to_string(pid_) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    auto paren = text.rfind(')');
    return paren != std::string::npos && text.size() > paren + 2 && text[paren + 2] == 'D';
  }

  // Whether it ran on past the wait within `ms` milliseconds (it wrote its byte).
  bool ran_on(int ms) const {
    pollfd p{fd_, POLLIN, 0};
    char c = 0;
    return poll(&p, 1, ms) == 1 && read(fd_, &c, 1) == 1;
  }

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
};

}  // namespace native_test
