// Frames into the engine: ATTACH a real running program built from generated code, its frame
// fields become samples of the metric instances that collect them, DETACH, and what happens
// when the program exits while attached. Everything real: the bundled workload process, its
// shared-memory segment, the live actor system.
#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

#include "cli/xml_session.hpp"
#include "tests/live_engine_test_support.hpp"
#include "shm/attach.hpp"

using namespace perfdm;

namespace {

using test::eventually;
using test::workload;

// 10 ms buckets: data within a fraction of a second.
struct engine : test::live_engine {
  engine() : live_engine(fast()) {}
  static session_options fast() {
    auto o = options();
    o.engine.base_width = 10'000'000;
    return o;
  }
};

std::string dm(const std::string& command, const std::string& arg = "") {
  return "<DYPER PID='DM' COMMAND='" + command + "'>" + arg + "</DYPER>";
}
std::string process(int pid, const std::string& extra = "") {
  return "<PROCESS PID='" + std::to_string(pid) + "'" + extra + "/>";
}

using test::buckets;

std::size_t with_data(const std::vector<double>& xs) {
  return static_cast<std::size_t>(std::count_if(xs.begin(), xs.end(), [](double x) { return !std::isnan(x); }));
}

std::uint64_t attribute(const std::string& xml, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(xml, m, std::regex(" " + name + "='([0-9]+)'"))) return 0;
  return std::stoull(m[1].str());
}

}  // namespace

TEST_CASE("frames of an attached program reach the histograms of the MIs that collect them",
          "[ingest]") {
  workload w;
  engine e;
  auto attached = e.reply(dm("ATTACH", process(w.pid)));
  REQUIRE_THAT(attached, Catch::Contains("FRAMES='work'"));
  CHECK_THAT(attached, Catch::Contains("RESOURCE='/Process/perfdm_workload{" + std::to_string(w.pid) + "}'"));
  // ATTACH answers once the metrics and resources exist, so they can be enabled at once.
  CHECK_THAT(e.reply(dm("METRICS")), Catch::Contains("NAME='work.requests' STYLE='COUNTER' UNITS='requests'"));
  CHECK_THAT(e.reply(dm("METRICS")), Catch::Contains("NAME='work.latency_us' STYLE='SAMPLED'"));
  CHECK_THAT(e.reply(dm("RESOURCES")), Catch::Contains("/work' PARENT='/Process/perfdm_workload{"));
  e.reply(dm("STREAM"));
  e.reply(dm("ENABLE", "<ENABLE STREAM='0' METRIC='work.requests'/>"));
  e.reply(dm("ENABLE", "<ENABLE STREAM='0' METRIC='work.latency_us' FOCUS='/Process/perfdm_workload{" +
                           std::to_string(w.pid) + "}/work'/>"));
  std::vector<double> requests, latency;
  REQUIRE(eventually([&] {
    requests = buckets(e.reply(dm("DATA", "<DATA MI='0'/>")));
    latency = buckets(e.reply(dm("DATA", "<DATA MI='1'/>")));
    return with_data(requests) >= 20 && with_data(latency) >= 20;
  }));
  for (double r : requests)
    if (!std::isnan(r)) CHECK(r >= 1);  // a COUNTER bucket holds requests served, whole ones
  for (double l : latency)
    if (!std::isnan(l)) CHECK(l > 0);

  // Every frame read is accounted for; none lost at this rate.
  auto frames = e.reply(dm("FRAMES"));
  CHECK(attribute(frames, "READ") > 0);
  CHECK(attribute(frames, "LOST") == 0);
  CHECK(attribute(frames, "TORN") == 0);

  CHECK_THAT(e.reply(dm("DETACH", process(w.pid))), Catch::Contains("ACTIVE='false'"));
  CHECK(eventually([&] { return shm::process_segments(w.pid).empty(); }));
  CHECK_FALSE(w.exited());  // the program runs on, unobserved
  // The histograms stay; no more data arrives once the ingest actor ended.
  REQUIRE(eventually([&] {
    return e.reply(dm("FRAMES")) == e.reply(dm("FRAMES")) &&
           e.reply(dm("PROCESSES")).find("ACTIVE='false'") != std::string::npos;
  }));
}

TEST_CASE("a program that exits while attached leaves no segment behind and loses no frame read",
          "[ingest]") {
  workload w({"1.0"});
  engine e;
  // The MI exists before the attach, so every frame read has an MI to go to.
  e.reply(dm("DEFINE", "<METRIC NAME='work.requests' STYLE='COUNTER'/>"));
  e.reply(dm("STREAM"));
  e.reply(dm("ENABLE", "<ENABLE STREAM='0' METRIC='work.requests'/>"));
  REQUIRE_THAT(e.reply(dm("ATTACH", process(w.pid))), Catch::Contains("FRAMES='work'"));
  REQUIRE(eventually([&] { return w.exited(); }));
  REQUIRE(eventually([&] { return e.reply(dm("PROCESSES")).find("ACTIVE='false'") != std::string::npos; }));
  CHECK(shm::process_segments(static_cast<int>(attribute(e.reply(dm("PROCESSES")), "PID"))).empty());
  // Every frame the ingest read went into the histogram: the counts agree.
  auto frames = e.reply(dm("FRAMES"));
  auto read = attribute(frames, "READ");
  CHECK(read > 0);
  std::smatch m;
  REQUIRE(std::regex_search(frames, m, std::regex("NAME='requests' COUNT='[0-9]+' MIN='1' MAX='1' SUM='([0-9]+)'")));
  CHECK(std::stoull(m[1].str()) == read);
  double total = 0;
  for (double r : buckets(e.reply(dm("DATA", "<DATA MI='0'/>"))))
    if (!std::isnan(r)) total += r;
  CHECK(total == Approx(static_cast<double>(read)));
}

TEST_CASE("ATTACH refuses with a clear error: no such process, no generated symbol, schema mismatch, twice",
          "[ingest]") {
  engine e;
  SECTION("no such process") {
    int gone = fork();
    if (gone == 0) _exit(0);
    waitpid(gone, nullptr, 0);
    auto r = e.reply(dm("ATTACH", process(gone)));
    CHECK_THAT(r, Catch::Contains("ERROR='UNKNOWN_TARGET'"));
  }
  SECTION("an executable without the generated component") {
    pid_t sleeper = fork();
    if (sleeper == 0) {
      execl("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr));
      _exit(127);
    }
    auto exe = "/proc/" + std::to_string(sleeper) + "/exe";
    REQUIRE(eventually([&] {
      std::error_code ec;
      return std::filesystem::read_symlink(exe, ec).filename() == "sleep";
    }));
    auto r = e.reply(dm("ATTACH", process(sleeper)));
    kill(sleeper, SIGKILL);
    waitpid(sleeper, nullptr, 0);
    CHECK_THAT(r, Catch::Contains("ERROR='BAD_ARGUMENT'"));
    CHECK_THAT(r, Catch::Contains("perfdm_handle_"));
  }
  SECTION("a schema that differs from the program's") {
    workload w;
    auto schema = std::filesystem::temp_directory_path() /
                  ("perfdm-ingest-" + std::to_string(getpid()) + ".frames");
    std::ofstream(schema) << "struct work {\n  uint64_t requests; // @counter\n};\n";
    auto r = e.reply(dm("ATTACH", process(w.pid, " SCHEMA='" + schema.string() + "'")));
    std::filesystem::remove(schema);
    CHECK_THAT(r, Catch::Contains("ERROR='BAD_ARGUMENT'"));
    CHECK_THAT(r, Catch::Contains("differs from the schema"));
    CHECK(shm::process_segments(w.pid).empty());
  }
  SECTION("attached already") {
    workload w;
    REQUIRE_THAT(e.reply(dm("ATTACH", process(w.pid))), Catch::Contains("FRAMES='work'"));
    CHECK_THAT(e.reply(dm("ATTACH", process(w.pid))), Catch::Contains("ERROR='NOT_ALLOWED'"));
    CHECK_THAT(e.reply(dm("DETACH", process(w.pid + 1000000))), Catch::Contains("ERROR='UNKNOWN_TARGET'"));
    e.reply(dm("DETACH", process(w.pid)));
  }
}

TEST_CASE("S4 the ingest follows the sampling interval: samples span exactly one interval", "[ingest]") {
  workload w;
  engine e;
  REQUIRE_THAT(e.reply(dm("ATTACH", process(w.pid))), Catch::Contains("FRAMES='work'"));
  e.reply(dm("STREAM"));
  e.reply(dm("ENABLE", "<ENABLE STREAM='0' METRIC='work.requests'/>"));
  // 10 ms buckets: whole requests per bucket. Were samples longer than an interval, they
  // would be spread over several buckets and give fractions.
  std::vector<double> r;
  REQUIRE(eventually([&] {
    r = buckets(e.reply(dm("DATA", "<DATA MI='0'/>")));
    return with_data(r) >= 30;
  }));
  for (double x : r)
    if (!std::isnan(x)) CHECK(x == std::floor(x));
}
