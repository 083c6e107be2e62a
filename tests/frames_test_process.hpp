// A child process for the frames tests: standard input from a pipe, standard output to a
// pipe (read line by line) or a file, standard error to a file. Killed and reaped on
// destruction if still running.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace frames_test {

class child {
 public:
  // stdout_file empty: standard output is a pipe read by wait_line.
  child(const std::vector<std::string>& argv, const std::string& stdout_file,
        const std::string& stderr_file) {
    int in[2], out[2] = {-1, -1};
    if (::pipe2(in, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
    if (stdout_file.empty() && ::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    if (stdout_file.empty())
      posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    else
      posix_spawn_file_actions_addopen(&fa, 1, stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                       0644);
    posix_spawn_file_actions_addopen(&fa, 2, stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int rc = posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(in[0]);
    if (out[1] >= 0) ::close(out[1]);
    in_ = in[1];
    out_ = out[0];
    if (rc != 0) throw std::runtime_error("cannot start " + argv[0]);
  }

  ~child() {
    if (in_ >= 0) ::close(in_);
    if (out_ >= 0) ::close(out_);
    if (!reaped_ && pid_ > 0) {
      ::kill(pid_, SIGKILL);
      wait();
    }
  }

  pid_t pid() const { return pid_; }

  void send(const std::string& line) {
    const std::string l = line + "\n";
    if (::write(in_, l.data(), l.size()) != static_cast<ssize_t>(l.size()))
      throw std::runtime_error("cannot write to the child");
  }

  // The next line of standard output, waiting up to `seconds`; false on timeout or EOF.
  bool wait_line(std::string& line, double seconds = 20) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    for (;;) {
      const auto nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return true;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            deadline - std::chrono::steady_clock::now())
                            .count();
      pollfd p{out_, POLLIN, 0};
      // Looks at least once, even when the time is up.
      if (::poll(&p, 1, static_cast<int>(left > 0 ? left : 0)) <= 0) {
        if (left <= 0) return false;
        continue;
      }
      char buf[4096];
      const auto n = ::read(out_, buf, sizeof buf);
      if (n <= 0) return false;
      buffer_.append(buf, static_cast<std::size_t>(n));
    }
  }

  // Sends a command and waits for its "ok".
  bool command(const std::string& line, double seconds = 20) {
    send(line);
    std::string answer;
    return wait_line(answer, seconds) && answer == "ok";
  }

  void signal(int sig) {
    if (pid_ > 0) ::kill(pid_, sig);
  }

  // Waits for the child to end (up to `seconds`, then kills it); returns the wait status.
  int wait(double seconds = 60) {
    if (reaped_ || pid_ <= 0) return status_;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    for (;;) {
      const pid_t r = ::waitpid(pid_, &status_, WNOHANG);
      if (r == pid_ || r < 0) break;
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status_, 0);
        break;
      }
      ::usleep(2000);
    }
    reaped_ = true;
    return status_;
  }

 private:
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  std::string buffer_;
  bool reaped_ = false;
  int status_ = 0;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Temporary files of this test run, removed when the test executable exits.
struct temp_files {
  std::vector<std::string> paths;
  ~temp_files() {
    for (const auto& p : paths) std::remove(p.c_str());
  }
};

inline std::string temp_path(const std::string& name) {
  static temp_files files;
  auto path = "/tmp/perfdm_frames_test_" + std::to_string(::getpid()) + "_" + name;
  files.paths.push_back(path);
  return path;
}

}  // namespace frames_test
