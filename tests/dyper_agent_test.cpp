// perfdm's answers as DyPer's agent gives them, without sockets: the process commands
// (dyper/process_commands.hpp) and DyPer's REPORT schema (dyper/dyper_report.hpp), checked
// against the original agent's report.
#include <catch2/catch.hpp>
#include <string>
#include <tuple>

#include "dyper/dyper_report.hpp"
#include "dyper/process_commands.hpp"
#include "messages/xml_codec.hpp"
#include "tests/dyper_report_readings.hpp"
#include "tests/dyper_schema.hpp"

using namespace perfdm;

namespace {

std::string run(process_command_state& st, const std::string& command,
                const std::string& argument = "") {
  process_info info;
  info.pid = 1;
  return run_process_command(st, info, process_command{1, false, command, argument}).body;
}

}  // namespace

TEST_CASE("SET applies the names it knows and ignores the others, as DyPer's agent",
          "[dyper][process_commands]") {
  process_command_state st;
  auto reply = run(st, "SET",
                   "<SETTINGS><VAR NAME='CONTENTIONCHECK' VALUE='FALSE' /><VAR NAME='MONITOR' "
                   "VALUE='TRUE' /><VAR NAME='REPORTTIME' VALUE='10000' /><VAR NAME='AGENTS' "
                   "VALUE='*' /><VAR NAME='CHECKTIME' VALUE='100' /></SETTINGS>");
  CHECK(reply ==
        "<SETTINGS><VAR NAME='MONITOR' VALUE='true'/><VAR NAME='REPORTTIME' VALUE='10000'/>"
        "<VAR NAME='CHECKTIME' VALUE='100'/></SETTINGS><IGNORED><VAR NAME='CONTENTIONCHECK'/>"
        "<VAR NAME='AGENTS'/></IGNORED>");
  CHECK(st.variables.at("MONITOR") == "true");
  CHECK(st.variables.at("CHECKTIME") == "100");
  // The later ones: REPORTING, CPUTIME, MIN_COUNTER, THREAD_DEFAULT are known; CLASSPATH
  // means nothing to a native process.
  for (auto [name, value, kept] : {std::tuple{"REPORTING", "false", "false"},
                                   {"CPUTIME", "TRUE", "true"},
                                   {"MIN_COUNTER", "5", "5"},
                                   {"THREAD_DEFAULT", "false", "false"}})
    CHECK(run(st, "SET", std::string("<VAR NAME='") + name + "' VALUE='" + value + "' />") ==
          std::string("<SETTINGS><VAR NAME='") + name + "' VALUE='" + kept + "'/></SETTINGS>");
  CHECK(st.variables.at("MIN_COUNTER") == "5");
  CHECK_THAT(run(st, "SET", "<VAR NAME='CLASSPATH' VALUE='/x.jar' />"),
             Catch::Contains("<IGNORED><VAR NAME='CLASSPATH'/></IGNORED>"));
  // A bad value of a known name refuses the whole SET, and nothing changes.
  CHECK_THROWS_AS(run(st, "SET",
                      "<SETTINGS><VAR NAME='MONITOR' VALUE='FALSE' /><VAR NAME='CHECKTIME' "
                      "VALUE='soon' /></SETTINGS>"),
                  process_command_error);
  CHECK(st.variables.at("MONITOR") == "true");
}

TEST_CASE("AGENT, PING, GC, DUMPHEAP, ACTIVATE answered as DyPer's agent answers them",
          "[dyper][process_commands]") {
  process_command_state st;
  const std::string prefix = "edu.brown.cs.dyvise.dyper.DyperAgent";
  for (auto* kind : {"Cpu", "Threads", "Timing", "Memory", "IO", "Reaction"})
    CHECK(run(st, "AGENT", "<AGENT CLASS='" + prefix + kind + "' />") == "OK");
  CHECK(run(st, "AGENT", "<AGENT CLASS='" + prefix + "Memory' />").empty());  // installed
  CHECK_THROWS_AS(run(st, "AGENT", "<AGENT CLASS='" + prefix + "Collections' />"),
                  process_command_error);
  st.overhead_ms = 183;
  CHECK(run(st, "PING") == "PONG 183");
  for (auto* c : {"GC", "DUMPHEAP", "DUMPMEMORY"}) CHECK(run(st, c) == "NOT FOUND");
  CHECK(run(st, "ACTIVATE", "<ACTIVATE AGENT='CPU' />").empty());
  CHECK_THAT(run(st, "CLEAR", "<CLEAR AGENT='CPU' />"), Catch::Matches("[0-9]+"));
}

TEST_CASE("REPORT in DyPer's schema: every section and attribute of the original agent's",
          "[dyper][report]") {
  auto r = dyper_test::report_readings();
  dyper_report_history history(1'795'459'666'672);
  history.monitor(r);
  r.now_ms += 1000;
  r.memory.rss_anon = 12 << 20;
  auto report = history.monitor(r);
  report.process = report_process{"/Process/app{7}", true};
  report.perfdm = agent_report_sections{};
  auto monitor = print_agent_report_monitor(report);
  INFO(monitor);
  auto problems = dyper_test::schema_problems(monitor, dyper_test::native_lacks());
  for (auto& p : problems) FAIL_CHECK(p);
  CHECK(problems.empty());
  // The sampler's figures: 12 ms over 100 samples, 46 ms apart.
  CHECK_THAT(monitor, Catch::Contains(" OVERHEAD='12' LASTCHECK='0.12' CHECKTIME='0.12' "
                                      "CHECKTOTAL='12' REPORTTIME='0.4' DELAYAVG='46'"));
  CHECK_THAT(monitor, Catch::Contains("<TOTALS CLASS='80' METHOD='80' LINE='40' CBASE='40' "
                                      "MBASE='40' LBASE='40'/>"));
  // MEMORY averages over the two reports; the thread that was only sampled has ended.
  CHECK_THAT(monitor,
             Catch::Contains("<USAGE NAME='HEAP' INIT='62914560' MAX='0' USED='10485760'"));
  CHECK_THAT(monitor, Catch::Contains("MODS='2' LUSED='12582912'"));
  CHECK_THAT(monitor, Catch::Contains("NAME='gone' STATE='ended'"));
  CHECK_THAT(monitor, Catch::Contains("TERMINATED='true'"));
  CHECK_THAT(monitor, Catch::Contains("<TIMING CLOCK='12518' PROCS='2' NLIVE='4' NLIVE2='8' "
                                      "NCOUNT='2' TOTAL='3' CREATED='0' DIED='1' ACTIVE='2'>"));
  CHECK_THAT(monitor, Catch::EndsWith("<METRICS></METRICS><FRAMES></FRAMES></MONITOR>"));
}
