#include "proc/program_launcher.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "proc/process_facts.hpp"

namespace perfdm {

namespace {

// Whole writes and reads of a few bytes on a pipe (async-signal-safe: the middle uses them
// between fork and exit).
bool write_all(int fd, const void* p, std::size_t n) {
  auto* b = static_cast<const char*>(p);
  while (n > 0) {
    ssize_t w = write(fd, b, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    b += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}
ssize_t read_all(int fd, void* p, std::size_t n) {
  auto* b = static_cast<char*>(p);
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, b + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  return static_cast<ssize_t>(got);
}

// The middle process: everything between its fork and its _exit is a system call.
[[noreturn]] void run_middle(const char* path, char* const* argv, char* const* envp, int go_fd,
                             int status_fd, int null_fd) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // perfdm gone: the middle goes (its tracee is released)
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  // Ctrl-C reaches the terminal's whole process group: the program takes it, the middle
  // must live on to report how the program ended.
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) _exit(120);
  pid_t child = fork();
  if (child < 0) _exit(121);
  if (child == 0) {
    close(err_pipe[0]);
    close(go_fd);
    close(status_fd);
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    if (null_fd >= 0) {
      dup2(null_fd, STDOUT_FILENO);
      dup2(null_fd, STDERR_FILENO);
    }
    ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    execve(path, argv, envp);
    int e = errno;
    write_all(err_pipe[1], &e, sizeof e);
    _exit(127);
  }
  close(err_pipe[1]);
  int e = 0;
  // The pipe closes on a successful exec (O_CLOEXEC); otherwise it carries errno.
  bool failed = read_all(err_pipe[0], &e, sizeof e) == static_cast<ssize_t>(sizeof e);
  close(err_pipe[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  std::int32_t hello[2] = {failed || !WIFSTOPPED(status) ? -1 : child, failed ? e : 0};
  write_all(status_fd, hello, sizeof hello);
  if (hello[0] < 0) _exit(0);
  char go;
  read_all(go_fd, &go, 1);  // a byte, or perfdm gone (EOF): the program runs either way
  ptrace(PTRACE_DETACH, child, nullptr, nullptr);
  // Reap orphans adopted as a subreaper too, until the program itself ends.
  for (;;) {
    pid_t r = waitpid(-1, &status, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 || r == child) break;
  }
  std::int32_t s = status;
  write_all(status_fd, &s, sizeof s);
  _exit(0);
}

}  // namespace

std::string find_in_path(const std::string& name) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t at = 0;
  while (at <= dirs.size()) {
    auto colon = dirs.find(':', at);
    if (colon == std::string::npos) colon = dirs.size();
    std::string dir = dirs.substr(at, colon - at);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    struct stat st;
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0)
      return candidate;
    at = colon + 1;
  }
  return "";
}

launched_program::launched_program(const std::vector<std::string>& args, bool quiet,
                                   const std::vector<std::string>& env) {
  if (args.empty()) throw launch_error("no command to run");
  std::string path = find_in_path(args[0]);
  if (path.empty()) throw launch_error(args[0] + ": command not found");
  // Everything the middle needs is made before fork: it allocates nothing.
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  // perfdm's environment, with `env`'s entries in place of those of the same name.
  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('=') + 1);
    bool replaced = false;
    for (auto& x : env) replaced = replaced || x.compare(0, name.size(), name) == 0;
    if (!replaced) environment.push_back(entry);
  }
  environment.insert(environment.end(), env.begin(), env.end());
  std::vector<char*> envp;
  for (auto& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  int go[2], status[2];
  if (pipe2(go, O_CLOEXEC) != 0) throw launch_error("cannot make a pipe");
  if (pipe2(status, O_CLOEXEC) != 0) {
    ::close(go[0]);
    ::close(go[1]);
    throw launch_error("cannot make a pipe");
  }
  int null_fd = quiet ? open("/dev/null", O_WRONLY | O_CLOEXEC) : -1;
  middle_ = fork();
  if (middle_ < 0) throw launch_error(std::string("cannot fork: ") + std::strerror(errno));
  if (middle_ == 0) {
    close(go[1]);
    close(status[0]);
    run_middle(path.c_str(), argv.data(), envp.data(), go[0], status[1], null_fd);
  }
  if (null_fd >= 0) close(null_fd);
  close(go[0]);
  close(status[1]);
  go_fd_ = go[1];
  status_fd_ = status[0];
  std::int32_t hello[2] = {-1, 0};
  if (read_all(status_fd_, hello, sizeof hello) != static_cast<ssize_t>(sizeof hello) ||
      hello[0] < 0) {
    int e = hello[1];
    waitpid(middle_, nullptr, 0);
    middle_ = -1;
    launch_error err(args[0] + ": " + (e ? std::strerror(e) : "did not start"));
    if (e == EACCES || e == ENOEXEC) err.exit_code = 126;
    throw err;
  }
  pid_ = hello[0];
}

launched_program::~launched_program() {
  if (middle_ < 0) return;
  if (!status_) terminate(1);
  if (go_fd_ >= 0) close(go_fd_);
  if (status_fd_ >= 0) close(status_fd_);
  waitpid(middle_, nullptr, 0);
}

void launched_program::release() {
  if (released_) return;
  released_ = true;
  char go = 1;
  write_all(go_fd_, &go, 1);
}

std::optional<int> launched_program::wait_status() {
  if (status_) return status_;
  pollfd p{status_fd_, POLLIN, 0};
  if (poll(&p, 1, 0) <= 0) return std::nullopt;
  std::int32_t s = 0;
  if (read_all(status_fd_, &s, sizeof s) != static_cast<ssize_t>(sizeof s)) {
    // The middle died without a word (killed): the program's end is unknown.
    s = SIGKILL;  // reported as killed
  }
  status_ = s;
  return status_;
}

int launched_program::terminate(double grace_s) {
  // The processes the program started end with it: `sh -c 'sqlite3 db < file'` killed alone
  // leaves sqlite3 running.
  auto signal_all = [this](int signal) {
    for (auto d : descendants()) kill(d, signal);
  };
  if (auto s = wait_status()) return *s;  // it ended by itself: what it left running stays
  release();  // a program still held would never see the signal's handler run
  signal_all(SIGTERM);
  kill(pid_, SIGTERM);
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
  while (std::chrono::steady_clock::now() < until) {
    if (auto s = wait_status()) {
      signal_all(SIGKILL);  // what did not end with it (ignores SIGTERM, or was its orphan)
      return *s;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  signal_all(SIGKILL);
  kill(pid_, SIGKILL);
  for (int i = 0; i < 500; ++i) {
    if (auto s = wait_status()) return *s;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  status_ = SIGKILL;
  return *status_;
}

std::vector<pid_t> launched_program::descendants() const {
  // The middle's other children are orphans of the program's descendants.
  return proc::descendants(pid_, middle_);
}

std::string launched_program::describe(int s) {
  if (WIFEXITED(s)) return "exited with status " + std::to_string(WEXITSTATUS(s));
  if (WIFSIGNALED(s))
    return "killed by signal " + std::to_string(WTERMSIG(s)) + " (" + strsignal(WTERMSIG(s)) + ")";
  return "ended (wait status " + std::to_string(s) + ")";
}

int launched_program::exit_code(int s) {
  if (WIFEXITED(s)) return WEXITSTATUS(s);
  if (WIFSIGNALED(s)) return 128 + WTERMSIG(s);
  return 1;
}

}  // namespace perfdm
