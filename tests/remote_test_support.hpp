// For the remote client tests: real processes on 127.0.0.1 — `perfdm engine --publish`,
// `perfdm client` runs (standard input from a string, output to files read while they run)
// and the probe with another interface.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/gateway_test_support.hpp"

namespace perfdm::remote_test {

using gateway_test::eventually;
using gateway_test::lines_of;
using gateway_test::slurp;
using gateway_test::status_mis;
using gateway_test::temp_path;

// A child process: argv[0] is the program; standard input is `input`, standard output and
// error go to files. Killed (SIGKILL) and reaped when it goes out of scope.
class process {
 public:
  process(std::vector<std::string> argv, const std::string& input, const std::string& name) {
    static int serial = 0;
    auto base = name + "_" + std::to_string(++serial);
    in_path_ = temp_path(base + ".in");
    out_path_ = temp_path(base + ".out");
    err_path_ = temp_path(base + ".err");
    std::ofstream(in_path_) << input;
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      int in = open(in_path_.c_str(), O_RDONLY);
      int out = open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int err = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(in, STDIN_FILENO);
      dup2(out, STDOUT_FILENO);
      dup2(err, STDERR_FILENO);
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
  }
  ~process() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    for (auto& p : {in_path_, out_path_, err_path_}) std::filesystem::remove(p);
  }
  process(const process&) = delete;
  process& operator=(const process&) = delete;

  std::string out() const { return slurp(out_path_); }
  std::string err() const { return slurp(err_path_); }
  pid_t pid() const { return pid_; }
  void signal(int sig) const {
    if (pid_ > 0) ::kill(pid_, sig);
  }

  // The exit status once it ended (-1: killed by a signal, or still running after the
  // patience of the tests, then killed).
  int wait() {
    if (pid_ <= 0) return status_;
    int status = 0;
    if (!eventually([&] { return waitpid(pid_, &status, WNOHANG) == pid_; })) {
      ::kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
    pid_ = -1;
    status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return status_;
  }

  // True once it exited (reaped then).
  bool exited() {
    int status = 0;
    if (pid_ <= 0) return true;
    if (waitpid(pid_, &status, WNOHANG) != pid_) return false;
    pid_ = -1;
    status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return true;
  }

 private:
  pid_t pid_ = -1;
  int status_ = -1;
  std::string in_path_, out_path_, err_path_;
};

// The port a process (engine, relay, search) printed on its standard error after
// "publishing on 127.0.0.1:", once that line is whole; 0 until then.
inline int published_port(const process& p) {
  const std::string marker = "publishing on 127.0.0.1:";
  auto text = p.err();
  auto at = text.find(marker);
  if (at == std::string::npos || text.find('\n', at) == std::string::npos) return 0;
  return std::stoi(text.substr(at + marker.size()));
}

// `perfdm engine --publish 127.0.0.1:0 EXTRA...`; the port is read from its standard error.
class published_engine {
 public:
  explicit published_engine(std::vector<std::string> extra = {})
      : log_path_(temp_path("remote_engine_" + std::to_string(++serial()) + ".log")),
        p_(args(extra), "", "remote_engine") {
    bool up = eventually([&] {
      port_ = static_cast<std::uint16_t>(published_port(p_));
      return port_ != 0;
    });
    if (!up) throw std::runtime_error("the engine did not publish: " + p_.err());
  }
  ~published_engine() {
    std::filesystem::remove(log_path_);
    std::filesystem::remove(log_path_ + ".partial");
  }

  std::uint16_t port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  std::string errors() const { return p_.err(); }
  process& proc() { return p_; }

 private:
  static int& serial() {
    static int n = 0;
    return n;
  }
  std::vector<std::string> args(const std::vector<std::string>& extra) const {
    std::vector<std::string> a{PERFDM_BINARY, "engine", "--publish",
                               "127.0.0.1:0", "--log",  log_path_};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  std::string log_path_;
  process p_;
  std::uint16_t port_ = 0;
};

// `perfdm client ADDRESS ARGS...` with `input` on standard input, started now.
inline std::unique_ptr<process> start_client(const std::string& address,
                                             std::vector<std::string> args,
                                             const std::string& input = "") {
  std::vector<std::string> argv{PERFDM_BINARY, "client", address};
  argv.insert(argv.end(), args.begin(), args.end());
  return std::make_unique<process>(argv, input, "remote_client");
}

struct client_result {
  int status = -1;
  std::string out, err;
};

// `perfdm client ADDRESS ARGS...` run to its end.
inline client_result run_client(const std::string& address, std::vector<std::string> args,
                                const std::string& input = "") {
  auto p = start_client(address, std::move(args), input);
  client_result r;
  r.status = p->wait();
  r.out = p->out();
  r.err = p->err();
  return r;
}

}  // namespace perfdm::remote_test
