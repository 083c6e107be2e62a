// The commands the gateway added to the XML codec (PING, WHO) and its UTF-8 check.
#include <catch2/catch.hpp>

#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/process_messages.hpp"
#include "messages/xml_codec.hpp"

using namespace perfdm;

TEST_CASE("codec: PING for DM parses to ping and prints back", "[xml][gateway]") {
  auto p = parse_request("<DYPER PID='dm' COMMAND='Ping'/>");
  REQUIRE_FALSE(p.error);
  CHECK(p.request.match_elements<ping>());
  CHECK(p.target == "dm");
  CHECK(print_request(p.target, p.request) == "<DYPER PID='dm' COMMAND='PING'/>");
  CHECK(print_reply("DM", caf::make_message(pong{})) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
  auto arg = parse_request("<DYPER PID='DM' COMMAND='PING'><X/></DYPER>");
  REQUIRE(arg.error);
  CHECK(dm_error_code(arg.error) == dm_error::bad_argument);
}

TEST_CASE("codec: WHO for any target, PID optional", "[xml][gateway]") {
  for (auto [text, target] : {std::pair<const char*, const char*>{"<DYPER COMMAND='WHO'/>", ""},
                              {"<DYPER PID='DM' COMMAND='who'/>", "DM"},
                              {"<DYPER PID='4711' COMMAND='WHO'/>", "4711"}}) {
    auto p = parse_request(text);
    INFO(text);
    REQUIRE_FALSE(p.error);
    CHECK(p.request.match_elements<who_request>());
    CHECK(p.target == target);
    auto again = parse_request(print_request(p.target, p.request));
    REQUIRE_FALSE(again.error);
    CHECK(again.target == target);
  }
  auto extra = parse_request("<DYPER COMMAND='WHO' FOO='1'/>");
  REQUIRE(extra.error);
  CHECK(dm_error_code(extra.error) == dm_error::bad_argument);
  auto arg = parse_request("<DYPER COMMAND='WHO'><PROCESS/></DYPER>");
  REQUIRE(arg.error);
  CHECK(dm_error_code(arg.error) == dm_error::bad_argument);

  CHECK(print_reply("", caf::make_message(who_reply{})) == "<DYPER_REPLY ID=''></DYPER_REPLY>");
  process_info app{4711, "app", "/bin/app", "/Process/app{4711}", {"work"}, true};
  process_info quoted{4712, "a'b", "/bin/ab", "/Process/a'b{4712}", {}, false};
  who_reply two{{app, quoted}};
  CHECK(print_reply("DM", caf::make_message(two)) ==
        "<DYPER_REPLY ID='DM'><PROCESS ID='4711' ACTIVE='true' NAME='app'/>"
        "<PROCESS ID='4712' ACTIVE='false' NAME='a&apos;b'/></DYPER_REPLY>");
}

TEST_CASE("codec: invalid UTF-8 is BAD_XML, valid UTF-8 passes", "[xml][gateway]") {
  const char* invalid[] = {
      "\x80",              // a continuation byte alone
      "\xC3",              // cut short
      "\xC0\xAF",          // overlong '/'
      "\xE0\x80\xAF",      // overlong, three bytes
      "\xED\xA0\x80",      // a surrogate
      "\xF4\x90\x80\x80",  // above U+10FFFF
      "\xFF",              // never in UTF-8
      "\xE2\x82",          // cut short before the end of the text
  };
  for (auto bad : invalid) {
    auto text =
        std::string("<DYPER PID='DM' COMMAND='DEFINE'><METRIC NAME='x") + bad + "'/></DYPER>";
    auto p = parse_request(text);
    INFO(text);
    REQUIRE(p.error);
    CHECK(dm_error_code(p.error) == dm_error::bad_xml);
    CHECK(dm_error_reason(p.error) == "the request is not valid UTF-8 (byte 48)");
  }
  for (auto good : {"\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xEF\xBF\xBD"}) {
    auto p = parse_request(std::string("<DYPER PID='DM' COMMAND='DEFINE'><METRIC NAME='") + good +
                           "'/></DYPER>");
    REQUIRE_FALSE(p.error);
    CHECK(p.request.get_as<define_metric>(0).name == good);
  }
}
