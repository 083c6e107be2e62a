// DyPer's process commands and DYPATCH over a real socket: a `perfdm engine --listen`
// process, the bundled workload attached through the gateway, requests on 127.0.0.1.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <regex>

#include "tests/gateway_test_support.hpp"
#include "tests/live_engine_test_support.hpp"
#include "tests/native_test_process.hpp"

using namespace perfdm;
using namespace perfdm::gateway_test;

TEST_CASE("gateway: process commands and DYPATCH for an attached process",
          "[gateway][process_commands]") {
  perfdm::test::workload w;
  engine_process engine("proccmd");
  client c(engine.port());
  auto pid = std::to_string(w.pid);
  auto to_process = [&](const std::string& command, const std::string& arg = "",
                        const std::string& envelope = "DYPER") {
    return c.ask("<" + envelope + " PID='" + pid + "' COMMAND='" + command + "'>" + arg + "</" +
                 envelope + ">");
  };
  CHECK_THAT(to_process("PING"),
             Catch::StartsWith("<DYPER_REPLY ID='" + pid + "' ERROR='UNKNOWN_TARGET'"));
  // Every connection hears of processes attached and detached; the PING answered means this
  // connection is registered before the ATTACH below.
  client watcher(engine.port());
  REQUIRE(watcher.ask(dm("PING")) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
  REQUIRE_THAT(c.ask(dm("ATTACH", "<PROCESS PID='" + pid + "'/>")),
               Catch::Contains("FRAMES='work'"));
  auto start = watcher.next();
  CHECK(start.kind == dyper_frame::message);
  CHECK(start.text == "<DYPER START='" + pid + "'/>");

  // DyPer's PONG carries the observation's cost so far in ms (none for frames alone).
  CHECK(to_process("PING") == "<DYPER_REPLY ID='" + pid + "'>PONG 0</DYPER_REPLY>");
  CHECK(to_process("PING", "", "DYPATCH") ==
        "<DYPATCH_REPLY ID='" + pid + "'>PONG</DYPATCH_REPLY>");
  CHECK_THAT(to_process("WHORU"), Catch::Contains("<ARG>0</ARG>"));
  CHECK_THAT(to_process("SET", "<VAR NAME='REPORTTIME' VALUE='soon'/>"),
             Catch::Contains("ERROR='BAD_ARGUMENT'"));
  CHECK(to_process("SET", "<VAR NAME='CHECKTIME' VALUE='40'/>") ==
        "<DYPER_REPLY ID='" + pid +
            "'><SETTINGS><VAR NAME='CHECKTIME' VALUE='40'/></SETTINGS></DYPER_REPLY>");
  CHECK(to_process("GET", "<VAR NAME='CHECKTIME'/>") ==
        "<DYPER_REPLY ID='" + pid + "'><VAR NAME='CHECKTIME' VALUE='40'/></DYPER_REPLY>");
  CHECK_THAT(to_process("FROB"), Catch::Contains("ERROR='UNKNOWN_COMMAND'"));
  CHECK_THAT(to_process("MODEL", "<MODEL NAME='m'>struct {</MODEL>", "DYPATCH"),
             Catch::StartsWith("<DYPATCH_REPLY ID='" + pid + "' ERROR='BAD_ARGUMENT'>m:1:"));
  CHECK(std::regex_match(
      to_process("REPORT"),
      std::regex("<DYPER_REPLY ID='" + pid + "'><MONITOR .*</MONITOR></DYPER_REPLY>")));
  // A second connection sees the same process state: it is the engine's, not the connection's.
  client other(engine.port());
  CHECK(other.ask("<DYPER PID='" + pid + "' COMMAND='GET'><VAR NAME='CHECKTIME'/></DYPER>") ==
        "<DYPER_REPLY ID='" + pid + "'><VAR NAME='CHECKTIME' VALUE='40'/></DYPER_REPLY>");
  CHECK_THAT(c.ask("<DYPER PID='1' COMMAND='PING'/>"), Catch::Contains("ERROR='UNKNOWN_TARGET'"));
  // REPORTTIME > 0: periodic reports to every connection, until it is 0 again.
  CHECK(to_process("SET", "<VAR NAME='REPORTTIME' VALUE='50'/>") ==
        "<DYPER_REPLY ID='" + pid + "'><SETTINGS><VAR NAME='REPORTTIME' VALUE='50'/></SETTINGS>"
        "</DYPER_REPLY>");
  for (int i = 0; i < 2; ++i) {
    auto r = watcher.next();
    CHECK(r.kind == dyper_frame::message);
    CHECK(std::regex_match(r.text, std::regex("<DYPER REPORT='" + pid +
                                              "' TIME='[0-9]+'><MONITOR .*"
                                              "<FRAMETYPE NAME='work' .*</MONITOR></DYPER>")));
  }
  CHECK(to_process("SET", "<VAR NAME='REPORTTIME' VALUE='0'/>") ==
        "<DYPER_REPLY ID='" + pid + "'><SETTINGS><VAR NAME='REPORTTIME' VALUE='0'/></SETTINGS>"
        "</DYPER_REPLY>");
  // The next announcement that is not a report (one report may have been on its way).
  auto next_announcement = [&] {
    auto f = watcher.next();
    while (f.text.rfind("<DYPER REPORT=", 0) == 0) f = watcher.next();
    return f;
  };
  CHECK(std::regex_match(
      to_process("INSTRUMENT", "<MODEL NAME='frames' INSERT='false'/>"),
      std::regex("<DYPER_REPLY ID='" + pid + "'><PATCH TIME='[0-9]+'/></DYPER_REPLY>")));
  auto end = next_announcement();
  CHECK(end.kind == dyper_frame::message);
  CHECK(end.text == "<DYPER END='" + pid + "'/>");
  // Attached again, then the process exits: END once its ingest notices.
  CHECK_THAT(to_process("INSTRUMENT", "<MODEL NAME='frames' INSERT='true'/>"),
             Catch::Contains("<PATCH TIME='"));
  CHECK(watcher.next().text == "<DYPER START='" + pid + "'/>");
  ::kill(w.pid, SIGKILL);
  CHECK(watcher.next().text == "<DYPER END='" + pid + "'/>");
  CHECK(engine.alive());
}

TEST_CASE("gateway: a process WATCHed announces itself with START and UNWATCH with END",
          "[gateway][process_commands][native]") {
  native_test::target_process t;  // a grandchild of the test: ptrace-based sampling needs it
  engine_process engine("watch");
  client c(engine.port());
  client watcher(engine.port());
  REQUIRE(watcher.ask(dm("PING")) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
  auto pid = std::to_string(t.pid);
  REQUIRE_THAT(c.ask(dm("WATCH", "<PROCESS PID='" + pid + "'/>")), Catch::Contains("WATCHED='true'"));
  CHECK(watcher.next().text == "<DYPER START='" + pid + "'/>");
  // A watched process is a target of the process commands.
  CHECK(std::regex_match(c.ask("<DYPER PID='" + pid + "' COMMAND='PING'/>"),
                         std::regex("<DYPER_REPLY ID='" + pid + "'>PONG [0-9]+</DYPER_REPLY>")));
  // DyPer names it <pid>@<host>; the reply is addressed as the request was.
  CHECK(std::regex_match(c.ask("<DYPER PID='" + pid + "@localhost' COMMAND='PING'/>"),
                         std::regex("<DYPER_REPLY ID='" + pid + "@localhost'>PONG [0-9]+</DYPER_REPLY>")));
  REQUIRE_THAT(c.ask(dm("UNWATCH", "<PROCESS PID='" + pid + "'/>")), Catch::Contains("WATCHED='false'"));
  CHECK(watcher.next().text == "<DYPER END='" + pid + "'/>");
  CHECK(engine.alive());
}
