// DyPer's unsolicited process messages as the engine and as a DyPer agent print them
// (messages/xml_print_announcement.hpp).
#include <catch2/catch.hpp>

#include "messages/xml_print_announcement.hpp"

using namespace perfdm;

TEST_CASE("announcement: START, END and REPORT of a process, printed from their fields",
          "[announcement][wire]") {
  auto start = make_announcement(process_announcement::start, 42, 1700000000123);
  CHECK(start.xml == "<DYPER START='42'/>");
  CHECK(start.pid == 42);
  CHECK(start.kind == process_announcement::start);
  CHECK(start.time_ms == 1700000000123);
  CHECK(make_announcement(process_announcement::end, 42).xml == "<DYPER END='42'/>");
  auto report = make_announcement(process_announcement::report, 7, 1700000000123,
                                  "<MONITOR><CPU TOTAL='3'/></MONITOR>");
  CHECK(report.xml ==
        "<DYPER REPORT='7' TIME='1700000000123'><MONITOR><CPU TOTAL='3'/></MONITOR></DYPER>");
  CHECK(report.body == "<MONITOR><CPU TOTAL='3'/></MONITOR>");
}

TEST_CASE("announcement: as a DyPer agent writes it, under its agent id, escaped",
          "[announcement][wire][dyper]") {
  CHECK(print_agent_announcement(process_announcement::start, "42@node-a") ==
        "<DYPER START='42@node-a' />");
  CHECK(print_agent_announcement(process_announcement::end, "42@a'b") ==
        "<DYPER END='42@a&apos;b' />");
  CHECK(print_agent_announcement(process_announcement::report, "42@node-a", 5, "<MONITOR/>") ==
        "<DYPER REPORT='42@node-a' TIME='5'><MONITOR/></DYPER>");
}
