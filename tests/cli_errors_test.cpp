// What a person meets on the command line when they mistype: one sentence naming what was
// typed, with the nearest command or the list of them, never a parser's generic message.
#include <catch2/catch.hpp>

#include <array>
#include <cstdio>
#include <string>

#include <sys/wait.h>

#include "cli/nearest_command.hpp"

namespace {

// Runs a shell command; returns its exit status and what it printed (stderr included).
std::pair<int, std::string> run(const std::string& command) {
  std::string out;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 4096> buf;
  while (std::fgets(buf.data(), buf.size(), p)) out += buf.data();
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace

TEST_CASE("cli: the nearest known word to a mistyped one", "[cli]") {
  const std::vector<std::string> known{"replay", "engine", "search", "send", "top", "log"};
  CHECK(perfdm::nearest_word("serch", known) == std::optional<std::string>("search"));
  CHECK(perfdm::nearest_word("saerch", known) == std::optional<std::string>("search"));  // swap
  CHECK(perfdm::nearest_word("sea", known) == std::optional<std::string>("search"));     // prefix
  CHECK(perfdm::nearest_word("engien", known) == std::optional<std::string>("engine"));
  CHECK(perfdm::nearest_word("tpo", known) == std::optional<std::string>("top"));
  CHECK_FALSE(perfdm::nearest_word("frobnicate", known).has_value());
  CHECK_FALSE(perfdm::nearest_word("", known).has_value());
}

TEST_CASE("cli: an unknown command is named, with the nearest command or the list", "[cli]") {
  const std::string perfdm = PERFDM_BINARY;
  auto [near_rc, near] = run(perfdm + " serch -- true");
  CHECK(near_rc == 1);
  CHECK(near == "perfdm: unknown command 'serch'; did you mean 'search'?\n");

  auto [far_rc, far] = run(perfdm + " frobnicate");
  CHECK(far_rc == 1);
  CHECK(far.rfind("perfdm: unknown command 'frobnicate'; the commands are replay, engine, ", 0) == 0);
  for (const char* command : {" search,", " top", " log,", " daemon,"})
    CHECK_THAT(far, Catch::Contains(command));
  CHECK(far.back() == '\n');
  CHECK(std::count(far.begin(), far.end(), '\n') == 1);  // one sentence, one line

  // A known command still runs, and options before a command are CLI11's as before.
  auto [version_rc, version] = run(perfdm + " --version");
  CHECK(version_rc == 0);
  CHECK(version.rfind("perfdm ", 0) == 0);
}

TEST_CASE("cli: a process that is not there is said in a sentence, not as the wire's XML",
          "[cli]") {
  const std::string perfdm = PERFDM_BINARY;
  for (const std::string command : {"search", "top"}) {
    auto [rc, said] = run(perfdm + " " + command + " --pid 999999 --seconds 1 </dev/null");
    CHECK(rc == 1);
    CHECK(said == "perfdm " + command + ": process 999999: cannot open /proc/999999/stat: no such "
                  "process (it exited)\n");
    CHECK(said.find("<DYPER") == std::string::npos);
  }
}

TEST_CASE("cli: a mistake in a command's options is one line", "[cli]") {
  const std::string perfdm = PERFDM_BINARY;
  auto [rc, said] = run(perfdm + " replay /nonexistent/file.replay");
  CHECK(rc != 0);
  CHECK(said == "perfdm: FILE: File does not exist: /nonexistent/file.replay (--help lists the "
                "options)\n");
  auto [missing_rc, missing] = run(perfdm + " log");
  CHECK(missing_rc != 0);
  CHECK(missing == "perfdm: FILE is required (--help lists the options)\n");
}
