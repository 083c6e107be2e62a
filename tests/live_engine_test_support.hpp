// What the tests that drive a live engine against real processes share: the bundled
// workload as a running process, a live (multi-threaded) session answering one XML request
// at a time, and a bounded wait for a condition.
#pragma once

#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <regex>
#include <sstream>
#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "cli/xml_session.hpp"

namespace perfdm::test {

// Polls `condition` for up to 20 s (a loaded machine is slow, never wrong).
template <class F>
bool eventually(F&& condition) {
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < end) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

// The bundled workload (examples/workload), started for a test and killed at its end. Ready
// once it printed its pid: it runs its own code then, not the test's copy before exec.
struct workload {
  // `args`: its command-line arguments (the first is SECONDS, 0 = until killed); `env`: one
  // variable to set, as NAME and value.
  explicit workload(std::vector<std::string> args = {"0"},
                    std::pair<std::string, std::string> env = {}) {
    int out[2];
    REQUIRE(pipe(out) == 0);
    pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      if (!env.first.empty()) setenv(env.first.c_str(), env.second.c_str(), 1);
      std::vector<char*> argv{const_cast<char*>(PERFDM_WORKLOAD)};
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(PERFDM_WORKLOAD, argv.data());
      _exit(127);
    }
    close(out[1]);
    char c = 0;
    std::string line;
    while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
    close(out[0]);
    REQUIRE(line == std::to_string(pid));
  }
  ~workload() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
  // True once the workload ended (and was reaped).
  bool exited() {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) != pid) return false;
    pid = -1;
    return true;
  }
  pid_t pid = -1;
};

// A live engine: CAF's multi-threaded scheduler, as `perfdm engine` runs it.
struct live_engine {
  explicit live_engine(session_options o = options()) : s(std::move(o)) {}
  static session_options options() {
    session_options o;
    o.deterministic = false;
    return o;
  }
  // The reply (or error reply) to one request; the events it caused are dropped.
  std::string reply(const std::string& xml) {
    std::string out;
    s.run_line(xml, [&](const session_line& l) {
      if (l.kind != session_line::event) out = l.xml;
    });
    return out;
  }
  session s;
};

// The bucket values of a DATA reply, NaN for buckets without data.
inline std::vector<double> buckets(const std::string& reply) {
  std::smatch m;
  std::vector<double> out;
  if (!std::regex_search(reply, m, std::regex(">([^<]*)</HISTOGRAM>"))) return out;
  std::istringstream in(m[1].str());
  std::string v;
  while (in >> v) out.push_back(v == "nan" ? std::nan("") : std::stod(v));
  return out;
}

}  // namespace perfdm::test
