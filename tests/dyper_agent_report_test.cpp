// DyPer's periodic REPORT (messages/agent_report_*.hpp): each section prints the exact bytes
// the agent sends, parsing what it printed gives the struct back, and text that is not the
// section is refused. The whole `<MONITOR>` is checked against a report dyper/ computes.
#include <catch2/catch.hpp>

#include "dyper/dyper_report.hpp"
#include "messages/agent_report_monitor.hpp"
#include "tests/dyper_report_readings.hpp"

using namespace perfdm;

namespace {

const report_thread live_thread{7,
                                "app",
                                "running",
                                report_thread_cpu{3.93, 0.075, 10, 2},
                                "app",
                                1795459668176,
                                1795459679190,
                                std::nullopt,
                                {100, 0, 10, 100, 0, 40, 0, 0, 60}};
const report_thread ended_thread{9,
                                 "w<'>",
                                 "ended",
                                 std::nullopt,
                                 "w<'>",
                                 1795459669000,
                                 1795459679190,
                                 1795459679190,
                                 {0, 0, 100, 0, 0, 0, 0, 0, 0}};

}  // namespace

TEST_CASE("dyper agent report: COUNTERS print and read back", "[dyper][agent_report]") {
  const agent_report_counters x{7,
                                2500,
                                100,
                                40,
                                1795459679190,
                                300,
                                3,
                                {82, 82, 40, 42, 42, 40},
                                {{"app@burn@12", 40, 40, "NORMAL"}, {"app", 80, 40, std::nullopt}}};
  const auto text = print_agent_report_counters(x);
  CHECK(text ==
        "<COUNTERS PID='7' MONTIME='2500' SAMPLES='100' ACTIVE='40' LAST='1795459679190' "
        "STACKS='300' DETAILED='3'><TOTALS CLASS='82' METHOD='82' LINE='40' CBASE='42' "
        "MBASE='42' LBASE='40'/><ITEM NAME='app@burn@12' TOTAL='40' BASE='40' TYPE='NORMAL'/>"
        "<ITEM NAME='app' TOTAL='80' BASE='40'/></COUNTERS>");
  CHECK(parse_agent_report_counters(text) == x);
  const agent_report_counters none{-1, 0, 0, 0, 0, 0, 0, {}, {}};
  CHECK(print_agent_report_counters(none) ==
        "<COUNTERS PID='-1' MONTIME='0' SAMPLES='0' ACTIVE='0' LAST='0' STACKS='0' DETAILED='0'>"
        "<TOTALS CLASS='0' METHOD='0' LINE='0' CBASE='0' MBASE='0' LBASE='0'/></COUNTERS>");
  CHECK(parse_agent_report_counters(print_agent_report_counters(none)) == none);
  // No TOTALS, TOTALS after an ITEM, a negative count: not a COUNTERS section.
  CHECK(parse_agent_report_counters("<COUNTERS PID='7' MONTIME='0' SAMPLES='0' ACTIVE='0' "
                                    "LAST='0' STACKS='0' DETAILED='0'></COUNTERS>") ==
        std::nullopt);
  CHECK(parse_agent_report_counters(
            "<COUNTERS PID='7' MONTIME='0' SAMPLES='0' ACTIVE='0' LAST='0' STACKS='0' "
            "DETAILED='0'><ITEM NAME='a' TOTAL='1' BASE='0'/><TOTALS CLASS='0' METHOD='0' "
            "LINE='0' CBASE='0' MBASE='0' LBASE='0'/></COUNTERS>") == std::nullopt);
  CHECK(parse_agent_report_counters(
            "<COUNTERS PID='7' MONTIME='0' SAMPLES='0' ACTIVE='0' LAST='0' STACKS='0' "
            "DETAILED='0'><TOTALS CLASS='0' METHOD='0' LINE='0' CBASE='0' MBASE='0' LBASE='0'/>"
            "<ITEM NAME='a' TOTAL='-1' BASE='0'/></COUNTERS>") == std::nullopt);
}

TEST_CASE("dyper agent report: THREADS print and read back", "[dyper][agent_report]") {
  const agent_report_threads x{1, {{7, "app"}, {9, "w<'>"}}, {live_thread, ended_thread}};
  const auto text = print_agent_report_threads(x);
  CHECK(text ==
        "<THREADS COUNT='1'><THREADDATA TID='7' CLASS='app'/><THREADDATA TID='9' "
        "CLASS='w&lt;&apos;&gt;'/><THREAD ID='7' NAME='app' STATE='running' USER='3.93' "
        "SYSTEM='0.075' SWITCHES='10' PREEMPTIONS='2' THREAD='app' START='1795459668176' "
        "LAST='1795459679190' TOTAL='100' TOTBLKS='0' TOTWAITS='10' SAMPLES='100' BLOCKS='0' "
        "RUNS='40' WAITS='0' IOS='0' SLEEPS='60'/><THREAD ID='9' NAME='w&lt;&apos;&gt;' "
        "STATE='ended' THREAD='w&lt;&apos;&gt;' START='1795459669000' LAST='1795459679190' "
        "END='1795459679190' TERMINATED='true' TOTAL='0' TOTBLKS='0' TOTWAITS='100' "
        "SAMPLES='0' BLOCKS='0' RUNS='0' WAITS='0' IOS='0' SLEEPS='0'/></THREADS>");
  CHECK(parse_agent_report_threads(text) == x);
  CHECK(print_agent_report_threads({}) == "<THREADS COUNT='0'></THREADS>");
  CHECK(parse_agent_report_threads("<THREADS COUNT='0'></THREADS>") == agent_report_threads{});
  const std::string tail =
      " THREAD='a' START='1' LAST='2' TOTAL='0' TOTBLKS='0' TOTWAITS='0' SAMPLES='0' "
      "BLOCKS='0' RUNS='0' WAITS='0' IOS='0' SLEEPS='0'/></THREADS>";
  CHECK(parse_agent_report_threads("<THREADS COUNT='1'><THREAD ID='1' NAME='a' STATE='x'" + tail) !=
        std::nullopt);
  // END without TERMINATED, USER without the other CPU figures, THREADDATA after a THREAD.
  CHECK(parse_agent_report_threads("<THREADS COUNT='1'><THREAD ID='1' NAME='a' STATE='x' "
                                   "END='2'" +
                                   tail) == std::nullopt);
  CHECK(parse_agent_report_threads("<THREADS COUNT='1'><THREAD ID='1' NAME='a' STATE='x' "
                                   "USER='1'" +
                                   tail) == std::nullopt);
  CHECK(parse_agent_report_threads("<THREADS COUNT='1'><THREAD ID='1' NAME='a' STATE='x'" +
                                   tail.substr(0, tail.size() - 10) +
                                   "<THREADDATA TID='1' CLASS='a'/></THREADS>") == std::nullopt);
}

TEST_CASE("dyper agent report: TIMING and MEMORY print and read back", "[dyper][agent_report]") {
  const agent_report_timing timing{
      12518,
      2,
      3,
      5,
      2,
      3,
      0,
      2,
      1,
      {{7, "app", 1795459668176, 1795459679190, 11014, 4005, 3930}, {9, "b", 5, 6, 1, 0.5, 0}}};
  const auto t = print_agent_report_timing(timing);
  CHECK(t ==
        "<TIMING CLOCK='12518' PROCS='2' NLIVE='3' NLIVE2='5' NCOUNT='2' TOTAL='3' CREATED='0' "
        "DIED='2' ACTIVE='1'><THREAD ID='7' NAME='app' START='1795459668176' "
        "LAST='1795459679190' CLOCK='11014' CPU='4005' USER='3930'/><THREAD ID='9' NAME='b' "
        "START='5' LAST='6' CLOCK='1' CPU='0.5' USER='0'/></TIMING>");
  CHECK(parse_agent_report_timing(t) == timing);
  CHECK(parse_agent_report_timing(
            "<TIMING CLOCK='nan' PROCS='2' NLIVE='3' NLIVE2='5' NCOUNT='2' TOTAL='3' CREATED='0' "
            "DIED='2' ACTIVE='1'></TIMING>") == std::nullopt);
  CHECK(parse_agent_report_timing("<TIMING CLOCK='1' PROCS='2' NLIVE='3' NLIVE2='5' NCOUNT='2' "
                                  "TOTAL='3' CREATED='0' DIED='2' ACTIVE='1'><USAGE/></TIMING>") ==
        std::nullopt);

  const agent_report_memory memory{1795459666672,
                                   2500,
                                   1795459679190,
                                   {{"HEAP", 62914560, 0, 10485760, 114349209288704, 62914560,
                                     3958241859993600, 2, 12582912, 62914560}}};
  const auto m = print_agent_report_memory(memory);
  CHECK(m ==
        "<MEMORY START='1795459666672' MONTIME='2500' LAST='1795459679190'><USAGE NAME='HEAP' "
        "INIT='62914560' MAX='0' USED='10485760' USED2='114349209288704' COMM='62914560' "
        "COMM2='3958241859993600' MODS='2' LUSED='12582912' LCOMM='62914560'/></MEMORY>");
  CHECK(parse_agent_report_memory(m) == memory);
  CHECK(parse_agent_report_memory("<MEMORY START='1' MONTIME='2' LAST='3'><USAGE NAME='HEAP' "
                                  "INIT='1' MAX='0' USED='1' USED2='1' COMM='1' COMM2='1' "
                                  "MODS='2' LUSED='x' LCOMM='1'/></MEMORY>") == std::nullopt);
}

TEST_CASE("dyper agent report: IOCOUNTERS and REACTIONS print and read back",
          "[dyper][agent_report]") {
  const agent_report_iocounters io{4096, 512, 8192, 0, 2500, 100, 1795459679190, 3};
  const auto i = print_agent_report_iocounters(io);
  CHECK(i ==
        "<IOCOUNTERS READ='4096' WRITE='512' STORAGEREAD='8192' STORAGEWRITE='0' MONTIME='2500' "
        "SAMPLES='100' LAST='1795459679190' TOTAL='3'/>");
  CHECK(parse_agent_report_iocounters(i) == io);
  CHECK(parse_agent_report_iocounters("<IOCOUNTERS READ='1' WRITE='1' STORAGEREAD='1' "
                                      "STORAGEWRITE='1' MONTIME='1' SAMPLES='1' LAST='1'/>") ==
        std::nullopt);

  const agent_report_reactions reactions{2500, 100, 300, 1795459679190, 40, 0, 90};
  const auto r = print_agent_report_reactions(reactions);
  CHECK(r ==
        "<REACTIONS MONTIME='2500' SAMPLES='100' TSAMPLES='300' LAST='1795459679190' "
        "TOTRUN='40' TOTIO='0' TOTWAIT='90'><TRIE/></REACTIONS>");
  CHECK(parse_agent_report_reactions(r) == reactions);
  // The TRIE is always there, and always empty.
  const std::string head =
      "<REACTIONS MONTIME='1' SAMPLES='1' TSAMPLES='1' LAST='1' TOTRUN='1' TOTIO='1' "
      "TOTWAIT='1'>";
  CHECK(parse_agent_report_reactions(head + "<TRIE/></REACTIONS>") != std::nullopt);
  CHECK(parse_agent_report_reactions(head + "</REACTIONS>") == std::nullopt);
  CHECK(parse_agent_report_reactions(head + "<TRIE><NODE/></TRIE></REACTIONS>") == std::nullopt);
}

TEST_CASE("dyper agent report: MONITOR prints what dyper/ computes and reads back",
          "[dyper][agent_report]") {
  auto r = dyper_test::report_readings();
  r.profile->detailed = 3;
  r.profile->items.push_back({"libc.so.6@read", "", 2, 2, "IO"});  // under MIN_COUNTER
  r.threads[1].name = "w<'>";
  r.io_read = 4096;
  r.io_write = 512;
  r.storage_read = 8192;
  r.min_counter = 10;
  dyper_report_history history(1'795'459'666'672);
  auto first = history.monitor(r);
  CHECK_FALSE(first.process);
  CHECK(parse_agent_report_monitor(print_agent_report_monitor(first)) == first);
  r.now_ms += 1000;
  r.memory.rss_anon = 12 << 20;
  r.threads.pop_back();
  auto report = history.monitor(r);
  report.process = report_process{"/Process/app{7}", true};
  report.perfdm = agent_report_sections{{{3, "work.latency_us", "/Process/app{7}/work", true}},
                                        {{"work", 12, 0, 1, 2}}};
  const auto text = print_agent_report_monitor(report);
  CHECK(text ==
        "<MONITOR TIME='1795459679190' NANO='358516429759' OVERHEAD='12' LASTCHECK='0.12' "
        "CHECKTIME='0.12' CHECKTOTAL='12' REPORTTIME='0.4' DELAYAVG='46' "
        "PROCESS='/Process/app{7}' ACTIVE='true'><COUNTERS PID='7' MONTIME='2500' "
        "SAMPLES='100' ACTIVE='40' LAST='1795459679190' STACKS='300' DETAILED='3'><TOTALS "
        "CLASS='82' METHOD='82' LINE='40' CBASE='42' MBASE='42' LBASE='40'/><ITEM "
        "NAME='app@main' TOTAL='40' BASE='0' TYPE='NORMAL'/><ITEM NAME='app@burn' TOTAL='40' "
        "BASE='40' TYPE='NORMAL'/><ITEM NAME='app@burn@12' TOTAL='40' BASE='40' "
        "TYPE='NORMAL'/><ITEM NAME='app' TOTAL='80' BASE='40'/></COUNTERS><THREADS "
        "COUNT='1'><THREADDATA TID='7' CLASS='app'/><THREADDATA TID='8' "
        "CLASS='gone'/><THREADDATA TID='9' CLASS='w&lt;&apos;&gt;'/><THREAD ID='7' NAME='app' "
        "STATE='running' USER='3.93' SYSTEM='0.075' SWITCHES='10' PREEMPTIONS='2' THREAD='app' "
        "START='1795459668176' LAST='1795459679190' TOTAL='100' TOTBLKS='0' TOTWAITS='10' "
        "SAMPLES='100' BLOCKS='0' RUNS='40' WAITS='0' IOS='0' SLEEPS='60'/><THREAD ID='8' "
        "NAME='gone' STATE='ended' THREAD='gone' START='1795459666672' LAST='1795459678190' "
        "END='1795459678190' TERMINATED='true' TOTAL='30' TOTBLKS='0' TOTWAITS='0' "
        "SAMPLES='30' BLOCKS='0' RUNS='0' WAITS='30' IOS='0' SLEEPS='0'/><THREAD ID='9' "
        "NAME='w&lt;&apos;&gt;' STATE='ended' THREAD='w&lt;&apos;&gt;' START='1795459669000' "
        "LAST='1795459679190' END='1795459679190' TERMINATED='true' TOTAL='0' TOTBLKS='0' "
        "TOTWAITS='100' SAMPLES='0' BLOCKS='0' RUNS='0' WAITS='0' IOS='0' "
        "SLEEPS='0'/></THREADS><TIMING CLOCK='12518' PROCS='2' NLIVE='3' NLIVE2='5' NCOUNT='2' "
        "TOTAL='3' CREATED='0' DIED='2' ACTIVE='1'><THREAD ID='7' NAME='app' "
        "START='1795459668176' LAST='1795459679190' CLOCK='11014' CPU='4005' "
        "USER='3930'/></TIMING><MEMORY START='1795459666672' MONTIME='2500' "
        "LAST='1795459679190'><USAGE NAME='HEAP' INIT='62914560' MAX='0' USED='10485760' "
        "USED2='114349209288704' COMM='62914560' COMM2='3958241859993600' MODS='2' "
        "LUSED='12582912' LCOMM='62914560'/><USAGE NAME='NONHEAP' INIT='41943040' MAX='0' "
        "USED='4194304' USED2='17592186044416' COMM='41943040' COMM2='1759218604441600' "
        "MODS='2' LUSED='4194304' LCOMM='41943040'/><USAGE NAME='POOL_STACK' INIT='135168' "
        "MAX='0' USED='135168' USED2='18270388224' COMM='135168' COMM2='18270388224' MODS='2' "
        "LUSED='135168' LCOMM='135168'/></MEMORY><IOCOUNTERS READ='4096' WRITE='512' "
        "STORAGEREAD='8192' STORAGEWRITE='0' MONTIME='2500' SAMPLES='100' LAST='1795459679190' "
        "TOTAL='0'/><REACTIONS MONTIME='2500' SAMPLES='100' TSAMPLES='300' "
        "LAST='1795459679190' TOTRUN='40' TOTIO='0' "
        "TOTWAIT='90'><TRIE/></REACTIONS><METRICS><MI ID='3' METRIC='work.latency_us' "
        "FOCUS='/Process/app{7}/work' COLLECTING='true'/></METRICS><FRAMES><FRAMETYPE "
        "NAME='work' FRAMES='12' LOST='0' TORN='1' LATE='2'/></FRAMES></MONITOR>");
  CHECK(parse_agent_report_monitor(text) == report);

  // PROCESS without ACTIVE, METRICS without FRAMES, a section missing or out of order, a
  // trailing element: not a MONITOR.
  auto without = [&](const std::string& what) {
    auto s = text;
    s.replace(s.find(what), what.size(), "");
    return s;
  };
  CHECK(parse_agent_report_monitor(without(" ACTIVE='true'")) == std::nullopt);
  CHECK(parse_agent_report_monitor(
            without("<FRAMES><FRAMETYPE NAME='work' FRAMES='12' LOST='0' TORN='1' LATE='2'/>"
                    "</FRAMES>")) == std::nullopt);
  auto io = print_agent_report_iocounters(report.iocounters);
  CHECK(parse_agent_report_monitor(without(io)) == std::nullopt);
  auto moved = without(io);
  moved.insert(moved.find("<MEMORY"), io);
  CHECK(parse_agent_report_monitor(moved) == std::nullopt);
  auto trailing = text;
  trailing.insert(trailing.size() - std::string("</MONITOR>").size(), "<GC/>");
  CHECK(parse_agent_report_monitor(trailing) == std::nullopt);
  CHECK(parse_agent_report_monitor(text.substr(0, text.size() - 1)) == std::nullopt);
}
