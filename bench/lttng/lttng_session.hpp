// A private LTTng session for frames_bench's tracepoint peer: its own lttng-sessiond (a child
// of this process, found through HOME and LTTNG_HOME pointing at a temporary folder, so the
// machine's session daemon is never used), one recording session writing to that folder, the
// userspace events of one provider enabled and started. Every wait is bounded.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace perfdm::bench {

// What a command printed (stdout and stderr together) and how it ended.
struct command_result {
  int exit_code = -1;  // -1 when it was killed, by a signal or at the time limit
  bool timed_out = false;
  std::string output;
};

// Runs argv[0] (searched in PATH) with this process's environment; kills it at `limit`.
command_result run_bounded(const std::vector<std::string>& argv, std::chrono::milliseconds limit);

class lttng_session {
 public:
  // Starts lttng-sessiond, waits until this process has registered with it, then creates the
  // session `name` writing to `home`/trace (trace files bounded in size), enables
  // `provider`:* in one userspace channel and starts tracing. HOME and LTTNG_HOME must already
  // name `home` in this process's environment (LTTng-UST reads them when the program starts).
  // Throws std::runtime_error saying what failed; nothing is left running then.
  lttng_session(std::string home, std::string name, const std::string& provider);
  ~lttng_session();  // stops and destroys the session, ends the sessiond, removes the trace
  lttng_session(const lttng_session&) = delete;
  lttng_session& operator=(const lttng_session&) = delete;

  // Events the channel discarded because its buffers were full (the writer never waits).
  std::uint64_t discarded_events() const;

 private:
  command_result lttng(std::vector<std::string> args) const;
  void lttng_or_throw(std::vector<std::string> args) const;
  void wait_for_daemon();
  void wait_for_registration();
  void end_daemon();
  void tear_down() noexcept;  // what the destructor does; also when the constructor fails

  std::string home_;
  std::string name_;
  pid_t sessiond_ = -1;
  bool created_ = false;
};

}  // namespace perfdm::bench
