// A daemon whose engine went away must exit: a detached source actor kept alive by a timer
// of CAF's stopped clock would hold it forever (cli/bounded_exit.hpp).
// Every daemon must exit within a bound after its upstream is lost and after SIGTERM, in
// any order. Each round: one engine, two daemons each watching a process of its own (native
// sources: detached, ticking) and one of them attached to a workload (a frame ingest actor:
// detached too); then the engine is killed first, or the daemons are signalled first, or
// both at once. A longer run: scripts/daemon_exit_rounds.sh (100 rounds per order).
#include <catch2/catch.hpp>
#include <csignal>
#include <thread>

#include "tests/live_engine_test_support.hpp"
#include "tests/remote_test_support.hpp"

using namespace perfdm;
using remote_test::eventually;
using remote_test::process;
using remote_test::published_engine;

namespace {

constexpr int rounds = 10;
// The daemon's own bounds are 5 s after its upstream went away and 25 s after SIGTERM (it
// lets its sources send what they read first); with no source lagging it takes well under
// a second. The test allows 10 s for a loaded CI machine.
constexpr auto exit_bound = std::chrono::seconds(10);

enum class order { engine_first, daemons_first, both };

// Waits at most exit_bound for `p` to exit; its status, or -2 if it still runs (then killed).
int exit_status_within(process& p) {
  auto until = std::chrono::steady_clock::now() + exit_bound;
  while (std::chrono::steady_clock::now() < until) {
    if (p.exited()) return p.wait();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return p.exited() ? p.wait() : -2;
}

std::unique_ptr<process> start_daemon(const published_engine& engine, int n,
                                      std::vector<std::string> extra) {
  std::vector<std::string> argv{PERFDM_BINARY, "daemon",    "--upstream", engine.address(),
                                "--name",      "node-" + std::to_string(n), "--checktime", "5"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return std::make_unique<process>(argv, "", "exit_daemon");
}

// One round; the number of daemons left running past the bound (0 expected).
int round_of(order o) {
  published_engine engine;
  test::workload w;
  process sleeper1({"/bin/sleep", "60"}, "", "exit_sleeper");
  process sleeper2({"/bin/sleep", "60"}, "", "exit_sleeper");
  std::vector<std::unique_ptr<process>> daemons;
  daemons.push_back(start_daemon(engine, 1,
                                 {"--pid", std::to_string(sleeper1.pid()), "--attach",
                                  std::to_string(w.pid)}));
  daemons.push_back(start_daemon(engine, 2, {"--pid", std::to_string(sleeper2.pid())}));
  REQUIRE(eventually([&] {
    for (auto& d : daemons)
      if (d->err().find("forwarding to") == std::string::npos) return false;
    return true;
  }));
  // The sources tick a little first (stack samples every 5 ms, /proc every interval).
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  if (o == order::engine_first) {
    engine.proc().signal(SIGKILL);
  } else if (o == order::daemons_first) {
    for (auto& d : daemons) d->signal(SIGTERM);
  } else {
    engine.proc().signal(SIGKILL);
    for (auto& d : daemons) d->signal(SIGTERM);
  }
  int left = 0;
  for (auto& d : daemons) {
    int status = exit_status_within(*d);
    INFO("daemon stderr: " << d->err());
    if (status == -2) ++left;
    if (o == order::engine_first) {
      CHECK(status == 1);
      CHECK(d->err().find("went away") != std::string::npos);
    } else {
      CHECK((status == 0 || status == 1));
    }
  }
  return left;
}

}  // namespace

TEST_CASE("daemon exit: engine killed first, every daemon exits with status 1",
          "[daemon][remote][daemon_exit]") {
  int left = 0;
  for (int i = 0; i < rounds; ++i) left += round_of(order::engine_first);
  CHECK(left == 0);
}

TEST_CASE("daemon exit: daemons signalled first, every daemon exits",
          "[daemon][remote][daemon_exit]") {
  int left = 0;
  for (int i = 0; i < rounds; ++i) left += round_of(order::daemons_first);
  CHECK(left == 0);
}

TEST_CASE("daemon exit: engine killed and daemons signalled at once, every daemon exits",
          "[daemon][remote][daemon_exit]") {
  int left = 0;
  for (int i = 0; i < rounds; ++i) left += round_of(order::both);
  CHECK(left == 0);
}
