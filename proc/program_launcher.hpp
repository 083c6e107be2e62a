// `perfdm search -- CMD`: starts a program held before its first instruction, so that
// observation is set up before it runs (DyPer's start-up, seed 004: a process announces
// START and waits for the reply). A middle process forks the program, which asks to be traced
// (PTRACE_TRACEME) and execs: the kernel stops it right after the exec, before the dynamic
// loader's first instruction. Once perfdm has watched it, release() makes the middle detach,
// so that the stack sampler's own PTRACE_SEIZE works, and the program runs. The middle stays
// its parent, reaps it and hands its wait status back through a pipe: no thread of perfdm
// waits for a child, which would take the ptrace stops the sampler waits for. The middle is a
// child subreaper: a descendant orphaned by its parent stays below it, so descendants()
// still finds it.
#pragma once

#include <sys/types.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace perfdm {

struct launch_error : std::runtime_error {
  using std::runtime_error::runtime_error;
  int exit_code = 127;  // the shell's "cannot run" (126: not executable)
};

class launched_program {
 public:
  // Starts `argv` (argv[0] looked up in PATH as a shell does) with perfdm's standard streams,
  // stopped before its first instruction. Throws launch_error with the reason. `quiet`: its
  // standard output and error go to /dev/null instead (perfdm top owns the terminal).
  // `env`: "NAME=value" entries added to perfdm's environment for it (replacing NAME's).
  explicit launched_program(const std::vector<std::string>& argv, bool quiet = false,
                            const std::vector<std::string>& env = {});
  ~launched_program();  // ends the program if it still runs (terminate(1))
  launched_program(const launched_program&) = delete;
  launched_program& operator=(const launched_program&) = delete;

  pid_t pid() const { return pid_; }
  // Lets it run (once).
  void release();
  // Its wait status once it has ended (non-blocking).
  std::optional<int> wait_status();
  // SIGTERM to it and every process below it; SIGKILL to what is left once it has ended, or
  // to all after `grace_s`. Nothing when it has ended by itself. Returns its wait status.
  int terminate(double grace_s);
  // The processes below it now (children, grandchildren…, orphans the middle adopted),
  // read from /proc.
  std::vector<pid_t> descendants() const;

  // "exited with status 3", "killed by signal 9 (Killed)".
  static std::string describe(int wait_status);
  // The shell's convention: the exit code, or 128 + the signal.
  static int exit_code(int wait_status);

 private:
  pid_t middle_ = -1;
  pid_t pid_ = -1;
  int go_fd_ = -1;      // perfdm -> middle: one byte releases the program
  int status_fd_ = -1;  // middle -> perfdm: the program's wait status when it ends
  bool released_ = false;
  std::optional<int> status_;
};

// The command's path as execvp would find it ("" when not found).
std::string find_in_path(const std::string& name);

}  // namespace perfdm
