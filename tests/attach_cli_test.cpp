// `perfdm attach PID`, `perfdm read SEGMENT --pid PID` and `perfdm detach PID` on the bundled
// workload, a real running program built from generated code, as separate perfdm processes.
#include <catch2/catch.hpp>

#include <array>
#include <csignal>
#include <cstdio>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include "shm/attach.hpp"
#include "tests/live_engine_test_support.hpp"

namespace {

// Runs a shell command; returns its exit status and standard output.
std::pair<int, std::string> run(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 4096> buf;
  while (std::fgets(buf.data(), buf.size(), p)) out += buf.data();
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace

TEST_CASE("perfdm attach, read and detach a running program from the command line", "[attach][cli]") {
  perfdm::test::workload w;
  const std::string perfdm = PERFDM_BINARY;
  const std::string pid = std::to_string(w.pid);
  auto [rc, out] = run(perfdm + " attach " + pid + " 2>/dev/null");
  REQUIRE(rc == 0);
  // One line per frame type: "<struct>\t<segment>".
  REQUIRE(out.rfind("work\tperfdm." + pid + ".", 0) == 0);
  auto segment = out.substr(5, out.find('\n') - 5);
  CHECK(perfdm::shm::process_segments(w.pid) == std::vector<std::string>{segment});

  // Attached already: refused, and the program keeps its segment.
  CHECK(run(perfdm + " attach " + pid + " 2>/dev/null").first == 1);

  // The frames flow: `perfdm read` prints a header and rows (stopped after a few by timeout).
  auto [read_rc, rows] = run("timeout --preserve-status -s INT 1 " + perfdm + " read " + segment + " --pid " + pid +
                             " 2>/dev/null");
  CHECK(read_rc == 0);
  CHECK(rows.rfind("seq\ttime_ns\tlane\twork.requests", 0) == 0);
  CHECK(std::count(rows.begin(), rows.end(), '\n') > 2);

  auto [detach_rc, detached] = run(perfdm + " detach " + pid + " 2>/dev/null");
  CHECK(detach_rc == 0);
  CHECK(perfdm::shm::process_segments(w.pid).empty());
  // Nothing to undo a second time: an error, said so.
  auto [again_rc, again] = run(perfdm + " detach " + pid + " 2>&1");
  CHECK(again_rc == 1);
  CHECK_THAT(again, Catch::Contains("not attached"));
}

TEST_CASE("perfdm attach says why it cannot attach", "[attach][cli]") {
  const std::string perfdm = PERFDM_BINARY;
  int gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  auto [rc, out] = run(perfdm + " attach " + std::to_string(gone) + " 2>&1");
  CHECK(rc == 1);
  CHECK_THAT(out, Catch::Contains("no such process"));
  auto [rc2, out2] = run(perfdm + " attach " + std::to_string(getppid()) + " 2>&1");
  CHECK(rc2 == 1);
  CHECK_THAT(out2, Catch::Contains("perfdm_handle_"));
}
