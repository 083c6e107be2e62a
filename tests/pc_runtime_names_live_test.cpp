// R11 and Go's names, live: node running a CPU-bound JavaScript function, with and without
// --perf-basic-prof, and a Go program hashing in one goroutine. The sampler's frames are
// asserted, then what `perfdm search -- CMD --json` finds. Each program runs a few seconds.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "tests/real_program_process.hpp"
#include "tests/sampled_stack.hpp"

using perfdm::native::stack_frame;

namespace {

const char* fib_js = R"(
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function busy(seconds) {
  const end = Date.now() + seconds * 1000;
  let x = 0;
  while (Date.now() < end) x += fib(22);
  return x;
}
console.log('running');
console.log(busy(Number(process.argv[2] || 3)));
)";

// `perfdm search --seconds S --json ARGS`: the JSON it prints.
nlohmann::json search_with(const std::string& args, int seconds) {
  std::string command = std::string(PERFDM_BINARY) + " search --seconds " +
                        std::to_string(seconds) + " --json " + args + " 2>/dev/null";
  auto out = real_program::output_of(command);
  INFO(command << "\n" << out.substr(0, 3000));
  auto j = nlohmann::json::parse(out, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  REQUIRE(j.contains("findings"));
  return j;
}

// `perfdm search --seconds S --json -- argv…`.
nlohmann::json search(const std::vector<std::string>& argv, int seconds) {
  std::string args = "--";
  for (auto& a : argv) args += " '" + a + "'";
  return search_with(args, seconds);
}

// The search of a program once it said it runs: node's own start-up (reading and compiling
// its modules) takes a good part of a few seconds on a loaded machine, and is no part of what
// the search is asked to name.
nlohmann::json search_running(const std::vector<std::string>& argv, int seconds,
                              const real_program::temp_dir& dir) {
  static int runs = 0;  // each run its own output file: a new one starts empty
  const auto out = dir / ("out" + std::to_string(++runs));
  real_program::process p(argv, "", out);
  REQUIRE(real_program::wait_for_text(out, "running\n"));
  auto j = search_with("--pid " + std::to_string(p.pid), seconds);
  std::remove(("/tmp/perf-" + std::to_string(p.pid) + ".map").c_str());
  return j;
}

// The report's lines: its findings, then what it had not concluded when it ended (on a
// loaded machine the search may not reach the function in the seconds it has; the name is
// what is asserted).
std::string finding_texts(const nlohmann::json& j) {
  std::string out;
  for (auto& f : j["findings"]) out += f["text"].get<std::string>() + "\n";
  for (auto& f : j["inconclusive"]) out += f["text"].get<std::string>() + "\n";
  return out;
}

// A thread's innermost frame once `want` holds for it (a goroutine runs on any thread).
template <typename F>
stack_frame innermost_until(int pid, F&& want) {
  return sampled_stack::stack_until(
             pid, [&](const std::vector<stack_frame>& frames) { return want(frames.front()); },
             true)
      .front();
}

}  // namespace

TEST_CASE("R11 live: node --perf-basic-prof names its JavaScript function, without, [jit node]",
          "[pc][live][jit]") {
  real_program::temp_dir dir;
  real_program::write_file(dir / "fib.js", fib_js);
  SECTION("the sampler's frames") {
    real_program::process named({"node", "--perf-basic-prof", dir / "fib.js", "20"});
    auto f = innermost_until(named.pid, [](const stack_frame& f) { return f.function == "fib"; });
    CHECK(f.file == dir / "fib.js");
    CHECK(f.module == dir / "fib.js");
    CHECK(f.line == 2);
    real_program::process unnamed({"node", dir / "fib.js", "20"});
    auto u = innermost_until(unnamed.pid, [](const stack_frame& f) {
      return f.function.compare(0, 5, "[jit ") == 0;
    });
    CHECK(u.function == "[jit node]");
    CHECK_THAT(u.module, Catch::EndsWith("/node"));
    std::remove(("/tmp/perf-" + std::to_string(named.pid) + ".map").c_str());
  }
  SECTION("the search's findings") {
    auto with_map = search_running({"node", "--perf-basic-prof", dir / "fib.js", "30"}, 6, dir);
    auto text = finding_texts(with_map);
    INFO(text);
    CHECK(text.find("CPUbound") != std::string::npos);
    CHECK(text.find(" in fib (fib.js)") != std::string::npos);
    CHECK(text.find("[jit") == std::string::npos);
    auto without = search_running({"node", dir / "fib.js", "30"}, 6, dir);
    auto advice = finding_texts(without);
    INFO(advice);
    CHECK(advice.find(" in [jit node] (node) \u2014 JIT code without names: node "
                      "--perf-basic-prof names it") != std::string::npos);
    CHECK(advice.find(" in fib (") == std::string::npos);
  }
}

TEST_CASE("Go's names keep their package path, without .abi0: crypto/sha256.block",
          "[pc][live][go]") {
  real_program::temp_dir dir;
  real_program::write_file(dir / "go.mod", "module gohash\n\ngo 1.19\n");
  real_program::write_file(dir / "main.go", R"(package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"strconv"
	"time"
)

func hashFor(d time.Duration) [32]byte {
	buf := make([]byte, 1<<16)
	sum := sha256.Sum256(buf)
	for end := time.Now().Add(d); time.Now().Before(end); {
		for i := 0; i < 64; i++ {
			sum = sha256.Sum256(buf)
		}
	}
	return sum
}

func main() {
	s, _ := strconv.ParseFloat(os.Args[1], 64)
	done := make(chan [32]byte)
	go func() { done <- hashFor(time.Duration(s * float64(time.Second))) }()
	fmt.Printf("%x\n", <-done)
}
)");
  REQUIRE(real_program::shell("cd " + dir.path + " && go build -o gohash . 2>&1"));
  real_program::process hashing({dir / "gohash", "20"});
  auto f = innermost_until(hashing.pid, [](const stack_frame& f) {
    return f.function.find("sha256") != std::string::npos;
  });
  CHECK(f.function == "crypto/sha256.block");
  auto found = search({dir / "gohash", "30"}, 5);
  auto text = finding_texts(found);
  INFO(text);
  bool named = text.find("CPUbound") != std::string::npos &&
               (text.find(" in crypto/sha256.block (gohash)") != std::string::npos ||
                text.find(" in main.hashFor (gohash)") != std::string::npos);
  CHECK(named);
  CHECK(text.find(".abi0") == std::string::npos);
  CHECK(text.find("crypto_sha256") == std::string::npos);
}
