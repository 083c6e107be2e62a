#include "lttng_session.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace perfdm::bench {

namespace {

using clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr auto daemon_limit = 20s;   // lttng-sessiond answering, this process registered
constexpr auto command_limit = 60s;  // one lttng command (stop waits for the consumer's flush)
constexpr auto poll_period = 50ms;

std::vector<char*> c_argv(std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (auto& a : argv) out.push_back(a.data());
  out.push_back(nullptr);
  return out;
}

// Waits for `pid` to end until `deadline`; true and its status when it did.
bool wait_until(pid_t pid, clock::time_point deadline, int& status) {
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) return true;
    if (clock::now() >= deadline) return false;
    std::this_thread::sleep_for(5ms);
  }
}

std::string file_tail(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return s.size() > max_bytes ? s.substr(s.size() - max_bytes) : s;
}

}  // namespace

command_result run_bounded(const std::vector<std::string>& argv_in,
                           std::chrono::milliseconds limit) {
  command_result result;
  std::vector<std::string> argv = argv_in;
  auto args = c_argv(argv);  // built before fork: the child only calls async-signal-safe code
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    result.output = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    result.output = std::string("fork: ") + std::strerror(errno);
    ::close(out[0]);
    ::close(out[1]);
    return result;
  }
  if (pid == 0) {
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    ::dup2(out[1], 1);
    ::dup2(out[1], 2);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(out[1]);
  const auto deadline = clock::now() + limit;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
    if (left <= 0) {
      result.timed_out = true;
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;  // the deadline is checked above
    char buf[4096];
    const ssize_t got = ::read(out[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // EOF: the command (and whatever inherited its output) is done
    result.output.append(buf, static_cast<std::size_t>(got));
  }
  ::close(out[0]);
  int status = 0;
  if (result.timed_out || !wait_until(pid, clock::now() + 5s, status)) {
    result.timed_out = true;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    return result;
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

lttng_session::lttng_session(std::string home, std::string name, const std::string& provider)
    : home_(std::move(home)), name_(std::move(name)) {
  // lttng-sessiond refuses to start when one already runs for this user (root: the machine's
  // /var/run/lttng one); say so plainly rather than talk to someone else's daemon.
  if (lttng({"list"}).exit_code == 0)
    throw std::runtime_error(
        "an lttng-sessiond already answers for this user; the benchmark does not use it");

  const std::string log = home_ + "/sessiond.log";
  std::vector<std::string> argv{"lttng-sessiond", "--no-kernel"};
  auto args = c_argv(argv);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // never outlive the benchmark, even if it is killed
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  sessiond_ = pid;
  try {
    wait_for_daemon();
    wait_for_registration();
    lttng_or_throw({"create", name_, "--output=" + home_ + "/trace"});
    created_ = true;
    // Trace files rotate (4 × 16 MiB per stream) so a long run cannot fill the disk.
    lttng_or_throw({"enable-channel", "--userspace", "--session=" + name_,
                    "--tracefile-size=16777216", "--tracefile-count=4", "perfdm_bench"});
    lttng_or_throw({"enable-event", "--userspace", "--session=" + name_, "--channel=perfdm_bench",
                    provider + ":*"});
    lttng_or_throw({"start", name_});
  } catch (const std::runtime_error& e) {
    const std::string tail = file_tail(log, 600);
    tear_down();
    throw std::runtime_error(e.what() + (tail.empty() ? "" : "; lttng-sessiond said: " + tail));
  }
}

lttng_session::~lttng_session() {
  tear_down();
}

void lttng_session::tear_down() noexcept {
  if (created_) {
    lttng({"stop", name_});
    lttng({"destroy", name_});
    created_ = false;
  }
  end_daemon();
  std::error_code ignored;
  std::filesystem::remove_all(home_ + "/trace", ignored);
}

std::uint64_t lttng_session::discarded_events() const {
  const auto r = lttng({"list", name_});
  std::uint64_t total = 0;
  const std::string key = "Discarded events:";
  for (auto at = r.output.find(key); at != std::string::npos; at = r.output.find(key, at + 1))
    total += std::strtoull(r.output.c_str() + at + key.size(), nullptr, 10);
  return total;
}

command_result lttng_session::lttng(std::vector<std::string> args) const {
  // --no-sessiond: a command must never spawn a daemon of its own.
  args.insert(args.begin(), {"lttng", "--no-sessiond"});
  return run_bounded(args, command_limit);
}

void lttng_session::lttng_or_throw(std::vector<std::string> args) const {
  const auto r = lttng(args);
  if (r.exit_code == 0) return;
  std::string what = "lttng";
  for (const auto& a : args) what += " " + a;
  what += r.timed_out ? ": no answer in time" : ": failed: " + r.output;
  throw std::runtime_error(what);
}

void lttng_session::wait_for_daemon() {
  const auto deadline = clock::now() + daemon_limit;
  for (;;) {
    int status = 0;
    if (::waitpid(sessiond_, &status, WNOHANG) == sessiond_) {
      sessiond_ = -1;
      const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      throw std::runtime_error("lttng-sessiond exited at start with status " +
                               std::to_string(code) +
                               (code == 127 ? " (not found in PATH: install lttng-tools)" : ""));
    }
    if (lttng({"list"}).exit_code == 0) return;
    if (clock::now() >= deadline)
      throw std::runtime_error("lttng-sessiond did not answer within 20 s");
    std::this_thread::sleep_for(poll_period);
  }
}

void lttng_session::wait_for_registration() {
  // LTTng-UST registers this process with the new daemon from its own listener thread.
  const std::string me = "PID: " + std::to_string(::getpid()) + " ";
  const auto deadline = clock::now() + daemon_limit;
  for (;;) {
    if (lttng({"list", "--userspace"}).output.find(me) != std::string::npos) return;
    if (clock::now() >= deadline)
      throw std::runtime_error(
          "this process did not register with lttng-sessiond within 20 s (LTTNG_HOME set "
          "after the program started?)");
    std::this_thread::sleep_for(poll_period);
  }
}

void lttng_session::end_daemon() {
  if (sessiond_ <= 0) return;
  int status = 0;
  ::kill(sessiond_, SIGTERM);
  if (!wait_until(sessiond_, clock::now() + daemon_limit, status)) {
    ::kill(sessiond_, SIGKILL);
    ::waitpid(sessiond_, &status, 0);
  }
  sessiond_ = -1;
}

}  // namespace perfdm::bench
