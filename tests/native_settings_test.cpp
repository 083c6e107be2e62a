// The native modules following DyPer's per-process settings and outliving their process:
// SET MONITOR, CPUTIME and CHECKTIME and USETHREAD change what the sampler does, observed in
// PROFILE; REPORT's thread section counts each thread's states over the samples; a watched
// process that exits keeps its last profile and stacks until UNWATCH or a new WATCH; the
// log's native module holds the profile. Everything real: the test program, ptrace, /proc,
// the live actor system.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>

#include "log/modules/native_log_module.hpp"
#include "log/log_print.hpp"
#include "native_test_process.hpp"
#include "tests/live_engine_test_support.hpp"
#include "tests/log_test_files.hpp"

using namespace perfdm;
using native_test::eventually;
using native_test::target_process;

namespace {

struct engine : test::live_engine {
  explicit engine(std::int64_t checktime_ns = 2'000'000) : live_engine(with(checktime_ns)) {}
  static session_options with(std::int64_t checktime_ns) {
    auto o = options();
    o.engine.native.delay.checktime_ns = checktime_ns;
    return o;
  }
};

std::string dm(const std::string& command, const std::string& arg = "") {
  return "<DYPER PID='DM' COMMAND='" + command + "'>" + arg + "</DYPER>";
}
std::string process(int pid) {
  return "<PROCESS PID='" + std::to_string(pid) + "'/>";
}
std::string command(int pid, const std::string& name, const std::string& arg = "") {
  return "<DYPER PID='" + std::to_string(pid) + "' COMMAND='" + name + "'>" + arg + "</DYPER>";
}
std::string set(int pid, const std::string& var, const std::string& value) {
  return command(pid, "SET", "<VAR NAME='" + var + "' VALUE='" + value + "'/>");
}

// A number attribute of the first element that has it.
double attribute(const std::string& xml, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(xml, m, std::regex(" " + name + "='([-0-9.e+]+)'")))
    FAIL("no " << name << " in " << xml.substr(0, 500));
  return std::stod(m[1].str());
}

struct profile_counts {
  double samples, stacks, checktime;
};
profile_counts profile_of(engine& e, int pid) {
  auto p = e.reply(dm("PROFILE", process(pid)));
  return {attribute(p, "SAMPLES"), attribute(p, "STACKS"), attribute(p, "CHECKTIME")};
}

// Samples are taken: SAMPLES grows past `at_least`.
bool sampling(engine& e, int pid, double at_least) {
  return eventually([&] { return profile_of(e, pid).samples > at_least; });
}

// The <THREAD …/> element of REPORT's thread section for the thread named `name`.
std::string thread_element(const std::string& report, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(report, m, std::regex("<THREAD ID='[0-9]+' NAME='" + name + "'[^>]*/>")))
    return "";
  return m[0].str();
}

}  // namespace

TEST_CASE("SET MONITOR false stops all sampling of the process, true starts it again",
          "[native][engine][settings]") {
  target_process t;
  engine e;
  REQUIRE_THAT(e.reply(dm("WATCH", process(t.pid))), Catch::Contains("WATCHED='true'"));
  CHECK_THAT(e.reply(command(t.pid, "GET", "<VAR NAME='MONITOR'/>")),
             Catch::Contains("VALUE='true'"));
  CHECK_THAT(e.reply(command(t.pid, "GET", "<VAR NAME='CPUTIME'/>")),
             Catch::Contains("VALUE='true'"));
  REQUIRE(sampling(e, t.pid, 3));
  REQUIRE_THAT(e.reply(set(t.pid, "MONITOR", "false")), Catch::Contains("VALUE='false'"));
  // The source had the new settings before the reply came: no sample after it.
  auto stopped = profile_of(e, t.pid).samples;
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // 250 mean delays
  CHECK(profile_of(e, t.pid).samples == stopped);
  REQUIRE_THAT(e.reply(set(t.pid, "MONITOR", "true")), Catch::Contains("VALUE='true'"));
  CHECK(sampling(e, t.pid, stopped + 3));
}

TEST_CASE("SET CPUTIME false stops stack sampling while the /proc readings go on",
          "[native][engine][settings]") {
  target_process t;
  engine e;
  REQUIRE_THAT(e.reply(dm("WATCH", process(t.pid))), Catch::Contains("WATCHED='true'"));
  REQUIRE(sampling(e, t.pid, 3));
  e.reply(dm("STREAM"));
  auto resource = "/Process/native_target{" + std::to_string(t.pid) + "}";
  REQUIRE_THAT(
      e.reply(dm("ENABLE", "<ENABLE STREAM='0' METRIC='proc.threads' FOCUS='" + resource + "'/>")),
      Catch::Contains("MI ID='0'"));
  REQUIRE_THAT(e.reply(set(t.pid, "CPUTIME", "false")), Catch::Contains("VALUE='false'"));
  auto stopped = profile_of(e, t.pid).samples;
  // The thread count keeps coming from /proc.
  CHECK(eventually([&] {
    auto b = test::buckets(e.reply(dm("DATA", "<DATA MI='0'/>")));
    return std::any_of(b.begin(), b.end(), [](double v) { return v == 6; });
  }));
  CHECK(profile_of(e, t.pid).samples == stopped);
  e.reply(set(t.pid, "CPUTIME", "true"));
  CHECK(sampling(e, t.pid, stopped + 3));
}

TEST_CASE("SET CHECKTIME changes the sampler's mean delay at once", "[native][engine][settings]") {
  target_process t;
  engine e(10'000'000'000);  // CHECKTIME 10 s: the first delay drawn may be long
  REQUIRE_THAT(e.reply(dm("WATCH", process(t.pid))), Catch::Contains("WATCHED='true'"));
  CHECK(profile_of(e, t.pid).checktime >= 10);
  CHECK_THAT(e.reply(command(t.pid, "GET", "<VAR NAME='CHECKTIME'/>")),
             Catch::Contains("VALUE='10000'"));
  REQUIRE_THAT(e.reply(set(t.pid, "CHECKTIME", "300")), Catch::Contains("VALUE='300'"));
  // The mean is 0.3 s now (or more, if the budget stretches it), and samples come without
  // waiting for the 10 s delay drawn before.
  auto p = profile_of(e, t.pid);
  CHECK(p.checktime >= 0.3);
  CHECK(p.checktime < 10);
  CHECK(sampling(e, t.pid, p.samples + 2));
}

TEST_CASE("USETHREAD restricts stack sampling to the threads chosen",
          "[native][engine][settings]") {
  target_process t;
  engine e;
  REQUIRE_THAT(e.reply(dm("WATCH", process(t.pid))), Catch::Contains("WATCHED='true'"));
  auto stacks = e.reply(dm("STACKS", process(t.pid)));
  std::smatch m;
  REQUIRE(std::regex_search(stacks, m, std::regex("<THREAD ID='([0-9]+)' NAME='nt_hot'")));
  auto hot = m[1].str();
  e.reply(set(t.pid, "THREAD_DEFAULT", "false"));
  REQUIRE_THAT(e.reply(command(t.pid, "USETHREAD",
                               "<THREADS><THREAD ID='" + hot + "' USE='true'/></THREADS>")),
               Catch::Contains("<THREAD ID='" + hot + "' USE='true'/>"));
  auto before = profile_of(e, t.pid);
  REQUIRE(sampling(e, t.pid, before.samples + 5));
  auto after = profile_of(e, t.pid);
  // One stack per sample: the hot thread's.
  CHECK(after.stacks - before.stacks == after.samples - before.samples);
  // REPORT: the other threads' counts stopped; the hot thread's grew.
  auto report = e.reply(command(t.pid, "REPORT"));
  auto hot_counts = thread_element(report, "nt_hot");
  INFO(report);
  CHECK(attribute(hot_counts, "SAMPLES") >= after.samples - before.samples);
  CHECK(attribute(thread_element(report, "nt_sleep"), "SAMPLES") <= before.samples);
  // STACKS still shows every thread.
  CHECK_THAT(e.reply(dm("STACKS", process(t.pid))), Catch::Contains("NAME='nt_sleep'"));
}

TEST_CASE("REPORT's thread section counts each thread's states over the samples",
          "[native][engine][threads]") {
  target_process t;
  engine e;
  REQUIRE_THAT(e.reply(dm("WATCH", process(t.pid))), Catch::Contains("WATCHED='true'"));
  std::string report;
  // Every blocked thread has been seen in its place at least 10 times.
  REQUIRE(eventually([&] {
    report = e.reply(command(t.pid, "REPORT"));
    auto at_least = [&](const char* thread, const char* counter) {
      auto th = thread_element(report, thread);
      return !th.empty() && attribute(th, counter) >= 10;
    };
    return at_least("nt_mutex", "BLOCKS") && at_least("nt_condition", "WAITS") &&
           at_least("nt_read", "IOS") && at_least("nt_sleep", "SLEEPS") &&
           at_least("nt_hot", "RUNS");
  }));
  INFO(report);
  auto sleeper = thread_element(report, "nt_sleep");
  // Asleep at every sample, but for one that came right after the previous one let it go
  // (it may still be on its way back into its sleep then, runnable).
  CHECK_THAT(sleeper,
             Catch::Matches(".* BLOCKS='0' RUNS='[0-9]+' WAITS='0' IOS='0' SLEEPS='[0-9]+'/>"));
  CHECK(attribute(sleeper, "SLEEPS") + attribute(sleeper, "RUNS") == attribute(sleeper, "SAMPLES"));
  CHECK(attribute(sleeper, "SLEEPS") > attribute(sleeper, "RUNS"));
  // The profile's items carry their code class: libc's functions are system code.
  auto profile = e.reply(dm("PROFILE", process(t.pid)));
  CHECK_THAT(profile, Catch::Contains("<ITEM NAME='native_target@native_hot_function' "));
  CHECK_THAT(
      profile,
      Catch::Matches(".*<ITEM NAME='native_target@native_hot_function' [^>]*TYPE='NORMAL'/>.*"));
}

TEST_CASE("a watched process that exited keeps its last profile and stacks until UNWATCH",
          "[native][engine][ended]") {
  engine e(1'000'000);
  target_process t(3.0);  // runs for 3 s, then exits
  const int pid = t.pid;
  REQUIRE_THAT(e.reply(dm("WATCH", process(pid))), Catch::Contains("WATCHED='true'"));
  REQUIRE(sampling(e, pid, 3));
  REQUIRE(eventually([&] { return t.exited(); }));
  const std::regex unwatched("<PROCESS PID='" + std::to_string(pid) + "' [^>]*WATCHED='false'/>");
  REQUIRE(eventually([&] { return std::regex_search(e.reply(dm("PROCESSES")), unwatched); }));
  auto profile = e.reply(dm("PROFILE", process(pid)));
  INFO(profile.substr(0, 1000));
  CHECK_THAT(profile,
             Catch::StartsWith("<DYPER_REPLY ID='DM'><COUNTERS PID='" + std::to_string(pid) + "'"));
  CHECK_THAT(profile, Catch::Contains(" ENDED='true'"));
  CHECK(attribute(profile, "SAMPLES") >= 3);
  CHECK_THAT(profile, Catch::Contains("native_hot_function"));
  auto stacks = e.reply(dm("STACKS", process(pid)));
  CHECK_THAT(stacks, Catch::Contains(" ENDED='true'>"));
  CHECK_THAT(stacks, Catch::Contains("NAME='nt_sleep'"));
  // REPORT's CPU section still answers, and the thread states sampled.
  auto report = e.reply(command(pid, "REPORT"));
  CHECK_THAT(report, Catch::Contains("<COUNTERS PID='" + std::to_string(pid) + "'"));
  CHECK_THAT(report, Catch::Contains("NAME='nt_sleep' STATE='ended'"));
  CHECK_THAT(thread_element(report, "nt_sleep"), Catch::Contains(" TERMINATED='true'"));
  // The log holds the profile of the process that ended.
  log_test::removed_on_exit files;
  auto path = log_test::temp_path("native", "ended.log");
  files.paths.push_back(path);
  REQUIRE_THAT(e.reply(dm("LOG", "<LOG FILE='" + path + "'/>")), Catch::Contains("<LOG FILE="));
  register_native_log_printer();
  std::ostringstream printed;
  print_log(path, {}, printed);
  auto resource = "/Process/native_target{" + std::to_string(pid) + "}";
  CHECK_THAT(printed.str(), Catch::Contains("\tended\t1\tnative " + resource + "\n"));
  CHECK_THAT(printed.str(),
             Catch::Contains("\tprofile " + resource + " native_target@native_hot_function\n"));
  // UNWATCH forgets it.
  CHECK_THAT(e.reply(dm("UNWATCH", process(pid))), Catch::Contains("WATCHED='false'"));
  CHECK_THAT(e.reply(dm("PROFILE", process(pid))), Catch::Contains("ERROR='UNKNOWN_TARGET'"));
  CHECK_THAT(e.reply(dm("STACKS", process(pid))), Catch::Contains("ERROR='UNKNOWN_TARGET'"));
  CHECK_THAT(e.reply(dm("UNWATCH", process(pid))), Catch::Contains("ERROR='UNKNOWN_TARGET'"));
}
