// The bounded process control of frames_bench's LTTng peer (bench/lttng/lttng_session):
// commands end or are killed at their limit, and a session that cannot be set up throws a
// clear error and leaves no lttng-sessiond behind. Real processes, real lttng-tools.
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <string>

#include "bench/lttng/lttng_session.hpp"
#include "tests/skip_test.hpp"

using perfdm::bench::lttng_session;
using perfdm::bench::run_bounded;
using namespace std::chrono_literals;

TEST_CASE("run_bounded returns a command's exit code and output", "[lttng_bench]") {
  const auto r = run_bounded({"sh", "-c", "echo out; echo err >&2; exit 3"}, 20s);
  CHECK_FALSE(r.timed_out);
  CHECK(r.exit_code == 3);
  CHECK(r.output == "out\nerr\n");
}

TEST_CASE("run_bounded kills a command at its time limit", "[lttng_bench]") {
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_bounded({"sleep", "60"}, 200ms);
  CHECK(r.timed_out);
  CHECK(r.exit_code == -1);
  CHECK(std::chrono::steady_clock::now() - start < 20s);
}

TEST_CASE("run_bounded reports a program that is not there", "[lttng_bench]") {
  const auto r = run_bounded({"perfdm-no-such-program"}, 20s);
  CHECK_FALSE(r.timed_out);
  CHECK(r.exit_code == 127);
}

TEST_CASE("an LTTng session for a process LTTng-UST does not know fails cleanly", "[lttng_bench]") {
  // This test program has no LTTng-UST in it, so it never registers with the daemon: the
  // session must give up within its bound, say why, and end the daemon it started.
  char folder[] = "/tmp/perfdm-lttng-test-XXXXXX";
  REQUIRE(::mkdtemp(folder));
  const std::string old_home = ::getenv("HOME") ? ::getenv("HOME") : "";
  ::setenv("HOME", folder, 1);
  ::setenv("LTTNG_HOME", folder, 1);
  const bool already_running = run_bounded({"lttng", "--no-sessiond", "list"}, 20s).exit_code == 0;
  std::string error;
  try {
    lttng_session s(folder, "perfdm-lttng-test", "perfdm_bench");
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  // Without lttng-tools the error says what to install, and the bound is not tested here.
  const bool no_tools = error.find("not found in PATH: install lttng-tools") != std::string::npos;
  INFO(error);
  if (already_running) {
    CHECK(error.find("already answers") != std::string::npos);
  } else if (!no_tools) {
    CHECK(error.find("did not register") != std::string::npos);
    CHECK(run_bounded({"lttng", "--no-sessiond", "list"}, 20s).exit_code != 0);  // daemon gone
  }
  ::setenv("HOME", old_home.c_str(), 1);
  ::unsetenv("LTTNG_HOME");
  std::filesystem::remove_all(folder);
  if (no_tools) skip_test("lttng-tools is not installed (scripts/setup.sh installs it)");
}
