// The native modules in the engine: WATCH a running program with no instrumentation, its
// proc.* metrics into histograms, STACKS and PROFILE, UNWATCH, a process that exits while
// watched, and the errors. Everything real: the test program, /proc, ptrace, the live actor
// system.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "cli/xml_session.hpp"
#include "messages/native_messages.hpp"
#include "messages/xml_codec.hpp"
#include "native_test_process.hpp"
#include "tests/vfork_waiter.hpp"
#include "tests/live_engine_test_support.hpp"

using namespace perfdm;
using native_test::eventually;
using native_test::target_process;

namespace {

struct engine : test::live_engine {
  explicit engine(std::int64_t checktime_ns = 10'000'000)
      : live_engine(with_checktime(checktime_ns)) {}
  static session_options with_checktime(std::int64_t checktime_ns) {
    auto o = options();
    o.engine.base_width = 10'000'000;  // 10 ms buckets: data within a fraction of a second
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
std::string resource(int pid) {
  return "/Process/native_target{" + std::to_string(pid) + "}";
}

using test::buckets;

double sum_of(const std::vector<double>& xs) {
  double s = 0;
  for (double x : xs)
    if (!std::isnan(x)) s += x;
  return s;
}

// The thread of the test program named `name`.
int thread_named(int pid, const std::string& name) {
  for (int tid = 1; tid < 4194304; ++tid) {
    std::ifstream comm("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/comm");
    if (!comm) {
      if (tid > pid + 64) break;  // the program's threads are numbered right after it
      continue;
    }
    std::string n;
    std::getline(comm, n);
    if (n == name) return tid;
  }
  return 0;
}

// The <THREAD …>…</THREAD> element of the thread called `name`, or "".
std::string thread_element(const std::string& stacks, const std::string& name) {
  auto at = stacks.find("NAME='" + name + "'");
  if (at == std::string::npos) return "";
  auto begin = stacks.rfind("<THREAD ", at);
  auto end = stacks.find("</THREAD>", at);
  return stacks.substr(begin, end - begin);
}

}  // namespace

TEST_CASE("WATCH, then proc.cpu_user of the process and of one thread: DATA has values",
          "[native][engine]") {
  target_process t;
  engine e;
  auto watched = e.reply(dm("WATCH", process(t.pid)));
  REQUIRE_THAT(watched,
               Catch::Contains("PID='" + std::to_string(t.pid) + "' NAME='native_target'"));
  CHECK_THAT(watched, Catch::Contains("RESOURCE='" + resource(t.pid) + "'"));
  CHECK_THAT(watched, Catch::Contains("ACTIVE='true' WATCHED='true'"));
  // The metrics and the process's resources exist once WATCH answered.
  auto metrics = e.reply(dm("METRICS"));
  CHECK_THAT(metrics, Catch::Contains("NAME='proc.cpu_user' STYLE='COUNTER' UNITS='s'"));
  CHECK_THAT(metrics, Catch::Contains("NAME='proc.rss' STYLE='SAMPLED' UNITS='bytes'"));
  CHECK_THAT(metrics, Catch::Contains("NAME='proc.threads' STYLE='SAMPLED'"));
  CHECK_THAT(metrics, Catch::Contains("NAME='proc.ctx_voluntary' STYLE='COUNTER'"));
  int hot = thread_named(t.pid, "nt_hot");
  REQUIRE(hot > 0);
  REQUIRE(eventually([&] {
    return e.reply(dm("RESOURCES")).find(resource(t.pid) + "/" + std::to_string(hot)) !=
           std::string::npos;
  }));
  e.reply(dm("STREAM"));
  REQUIRE_THAT(e.reply(dm("ENABLE", "<ENABLE STREAM='0' METRIC='proc.cpu_user' FOCUS='" +
                                        resource(t.pid) + "'/>")),
               Catch::Contains("MI ID='0'"));
  e.reply(dm("ENABLE", "<ENABLE STREAM='0' METRIC='proc.threads'/>"));
  e.reply(dm("ENABLE", "<ENABLE STREAM='0' METRIC='proc.cpu_user' FOCUS='" + resource(t.pid) + "/" +
                           std::to_string(hot) + "'/>"));
  e.reply(dm("ENABLE", "<ENABLE STREAM='0' METRIC='proc.cpu_user' FOCUS='" + resource(t.pid) + "/" +
                           std::to_string(thread_named(t.pid, "nt_sleep")) + "'/>"));
  std::vector<double> cpu, threads, hot_cpu, sleep_cpu;
  REQUIRE(eventually([&] {
    cpu = buckets(e.reply(dm("DATA", "<DATA MI='0'/>")));
    threads = buckets(e.reply(dm("DATA", "<DATA MI='1'/>")));
    hot_cpu = buckets(e.reply(dm("DATA", "<DATA MI='2'/>")));
    sleep_cpu = buckets(e.reply(dm("DATA", "<DATA MI='3'/>")));
    // CPU time comes in clock ticks (10 ms): wait for a few.
    return sum_of(cpu) >= 0.05 && sum_of(hot_cpu) >= 0.05 && sum_of(threads) > 0;
  }));
  for (double v : threads)
    if (!std::isnan(v)) CHECK(v == 6);
  CHECK(sum_of(sleep_cpu) < sum_of(hot_cpu));
  CHECK_THAT(e.reply(dm("UNWATCH", process(t.pid))),
             Catch::Contains("ACTIVE='false' WATCHED='false'"));
  CHECK_THAT(e.reply(dm("PROCESSES")), Catch::Contains("WATCHED='false'"));
  CHECK_FALSE(t.exited());  // the program runs on, unobserved
}

TEST_CASE("STACKS shows every thread with its state and the function it is blocked in",
          "[native][engine]") {
  target_process t;
  engine e;
  REQUIRE_THAT(e.reply(dm("WATCH", process(t.pid))), Catch::Contains("WATCHED='true'"));
  const std::pair<const char*, const char*> places[] = {
      {"nt_mutex", "native_blocked_on_mutex"},
      {"nt_condition", "native_blocked_on_condition"},
      {"nt_read", "native_blocked_in_read"},
      {"nt_sleep", "native_blocked_in_sleep"},
  };
  std::string stacks;
  REQUIRE(eventually([&] {
    stacks = e.reply(dm("STACKS", process(t.pid)));
    for (auto& [name, function] : places) {
      auto th = thread_element(stacks, name);
      if (th.find("STATE='sleeping'") == std::string::npos ||
          th.find("FUNCTION='" + std::string(function) + "'") == std::string::npos)
        return false;
    }
    return true;
  }));
  CHECK_THAT(stacks, Catch::StartsWith("<DYPER_REPLY ID='DM'><THREADS PID='" +
                                       std::to_string(t.pid) + "' TIME='"));
  CHECK(std::count(stacks.begin(), stacks.end(), '<') > 6 * 3);
  auto hot = thread_element(stacks, "nt_hot");
  CHECK_THAT(hot, Catch::Contains("FUNCTION='native_hot_function'"));
  auto mutex = thread_element(stacks, "nt_mutex");
  // FILE is the name the debug information records: the absolute path from this build, or a
  // path relative to the build folder when the compiler was run through ccache with base_dir.
  CHECK_THAT(mutex, Catch::Matches(".* FILE='([^']*/)?tests/native/native_target\\.cpp'.*"));
  CHECK_THAT(mutex, Catch::Contains("MODULE='" PERFDM_NATIVE_TARGET "'"));
  CHECK_THAT(thread_element(stacks, "native_target"), Catch::Contains("FUNCTION='main'"));
}

TEST_CASE("REPORT and SHOWSTACK of a watched process carry its CPU, I/O and thread sections",
          "[native][engine][process_commands]") {
  target_process t;
  engine e;
  REQUIRE_THAT(e.reply(dm("WATCH", process(t.pid))), Catch::Contains("WATCHED='true'"));
  auto pid = std::to_string(t.pid);
  std::string report;
  // The CPU section once the sampler has counted the hot function.
  REQUIRE(eventually([&] {
    report = e.reply("<DYPER PID='" + pid + "' COMMAND='REPORT'/>");
    return report.find("native_hot_function") != std::string::npos;
  }));
  CHECK_THAT(report, Catch::StartsWith("<DYPER_REPLY ID='" + pid + "'><MONITOR "));
  CHECK_THAT(report, Catch::Contains("<COUNTERS PID='" + pid + "'"));
  CHECK_THAT(report, Catch::Contains("<IOCOUNTERS READ='"));
  std::smatch m;
  REQUIRE(std::regex_search(report, m, std::regex("<THREADS COUNT='([0-9]+)'>")));
  auto threads = std::stoi(m[1].str());
  CHECK(threads >= 6);
  // The live threads of the THREADS section (TIMING lists them again).
  auto section =
      report.substr(report.find("<THREADS "), report.find("</THREADS>") - report.find("<THREADS "));
  const std::regex thread("<THREAD ID='[0-9]+' NAME='[^']*' STATE='(?!ended)");
  auto listed = std::distance(std::sregex_iterator(section.begin(), section.end(), thread),
                              std::sregex_iterator());
  CHECK(listed == threads);
  CHECK_THAT(report, Catch::Contains("NAME='nt_mutex' STATE='sleeping'"));  // blocked for good

  // SHOWSTACK on the process target: the sampler's stacks.
  auto stacks = e.reply("<DYPER PID='" + pid + "' COMMAND='SHOWSTACK'/>");
  CHECK_THAT(stacks, Catch::StartsWith("<DYPER_REPLY ID='" + pid + "'><THREADS PID='" + pid));
  CHECK_THAT(stacks, Catch::Contains("FUNCTION='native_blocked_in_sleep'"));
}

TEST_CASE("PROFILE: the hot function is on top and its line is detailed", "[native][engine]") {
  target_process t;
  engine e(1'000'000);  // CHECKTIME 1 ms: enough samples to detail within seconds
  REQUIRE_THAT(e.reply(dm("WATCH", process(t.pid))), Catch::Contains("WATCHED='true'"));
  int hot_line = native_test::source_line("NATIVE_HOT_LINE");
  std::string profile;
  std::smatch m;
  // Detailing needs 250 running stacks (DETAIL_MIN_TOTAL); a loaded machine samples slowly.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (std::chrono::steady_clock::now() < deadline) {
    profile = e.reply(dm("PROFILE", process(t.pid)));
    if (std::regex_search(profile, m, std::regex("ACTIVE='([0-9]+)'")) && std::stoi(m[1]) >= 300)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  INFO(profile.substr(0, 2000));
  REQUIRE(std::regex_search(profile, m, std::regex("ACTIVE='([0-9]+)'")));
  REQUIRE(std::stoi(m[1]) >= 300);
  CHECK_THAT(profile, Catch::StartsWith("<DYPER_REPLY ID='DM'><COUNTERS PID='" +
                                        std::to_string(t.pid) + "' MONTIME='"));
  // The first item (by BASE) is the hot function, its hot line right after it.
  auto first = profile.find("<ITEM ");
  REQUIRE(first != std::string::npos);
  CHECK(profile.substr(first).rfind("<ITEM NAME='native_target@native_hot_function' ", 0) == 0);
  auto second = profile.find("<ITEM ", first + 1);
  REQUIRE(second != std::string::npos);
  CHECK(profile.substr(second).rfind(
            "<ITEM NAME='native_target@native_hot_function@" + std::to_string(hot_line) + "' ",
            0) == 0);
  CHECK_THAT(profile, Catch::Matches(
                          ".*<TOTALS STACKS='[0-9]+' ACTIVE='[0-9]+' DETAILED='[1-9][0-9]*'/>.*"));
}

TEST_CASE("a watched process that exits: clean errors or its last stacks, the engine keeps running",
          "[native][engine]") {
  engine e(1'000'000);
  for (int round = 0; round < 3; ++round) {
    target_process t(0.3);
    const int pid = t.pid;  // t.pid is -1 once reaped
    auto watched = e.reply(dm("WATCH", process(pid)));
    if (watched.find("ERROR='UNKNOWN_TARGET'") != std::string::npos) continue;  // gone already
    REQUIRE_THAT(watched, Catch::Contains("WATCHED='true'"));
    // STACKS samples at once: some of these land while the program exits. It ends in a clean
    // error, or, when the engine saw the exit first (its /proc check each interval), in the
    // last stacks marked ENDED (a race the test lost about once in 50 runs, waiting 30 s).
    bool ended = false;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!ended && std::chrono::steady_clock::now() < deadline) {
      auto r = e.reply(dm("STACKS", process(pid)));
      if (r.find("ERROR=") != std::string::npos) {
        CHECK_THAT(r, Catch::Contains("ERROR='UNKNOWN_TARGET'"));
        ended = true;
      } else if (r.find("ENDED='true'") != std::string::npos) {
        ended = true;
      }
      t.exited();
    }
    CHECK(ended);
    CHECK(eventually([&] { return t.exited(); }));
    const std::regex unwatched("<PROCESS PID='" + std::to_string(pid) + "' [^>]*WATCHED='false'/>");
    CHECK(eventually([&] { return std::regex_search(e.reply(dm("PROCESSES")), unwatched); }));
    // Its last profile stays until UNWATCH (tests/native_settings_test.cpp).
    CHECK_THAT(e.reply(dm("PROFILE", process(pid))), Catch::Contains(" ENDED='true'"));
  }
  CHECK_THAT(e.reply(dm("STATUS")), Catch::Contains("<STATUS NOW="));
}

TEST_CASE("a thread a STACKS request could not stop is let go once it stops, with no stack tick",
          "[native][engine][ptrace]") {
  // Its one thread waits 1.5 s for a vfork child: the STACKS sample cannot stop it, and it
  // stops (the interrupt pending) once the vfork child is gone. With stack sampling
  // effectively off (CHECKTIME one hour) no stack tick comes to let it go: the STACKS request
  // itself must, or it stays stopped until the next STACKS, a hang of the watched program.
  native_test::vfork_waiter child({1, 500'000'000});
  REQUIRE(eventually([&] { return child.waiting(); }));
  engine e(3'600'000'000'000);
  REQUIRE_THAT(e.reply(dm("WATCH", process(child.pid()))), Catch::Contains("WATCHED='true'"));
  INFO(e.reply(dm("STACKS", process(child.pid()))));  // within the wait: it cannot stop
  CHECK(child.ran_on(5000));  // once the vfork child exited: not held stopped
  // And it is sampled again: no longer traced by the sampler's thread.
  CHECK_THAT(e.reply(dm("STACKS", process(child.pid()))),
             Catch::Contains("<THREAD ID='" + std::to_string(child.pid()) + "'"));
}

TEST_CASE("WATCH, UNWATCH, PROFILE, STACKS refuse clearly", "[native][engine]") {
  engine e;
  int gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  CHECK_THAT(e.reply(dm("WATCH", process(gone))), Catch::Contains("ERROR='UNKNOWN_TARGET'"));
  CHECK_THAT(e.reply(dm("UNWATCH", process(gone))), Catch::Contains("ERROR='UNKNOWN_TARGET'"));
  CHECK_THAT(e.reply(dm("PROFILE", process(gone))), Catch::Contains("ERROR='UNKNOWN_TARGET'"));
  CHECK_THAT(e.reply(dm("STACKS", process(gone))), Catch::Contains("ERROR='UNKNOWN_TARGET'"));
  CHECK_THAT(e.reply(dm("WATCH", "<PROCESS PID='0'/>")), Catch::Contains("ERROR='BAD_ARGUMENT'"));
  CHECK_THAT(e.reply(dm("WATCH", "<PROCESS/>")), Catch::Contains("ERROR='BAD_ARGUMENT'"));
  CHECK_THAT(e.reply(dm("WATCH")), Catch::Contains("ERROR='BAD_ARGUMENT'"));
  CHECK_THAT(e.reply(dm("STACKS", "<PROCESS PID='1' EXTRA='x'/>")),
             Catch::Contains("ERROR='BAD_ARGUMENT'"));
  target_process t;
  REQUIRE_THAT(e.reply(dm("WATCH", process(t.pid))), Catch::Contains("WATCHED='true'"));
  CHECK_THAT(e.reply(dm("WATCH", process(t.pid))), Catch::Contains("ERROR='NOT_ALLOWED'"));
  CHECK_THAT(e.reply(dm("UNWATCH", process(t.pid))), Catch::Contains("WATCHED='false'"));
  CHECK_THAT(e.reply(dm("UNWATCH", process(t.pid))), Catch::Contains("ERROR='UNKNOWN_TARGET'"));
  // Watched again after an UNWATCH.
  CHECK_THAT(e.reply(dm("WATCH", process(t.pid))), Catch::Contains("WATCHED='true'"));
}

TEST_CASE("a process both attached and watched", "[native][engine]") {
  // The bundled workload has generated frames code: ATTACH and WATCH both apply.
  test::workload w;
  const int pid = w.pid;
  {
    engine e;
    CHECK_THAT(e.reply(dm("WATCH", process(pid))),
               Catch::Contains("FRAMES='' ACTIVE='true' WATCHED='true'"));
    CHECK_THAT(e.reply(dm("ATTACH", process(pid))),
               Catch::Contains("FRAMES='work' ACTIVE='true' WATCHED='true'"));
    CHECK_THAT(e.reply(dm("PROCESSES")),
               Catch::Contains("FRAMES='work' ACTIVE='true' WATCHED='true'"));
    CHECK_THAT(e.reply(dm("UNWATCH", process(pid))),
               Catch::Contains("FRAMES='work' ACTIVE='true' WATCHED='false'"));
    CHECK_THAT(e.reply(dm("WATCH", process(pid))),
               Catch::Contains("FRAMES='work' ACTIVE='true' WATCHED='true'"));
    CHECK_THAT(e.reply(dm("DETACH", process(pid))), Catch::Contains("WATCHED='true'"));
    CHECK_THAT(e.reply(dm("PROCESSES")), Catch::Contains("ACTIVE='true' WATCHED='true'"));
  }
}

TEST_CASE("WATCH, UNWATCH, PROFILE, STACKS read and print in canonical form", "[native][xml]") {
  for (std::string command : {"WATCH", "UNWATCH", "PROFILE", "STACKS"}) {
    auto parsed =
        parse_request("<dyper pid='DM' command='" + command + "'><process pid='0042'/></dyper>");
    REQUIRE_FALSE(parsed.error);
    CHECK(print_request("DM", parsed.request) ==
          "<DYPER PID='DM' COMMAND='" + command + "'><PROCESS PID='42'/></DYPER>");
  }
  cpu_profile_report r;
  r.pid = 7;
  r.montime = 1.5;
  r.samples = 3;
  r.active = 2;
  r.last = 2;
  r.stacks = 6;
  r.detailed = 1;
  r.checktime = 0.01;
  r.cost = 0.002;
  r.items = {{"a@f", "", 2, 1, ""}, {"a@f@3", "f.c", 2, 1, ""}};
  CHECK(print_reply("DM", caf::make_message(r)) ==
        "<DYPER_REPLY ID='DM'><COUNTERS PID='7' MONTIME='1.5' SAMPLES='3' ACTIVE='2' LAST='2' "
        "CHECKTIME='0.01' COST='0.002'><TOTALS STACKS='6' ACTIVE='2' DETAILED='1'/><ITEM "
        "NAME='a@f' TOTAL='2' "
        "BASE='1'/><ITEM NAME='a@f@3' TOTAL='2' BASE='1' FILE='f.c'/></COUNTERS></DYPER_REPLY>");
  stacks_report s;
  s.pid = 7;
  s.time = 0.5;
  s.threads = {{8, "t<1>", "sleeping", {{"f", "f.c", 3, "/bin/a", 0x401000}}},
               {9, "u", "running", {}}};
  CHECK(print_reply("DM", caf::make_message(s)) ==
        "<DYPER_REPLY ID='DM'><THREADS PID='7' TIME='0.5'><THREAD ID='8' NAME='t&lt;1&gt;' "
        "STATE='sleeping'><STACK FUNCTION='f' FILE='f.c' LINE='3' MODULE='/bin/a' PC='0x401000'/>"
        "</THREAD><THREAD ID='9' NAME='u' STATE='running'></THREAD></THREADS></DYPER_REPLY>");
}
