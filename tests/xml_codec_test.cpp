// The XML codec (messages/xml_codec.hpp) against PROTOCOL.md: every DM command parsed, every
// error the parser can produce, request round trips, and the exact printed replies and events.
#include "messages/xml_codec.hpp"

#include <caf/deep_to_string.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "messages/agent_replies.hpp"
#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/evidence_messages.hpp"
#include "messages/process_command_messages.hpp"
#include "messages/search_messages.hpp"

using namespace perfdm;

namespace {

// A DM request with `arg` as its argument element.
std::string dm(const std::string& command, const std::string& arg = "") {
  return "<DYPER PID='DM' COMMAND='" + command + "'>" + arg + "</DYPER>";
}

// Parses `text`, which must give a T.
template <class T>
T parsed(const std::string& text) {
  auto p = parse_request(text);
  INFO("request: " << text);
  INFO("error: " << (p.error ? dm_error_reason(p.error) : std::string("none")));
  REQUIRE_FALSE(p.error);
  REQUIRE(p.request.match_elements<T>());
  return p.request.get_as<T>(0);
}

// Parses `text`, which must fail with `code` and a reason containing `reason_part`.
void check_error(const std::string& text, dm_error code, const std::string& reason_part = "") {
  auto p = parse_request(text);
  INFO("request: " << text);
  REQUIRE(p.error);
  INFO("reason: " << dm_error_reason(p.error));
  CHECK(error_code_name(dm_error_code(p.error)) == std::string(error_code_name(code)));
  CHECK(dm_error_reason(p.error).find(reason_part) != std::string::npos);
  CHECK(p.request.empty());
}

void check_bad_argument(const std::string& text, const std::string& reason_part) {
  check_error(text, dm_error::bad_argument, reason_part);
}

// Round trip: print `x`, parse it back, and require an equal struct. deep_to_string compares
// every field (but doubles only to 6 places); printing both compares the numbers exactly.
template <class T>
void check_round_trip(const T& x) {
  auto text = print_request("DM", caf::make_message(x));
  INFO("printed: " << text);
  REQUIRE_FALSE(text.empty());
  auto back = parsed<T>(text);
  CHECK(caf::deep_to_string(back) == caf::deep_to_string(x));
  CHECK(print_request("DM", caf::make_message(back)) == text);
}

}  // namespace

// ---------------------------------------------------------------------------------------
// format_number

TEST_CASE("format_number prints the shortest round-trip form", "[xml]") {
  CHECK(format_number(0.2) == "0.2");
  CHECK(format_number(3) == "3");
  CHECK(format_number(0) == "0");
  CHECK(format_number(-1) == "-1");
  CHECK(format_number(1.5) == "1.5");
  CHECK(format_number(0.1 + 0.2) == "0.30000000000000004");
  CHECK(format_number(1e21) == "1e+21");
  CHECK(format_number(1e-7) == "1e-07");
  CHECK(format_number(std::numeric_limits<double>::quiet_NaN()) == "nan");
  CHECK(format_number(-std::numeric_limits<double>::quiet_NaN()) == "nan");
  CHECK(format_number(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(format_number(-std::numeric_limits<double>::infinity()) == "-inf");
  for (double x : {std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(),
                   std::numeric_limits<double>::lowest(), 2.0 / 3})
    CHECK(std::strtod(format_number(x).c_str(), nullptr) == x);
}

// ---------------------------------------------------------------------------------------
// Parsing every DM command

TEST_CASE("the envelope gives target and command", "[xml]") {
  auto p = parse_request(dm("METRICS"));
  REQUIRE_FALSE(p.error);
  CHECK(p.target == "DM");
  CHECK(p.command == "METRICS");
  CHECK(p.request.match_elements<list_metrics>());
}

TEST_CASE("DEFINE parses a metric or a resource", "[xml]") {
  auto m = parsed<define_metric>(dm("DEFINE", "<METRIC NAME='cpu' STYLE='SAMPLED' UNITS='s'/>"));
  CHECK(m.name == "cpu");
  CHECK(m.style == metric_style::sampled);
  CHECK(m.units == "s");

  auto d = parsed<define_metric>(dm("DEFINE", "<METRIC NAME='io'/>"));
  CHECK(d.name == "io");
  CHECK(d.style == metric_style::counter);
  CHECK(d.units.empty());

  CHECK(parsed<define_resource>(dm("DEFINE", "<RESOURCE NAME='/Process/app'/>")).name ==
        "/Process/app");
}

TEST_CASE("commands without an argument parse to their query", "[xml]") {
  parsed<list_metrics>(dm("METRICS"));
  parsed<list_resources>(dm("RESOURCES"));
  parsed<list_phases>(dm("PHASES"));
  parsed<status_query>(dm("STATUS"));
  parsed<samplerate_query>(dm("SAMPLERATE"));
  CHECK(parsed<open_stream>(dm("STREAM")).sink == nullptr);  // the caller fills it
  // The self-closing envelope is the same request.
  parsed<list_metrics>("<DYPER PID='DM' COMMAND='METRICS'/>");
}

TEST_CASE("CLOSE parses a stream", "[xml]") {
  CHECK(parsed<close_stream>(dm("CLOSE", "<STREAM ID='4'/>")).stream == stream_handle{4});
}

TEST_CASE("ENABLE parses every attribute and its defaults", "[xml]") {
  auto e = parsed<enable_request>(
      dm("ENABLE",
         "<ENABLE STREAM='2' METRIC='cpu' FOCUS='/a, /b/c' PHASE='CURRENT' PERSISTENT_DATA='yes' "
         "PERSISTENT_COLLECTION='1' PHASE_PERSISTENT_DATA='true'/>"));
  CHECK(e.stream == stream_handle{2});
  CHECK(e.metric == "cpu");
  CHECK(e.focus == std::vector<std::string>{"/a", "/b/c"});
  CHECK(e.phase.type == phase_type::current);
  CHECK_FALSE(e.phase.named);
  CHECK(e.flags == persistence{true, true, true});

  auto d = parsed<enable_request>(dm("ENABLE", "<ENABLE STREAM='0' METRIC='cpu'/>"));
  CHECK(d.focus == std::vector<std::string>{"/"});
  CHECK(d.phase.type == phase_type::global);
  CHECK_FALSE(d.phase.named);
  CHECK(d.flags == persistence{});

  auto n = parsed<enable_request>(dm("ENABLE", "<ENABLE STREAM='0' METRIC='cpu' PHASE='7'/>"));
  CHECK(n.phase.named);
  CHECK(n.phase.type == phase_type::current);
  CHECK(n.phase.id == phase_handle{7});
}

TEST_CASE("DISABLE parses stream, metric instance and phase", "[xml]") {
  auto d = parsed<disable_request>(dm("DISABLE", "<DISABLE STREAM='1' MI='3' PHASE='CURRENT'/>"));
  CHECK(d.stream == stream_handle{1});
  CHECK(d.mi == mi_handle{3});
  CHECK(d.phase == phase_type::current);
  CHECK(parsed<disable_request>(dm("DISABLE", "<DISABLE STREAM='1' MI='3'/>")).phase ==
        phase_type::global);
}

TEST_CASE("SETFLAGS and CLEARFLAGS name the flags given as true", "[xml]") {
  auto s = parsed<flags_request>(dm("SETFLAGS", "<FLAGS MI='5' PERSISTENT_DATA='true'/>"));
  CHECK(s.mi == mi_handle{5});
  CHECK(s.set);
  CHECK(s.named == persistence{true, false, false});

  auto c = parsed<flags_request>(
      dm("CLEARFLAGS",
         "<FLAGS MI='5' PERSISTENT_COLLECTION='t' PHASE_PERSISTENT_DATA='yes' "
         "PERSISTENT_DATA='false'/>"));
  CHECK_FALSE(c.set);
  CHECK(c.named == persistence{false, true, true});
}

TEST_CASE("PHASE takes an optional name", "[xml]") {
  CHECK(parsed<start_phase>(dm("PHASE", "<PHASE NAME='warmup'/>")).name == "warmup");
  CHECK(parsed<start_phase>(dm("PHASE", "<PHASE/>")).name.empty());
  CHECK(parsed<start_phase>(dm("PHASE")).name.empty());
}

TEST_CASE("SAMPLES parses every sample", "[xml]") {
  auto r = parsed<samples_request>(dm("SAMPLES",
                                      "<SAMPLES>"
                                      "<S MI='0' START='0' END='0.5' VALUE='2'/>"
                                      "<S MI='3' START='1.25' END='1.25' VALUE='-1e3'/>"
                                      "</SAMPLES>"));
  REQUIRE(r.samples.size() == 2);
  CHECK(r.samples[0].mi == mi_handle{0});
  CHECK(r.samples[0].start == 0);
  CHECK(r.samples[0].end == 0.5);
  CHECK(r.samples[0].value == 2);
  CHECK(r.samples[1].mi == mi_handle{3});
  CHECK(r.samples[1].start == 1.25);
  CHECK(r.samples[1].end == 1.25);  // END == START is allowed
  CHECK(r.samples[1].value == -1000);
  CHECK(parsed<samples_request>(dm("SAMPLES", "<SAMPLES/>")).samples.empty());
}

TEST_CASE("DATA parses the metric instance and GLOBAL, CURRENT or a phase id", "[xml]") {
  auto g = parsed<data_request>(dm("DATA", "<DATA MI='2'/>"));
  CHECK(g.mi == mi_handle{2});
  CHECK(g.phase.type == phase_type::global);
  CHECK_FALSE(g.phase.named);
  auto c = parsed<data_request>(dm("DATA", "<DATA MI='2' PHASE='CURRENT'/>"));
  CHECK(c.phase.type == phase_type::current);
  CHECK_FALSE(c.phase.named);
  auto n = parsed<data_request>(dm("DATA", "<DATA MI='2' PHASE='12'/>"));
  CHECK(n.phase.named);
  CHECK(n.phase.id == phase_handle{12});
}

// ---------------------------------------------------------------------------------------
// Lexical freedom the protocol allows

TEST_CASE("names, keywords and the DM target compare case-insensitively", "[xml]") {
  auto p = parse_request(
      "<dyper pid='dm' command='enable'><Enable stream='1' Metric='cpu' phase='current' "
      "persistent_data='TRUE'/></dyper>");
  REQUIRE_FALSE(p.error);
  CHECK(p.target == "dm");       // stored as written
  CHECK(p.command == "ENABLE");  // stored upper case
  auto e = p.request.get_as<enable_request>(0);
  CHECK(e.stream == stream_handle{1});
  CHECK(e.phase.type == phase_type::current);
  CHECK(e.flags.data);

  CHECK(parsed<define_metric>(dm("define", "<metric name='m' style='sampled'/>")).style ==
        metric_style::sampled);
  CHECK(parsed<disable_request>(dm("Disable", "<disable STREAM='0' mi='0' Phase='Current'/>"))
            .phase == phase_type::current);
  parsed<samples_request>(
      dm("samples", "<samples><s mi='0' start='0' end='1' value='1'/></samples>"));
}

TEST_CASE("whitespace, double quotes, declarations and comments are accepted", "[xml]") {
  parsed<list_metrics>("  \n<DYPER PID=\"DM\" COMMAND=\"METRICS\" />\r\n\t");
  auto c = parsed<close_stream>(
      "<?xml version='1.0'?>\n<!-- close it -->\n<DYPER PID='DM' COMMAND='CLOSE'>\n"
      "    <STREAM ID='9' />\n</DYPER>\n");
  CHECK(c.stream == stream_handle{9});
}

TEST_CASE("booleans accept true/false/t/f/1/0/yes/no in any case", "[xml]") {
  auto flag = [](const std::string& value) {
    return parsed<enable_request>(
               dm("ENABLE", "<ENABLE STREAM='0' METRIC='m' PERSISTENT_DATA='" + value + "'/>"))
        .flags.data;
  };
  for (auto word : {"true", "TRUE", "True", "t", "T", "1", "yes", "YES", "Yes"}) CHECK(flag(word));
  for (auto word : {"false", "FALSE", "False", "f", "F", "0", "no", "NO", "No"})
    CHECK_FALSE(flag(word));
  for (auto word : {"", "2", "y", "n", "on", "off", "truee", " true"})
    check_bad_argument(
        dm("ENABLE", std::string("<ENABLE STREAM='0' METRIC='m' PERSISTENT_DATA='") + word + "'/>"),
        "PERSISTENT_DATA");
}

TEST_CASE("entities in attribute values are decoded", "[xml]") {
  auto m = parsed<define_metric>(
      dm("DEFINE", "<METRIC NAME='a&amp;b &lt;c&gt; &apos;q&apos; &quot;d&quot;' UNITS='&#37;'/>"));
  CHECK(m.name == "a&b <c> 'q' \"d\"");
  CHECK(m.units == "%");
}

// ---------------------------------------------------------------------------------------
// Errors

TEST_CASE("malformed XML is BAD_XML", "[xml]") {
  check_error("", dm_error::bad_xml);
  check_error("   \n ", dm_error::bad_xml);
  check_error("hello", dm_error::bad_xml);
  check_error("<DYPER PID='DM' COMMAND='METRICS'>", dm_error::bad_xml);
  check_error("<DYPER PID='DM' COMMAND='METRICS'></DYPERX>", dm_error::bad_xml);
  check_error("<DYPER PID='DM' COMMAND='METRICS'/></DYPER>", dm_error::bad_xml);
  check_error("<DYPER PID=DM COMMAND='METRICS'/>", dm_error::bad_xml);
  check_error("<DYPER PID='DM COMMAND='METRICS'/>", dm_error::bad_xml);
  check_error("<DYPER PID='DM' COMMAND='METRICS'/> trailing", dm_error::bad_xml);
  check_error(dm("CLOSE", "<STREAM ID='1'>"), dm_error::bad_xml);
  check_error(std::string("<DYPER PID='DM' COMMAND='METRICS'/>\0<X/>", 40), dm_error::bad_xml,
              "NUL");
}

// Found by fuzz/xml_codec_fuzz: RapidXML decodes these references to a NUL byte, which was
// accepted and printed raw, so the canonical line (and a --record file) did not parse back.
TEST_CASE("a character reference standing for NUL is BAD_XML", "[xml]") {
  check_error(dm("DEFINE", "<RESOURCE NAME='/a&#0;b'/>"), dm_error::bad_xml,
              "attribute NAME of <RESOURCE> stands for NUL");
  check_error(dm("DEFINE", "<RESOURCE NAME='/a&#;b'/>"), dm_error::bad_xml, "NUL");
  check_error(dm("DEFINE", "<METRIC NAME='c' UNITS='&#x10000000000000000;'/>"),
              dm_error::bad_xml, "NUL");  // overflows to 0
  check_error("<DYPER PID='D&#x0;M' COMMAND='STATUS'/>", dm_error::bad_xml, "PID");
  check_error(dm("STATUS", "&#0;"), dm_error::bad_xml, "inside <DYPER>");
  auto p = parse_request("<DYPER PID='D&#x0;M' COMMAND='STATUS'/>");
  CHECK(p.target.empty());  // no NUL reaches the error reply
}

TEST_CASE("more than one root element is BAD_XML", "[xml]") {
  check_error("<DYPER PID='DM' COMMAND='METRICS'/><DYPER PID='DM' COMMAND='PHASES'/>",
              dm_error::bad_xml, "exactly one element");
}

TEST_CASE("an unknown root element or command is UNKNOWN_COMMAND", "[xml]") {
  auto p = parse_request("<DYPATCHER PID='DM' COMMAND='PING'/>");
  REQUIRE(p.error);
  CHECK(dm_error_code(p.error) == dm_error::unknown_command);
  CHECK(p.target == "DM");  // still addressed, so the error reply carries the target
  // DYPATCH is for a process, never for the data manager.
  auto d = parse_request("<DYPATCH PID='DM' COMMAND='PING'/>");
  CHECK(dm_error_code(d.error) == dm_error::unknown_target);
  check_error("<FOO/>", dm_error::unknown_command, "<FOO>");
  check_error(dm("FROB"), dm_error::unknown_command, "'FROB'");
  check_error(dm(""), dm_error::unknown_command);
  check_error(dm("WHORU"), dm_error::unknown_command);  // a process command, not the DM's

  auto q = parse_request(dm("frob"));
  CHECK(q.command == "FROB");
}

TEST_CASE("a target other than DM is UNKNOWN_TARGET", "[xml]") {
  auto p = parse_request("<DYPER PID='host@1234' COMMAND='PING'/>");
  REQUIRE(p.error);
  CHECK(dm_error_code(p.error) == dm_error::unknown_target);
  CHECK(dm_error_reason(p.error) == "no process 'host@1234' is known");
  CHECK(p.target == "host@1234");
  CHECK(p.command == "PING");
  // DyPer's <pid>@<host> names process 1234 (whether it is known is the registry's call).
  auto dyper = parse_request("<DYPER PID='1234@host' COMMAND='PING'/>");
  REQUIRE_FALSE(dyper.error);
  REQUIRE(dyper.request.match_elements<process_command>());
  CHECK(dyper.request.get_as<process_command>(0).pid == 1234);
  CHECK(dyper.target == "1234@host");
  check_error("<DYPER PID='' COMMAND='METRICS'/>", dm_error::unknown_target);
}

TEST_CASE("a missing PID or COMMAND is BAD_ARGUMENT", "[xml]") {
  check_bad_argument("<DYPER COMMAND='STATUS'/>", "PID");
  check_bad_argument("<DYPER PID='DM'/>", "COMMAND");
  auto p = parse_request("<DYPER PID='DM'/>");
  CHECK(p.target == "DM");
}

TEST_CASE("unknown or repeated attributes are BAD_ARGUMENT naming them", "[xml]") {
  check_bad_argument("<DYPER PID='DM' COMMAND='METRICS' XCOMMAND='x'/>", "XCOMMAND");
  check_bad_argument(dm("ENABLE", "<ENABLE STREAM='0' METRIC='m' PERSISTANT_DATA='true'/>"),
                     "PERSISTANT_DATA");
  check_bad_argument(dm("DEFINE", "<METRIC NAME='m' UNIT='s'/>"), "UNIT");
  check_bad_argument(dm("CLOSE", "<STREAM ID='0' STREAM='1'/>"), "STREAM");
  check_bad_argument(dm("SAMPLES", "<SAMPLES COUNT='1'/>"), "COUNT");
  check_bad_argument(
      dm("SAMPLES", "<SAMPLES><S MI='0' START='0' END='1' VALUE='1' W='1'/></SAMPLES>"), "W");
  check_bad_argument(dm("CLOSE", "<STREAM ID='0' id='1'/>"), "more than once");
}

TEST_CASE("argument elements must match the command", "[xml]") {
  check_bad_argument(dm("METRICS", "<METRIC NAME='x'/>"), "takes no argument");
  check_bad_argument(dm("STREAM", "<STREAM ID='0'/>"), "takes no argument");
  check_bad_argument(dm("CLOSE"), "needs a <STREAM> argument");
  check_bad_argument(dm("ENABLE"), "<ENABLE>");
  check_bad_argument(dm("DISABLE"), "<DISABLE>");
  check_bad_argument(dm("SETFLAGS"), "<FLAGS>");
  check_bad_argument(dm("SAMPLES"), "<SAMPLES>");
  check_bad_argument(dm("DATA"), "<DATA>");
  check_bad_argument(dm("DEFINE"), "<METRIC> or <RESOURCE>");
  check_bad_argument(dm("DEFINE", "<THING NAME='x'/>"), "<THING>");
  check_bad_argument(dm("CLOSE", "<CLOSE ID='0'/>"), "<CLOSE>");
  check_bad_argument(dm("PHASE", "<PHASES/>"), "<PHASES>");
  check_bad_argument(dm("CLOSE", "<STREAM ID='0'/><STREAM ID='1'/>"), "one argument");
  check_bad_argument(dm("CLOSE", "<STREAM ID='0'><X/></STREAM>"), "<X>");
  check_bad_argument(dm("CLOSE", "<STREAM ID='0'>text</STREAM>"), "text");
  check_bad_argument(dm("METRICS", "junk"), "junk");
  check_bad_argument(dm("SAMPLES", "<SAMPLES><X/></SAMPLES>"), "<X>");
  check_bad_argument(dm("SAMPLES", "<SAMPLES>1 2 3</SAMPLES>"), "1 2 3");
}

TEST_CASE("required attributes must be present", "[xml]") {
  check_bad_argument(dm("DEFINE", "<METRIC UNITS='s'/>"), "NAME");
  check_bad_argument(dm("DEFINE", "<RESOURCE/>"), "NAME");
  check_bad_argument(dm("CLOSE", "<STREAM/>"), "ID");
  check_bad_argument(dm("ENABLE", "<ENABLE METRIC='m'/>"), "STREAM");
  check_bad_argument(dm("ENABLE", "<ENABLE STREAM='0'/>"), "METRIC");
  check_bad_argument(dm("DISABLE", "<DISABLE STREAM='0'/>"), "MI");
  check_bad_argument(dm("SETFLAGS", "<FLAGS PERSISTENT_DATA='1'/>"), "MI");
  check_bad_argument(dm("DATA", "<DATA PHASE='GLOBAL'/>"), "MI");
  for (auto missing : {"MI", "START", "END", "VALUE"}) {
    std::string s = "<S";
    for (auto name : {"MI", "START", "END", "VALUE"})
      if (std::string(name) != missing) s += std::string(" ") + name + "='1'";
    check_bad_argument(dm("SAMPLES", "<SAMPLES>" + s + "/></SAMPLES>"), missing);
  }
}

TEST_CASE("handles are non-negative decimal integers", "[xml]") {
  for (auto bad : {"-1", "1x", "", "+1", " 1", "1.0", "0x10", "abc", "18446744073709551616"})
    check_bad_argument(
        dm("CLOSE", std::string("<STREAM ID='") + bad + "'/>"),
        std::string("ID of <STREAM> must be a non-negative integer handle, not '") + bad + "'");
  CHECK(parsed<close_stream>(dm("CLOSE", "<STREAM ID='18446744073709551615'/>")).stream.id ==
        18446744073709551615ull);
  CHECK(parsed<close_stream>(dm("CLOSE", "<STREAM ID='007'/>")).stream.id == 7);
  check_bad_argument(dm("DISABLE", "<DISABLE STREAM='0' MI='-3'/>"), "MI");
  check_bad_argument(dm("SETFLAGS", "<FLAGS MI='x' PERSISTENT_DATA='1'/>"), "MI");
  check_bad_argument(dm("DATA", "<DATA MI='1' PHASE='-1'/>"), "PHASE");
  check_bad_argument(dm("ENABLE", "<ENABLE STREAM='s' METRIC='m'/>"), "STREAM");
}

TEST_CASE("numbers are finite decimal numbers", "[xml]") {
  auto value = [](const std::string& v) {
    return dm("SAMPLES", "<SAMPLES><S MI='0' START='0' END='1' VALUE='" + v + "'/></SAMPLES>");
  };
  for (auto bad :
       {"", "abc", "1x", "nan", "inf", "-inf", "1e999", "0x10", " 1", "1 ", "1,5", "--1"})
    check_bad_argument(
        value(bad),
        std::string("VALUE of sample 1 <S> must be a finite decimal number, not '") + bad + "'");
  CHECK(parsed<samples_request>(value("-2.5e-3")).samples[0].value == -2.5e-3);
  CHECK(parsed<samples_request>(value("+7")).samples[0].value == 7);
  CHECK(parsed<samples_request>(value(".5")).samples[0].value == 0.5);
}

TEST_CASE("keyword attributes accept only their keywords", "[xml]") {
  check_bad_argument(dm("DEFINE", "<METRIC NAME='m' STYLE='GAUGE'/>"), "STYLE");
  check_bad_argument(dm("ENABLE", "<ENABLE STREAM='0' METRIC='m' PHASE='ALL'/>"), "PHASE");
  check_bad_argument(dm("DISABLE", "<DISABLE STREAM='0' MI='0' PHASE='3'/>"),
                     "must be GLOBAL or CURRENT, not '3'");
  check_bad_argument(dm("DATA", "<DATA MI='0' PHASE=''/>"), "PHASE");
}

TEST_CASE("names must be well formed", "[xml]") {
  check_bad_argument(dm("DEFINE", "<RESOURCE NAME='Process'/>"), "'/'");
  check_bad_argument(dm("DEFINE", "<RESOURCE NAME=''/>"), "NAME");
  check_bad_argument(dm("DEFINE", "<METRIC NAME=''/>"), "NAME");
  for (auto bad : {"a", "/a,b", "/a,,/b", "", "/a,"})
    check_bad_argument(
        dm("ENABLE", std::string("<ENABLE STREAM='0' METRIC='m' FOCUS='") + bad + "'/>"), "FOCUS");
}

TEST_CASE("flag requests must name a flag", "[xml]") {
  check_bad_argument(dm("SETFLAGS", "<FLAGS MI='1'/>"), "at least one flag");
  check_bad_argument(dm("CLEARFLAGS", "<FLAGS MI='1' PERSISTENT_DATA='no'/>"), "at least one flag");
  check_bad_argument(dm("SETFLAGS", "<FLAGS MI='1' PERSISTENT_DATA='maybe'/>"), "PERSISTENT_DATA");
}

TEST_CASE("a sample may not end before it starts", "[xml]") {
  check_bad_argument(dm("SAMPLES",
                        "<SAMPLES><S MI='0' START='0' END='1' VALUE='1'/>"
                        "<S MI='0' START='2' END='1.5' VALUE='1'/></SAMPLES>"),
                     "sample 2 <S> ends (END='1.5') before it starts (START='2')");
}

TEST_CASE("a request longer than max_request_bytes is LIMIT", "[xml]") {
  std::string big = dm("SAMPLES", "<SAMPLES>");
  big.resize(max_request_bytes + 1, ' ');
  auto p = parse_request(big);
  REQUIRE(p.error);
  CHECK(dm_error_code(p.error) == dm_error::limit);
  CHECK(p.target.empty());
  // Exactly max_request_bytes is still parsed (and fails only for being unfinished XML).
  big.resize(max_request_bytes);
  CHECK(dm_error_code(parse_request(big).error) == dm_error::bad_xml);
}

TEST_CASE("deep nesting is LIMIT before RapidXML recurses into it", "[xml]") {
  // 100000 levels would overflow the stack inside RapidXML's recursive descent.
  std::string deep = "<DYPER PID='DM' COMMAND='METRICS'>";
  for (int i = 0; i < 100000; ++i) deep += "<a>";
  check_error(deep, dm_error::limit, "nest");
  // Closing tags hidden where RapidXML skips them do not lower the count.
  for (std::string hidden : {"<!-- </a> -->", "<![CDATA[</a>]]>", "<? </a> ?>",
                             "<!DOCTYPE x [ <!ENTITY y '>'> </a> ]>", "<!x </a>"}) {
    std::string text = "<DYPER PID='DM' COMMAND='METRICS'>";
    for (int i = 0; i < 40; ++i) text += "<a x='</a>' y=\"</a>\">" + hidden;
    check_error(text, dm_error::limit, "nest");
  }
  // Shallow nesting inside those constructs is still just a request.
  parsed<close_stream>(dm("CLOSE", "<!-- <a><a><a> --><![CDATA[ ]]><STREAM ID='1'/>"));
  std::string open, close;  // with DYPER and SAMPLES, 32 levels: the most allowed
  for (int i = 0; i < 30; ++i) open += "<X>", close += "</X>";
  check_bad_argument(dm("SAMPLES", "<SAMPLES>" + open + close + "</SAMPLES>"), "<X>");
  check_error(dm("SAMPLES", "<SAMPLES><X>" + open + close + "</X></SAMPLES>"), dm_error::limit);
}

// ---------------------------------------------------------------------------------------
// Printing requests and round trips

TEST_CASE("print_request writes the canonical line", "[xml]") {
  enable_request e;
  e.stream = stream_handle{0};
  e.metric = "cpu";
  e.focus = {"/a", "/b"};
  CHECK(print_request("DM", caf::make_message(e)) ==
        "<DYPER PID='DM' COMMAND='ENABLE'><ENABLE STREAM='0' METRIC='cpu' FOCUS='/a,/b' "
        "PHASE='GLOBAL' PERSISTENT_DATA='false' PERSISTENT_COLLECTION='false' "
        "PHASE_PERSISTENT_DATA='false'/></DYPER>");
  CHECK(print_request("DM", caf::make_message(list_metrics{})) ==
        "<DYPER PID='DM' COMMAND='METRICS'/>");
  CHECK(
      print_request("DM",
                    caf::make_message(flags_request{mi_handle{3}, {false, true, false}, false})) ==
      "<DYPER PID='DM' COMMAND='CLEARFLAGS'><FLAGS MI='3' PERSISTENT_COLLECTION='true'/></DYPER>");
  CHECK(print_request("DM", caf::make_message(data_request{
                                mi_handle{1}, {phase_type::current, true, phase_handle{4}}})) ==
        "<DYPER PID='DM' COMMAND='DATA'><DATA MI='1' PHASE='4'/></DYPER>");
  CHECK(print_request("DM", caf::make_message(samples_request{{{mi_handle{2}, 0.2, 0.4, 1.5}}})) ==
        "<DYPER PID='DM' COMMAND='SAMPLES'><SAMPLES><S MI='2' START='0.2' END='0.4' "
        "VALUE='1.5'/></SAMPLES></DYPER>");
  CHECK(print_request("DM", caf::make_message(ok_reply{})).empty());  // not a request
  CHECK(print_request("DM", caf::message{}).empty());
}

TEST_CASE("every request struct survives print and parse", "[xml]") {
  check_round_trip(define_metric{"cpu", metric_style::sampled, "s"});
  check_round_trip(define_metric{"io", metric_style::counter, ""});
  check_round_trip(define_resource{"/Process/app"});
  check_round_trip(list_metrics{});
  check_round_trip(list_resources{});
  check_round_trip(list_phases{});
  check_round_trip(status_query{});
  check_round_trip(samplerate_query{});
  check_round_trip(open_stream{});
  check_round_trip(close_stream{stream_handle{17}});
  check_round_trip(
      enable_request{stream_handle{1}, "cpu", {"/a", "/b/c"}, {}, {true, false, true}});
  check_round_trip(
      enable_request{stream_handle{2}, "m", {"/"}, {phase_type::current, false, {}}, {}});
  check_round_trip(enable_request{stream_handle{3},
                                  "m",
                                  {"/"},
                                  {phase_type::current, true, phase_handle{9}},
                                  {false, true, false}});
  check_round_trip(disable_request{stream_handle{1}, mi_handle{2}, phase_type::global});
  check_round_trip(disable_request{stream_handle{1}, mi_handle{2}, phase_type::current});
  check_round_trip(flags_request{mi_handle{4}, {true, false, true}, true});
  check_round_trip(flags_request{mi_handle{4}, {false, true, false}, false});
  check_round_trip(flags_request{mi_handle{4}, {true, true, true}, false});
  check_round_trip(start_phase{"warm up"});
  check_round_trip(start_phase{""});
  check_round_trip(samples_request{});
  check_round_trip(samples_request{{{mi_handle{0}, 0.1, 0.30000000000000004, 1e-300},
                                    {mi_handle{7}, 1e21, 1e21, -0.5},
                                    {mi_handle{1}, 2.0 / 3, 1, 12345.678901234567}}});
  check_round_trip(data_request{mi_handle{5}, {}});
  check_round_trip(data_request{mi_handle{5}, {phase_type::current, false, {}}});
  check_round_trip(data_request{mi_handle{5}, {phase_type::current, true, phase_handle{3}}});
  // Names that need escaping come back unchanged.
  check_round_trip(define_metric{"a&b <c> 'q' \"d\"\nline2", metric_style::counter, "%"});
  check_round_trip(define_resource{"/odd'<&>\""});
}

TEST_CASE("an empty focus prints as '/'", "[xml]") {
  enable_request e{stream_handle{0}, "m", {}, {}, {}};
  auto back = parsed<enable_request>(print_request("DM", caf::make_message(e)));
  CHECK(back.focus == std::vector<std::string>{"/"});
}

TEST_CASE("the lines perfdm search and top send print from their structs", "[xml]") {
  search_request r;
  r.phase = phase_type::current;
  r.tunables = {{"SUFFICIENT_TIME", 6}, {"CONFIDENCE", 0.95}, {"COST_BUDGET", 0.05}};
  const auto line = print_request("DM", caf::make_message(r));
  CHECK(line ==
        "<DYPER PID='DM' COMMAND='SEARCH'><SEARCH PHASE='CURRENT' ACTION='START' "
        "SUFFICIENT_TIME='6' COST_BUDGET='0.05' CONFIDENCE='0.95'/></DYPER>");
  auto back = parsed<search_request>(line);
  CHECK(back.phase == phase_type::current);
  CHECK(back.action == search_action::start);
  CHECK(back.tunables == r.tunables);
  check_round_trip(r);
  CHECK(print_request("DM", caf::make_message(search_request{})) ==
        "<DYPER PID='DM' COMMAND='SEARCH'><SEARCH PHASE='GLOBAL' ACTION='START'/></DYPER>");
  CHECK(print_request("DM", caf::make_message(open_stream{})) ==
        "<DYPER PID='DM' COMMAND='STREAM'/>");
  CHECK(print_request("DM", caf::make_message(shg_request{})) ==
        "<DYPER PID='DM' COMMAND='SHG'/>");
  CHECK(print_request("DM", caf::make_message(findings_request{})) ==
        "<DYPER PID='DM' COMMAND='FINDINGS'/>");
}

TEST_CASE("INSTRUMENT's PATCH and the agent's WHO reply print and read back", "[xml]") {
  CHECK(print_patch_reply({1700000000123}) == "<PATCH TIME='1700000000123'/>");
  auto patch = parse_patch_reply(print_patch_reply({1700000000123}));
  REQUIRE(patch);
  CHECK(patch->time_ms == 1700000000123);
  CHECK(parse_patch_reply("<PATCH TIME='12'/>")->time_ms == 12);
  CHECK_FALSE(parse_patch_reply("<PATCH TIME='12x'/>"));
  CHECK_FALSE(parse_patch_reply("<PATCH/>"));
  CHECK_FALSE(parse_patch_reply("<PATCHED TIME='12'/>"));
  CHECK_FALSE(parse_patch_reply("<PATCH TIME='12'>"));

  const agent_who_reply who{"4242@node-a'b"};
  const auto text = print_agent_who_reply(who);
  CHECK(text ==
        "<DYPER_REPLY ID='4242@node-a&apos;b'><DYPER_REPLY ID='4242@node-a&apos;b' "
        "ACTIVE='true' /></DYPER_REPLY>");
  auto back = parse_agent_who_reply(text);
  REQUIRE(back);
  CHECK(back->id == who.id);
  CHECK(parse_agent_who_reply(print_agent_who_reply({"1@h"}))->id == "1@h");
  CHECK_FALSE(parse_agent_who_reply(
      "<DYPER_REPLY ID='1@h'><DYPER_REPLY ID='2@h' ACTIVE='true' /></DYPER_REPLY>"));
  CHECK_FALSE(parse_agent_who_reply(
      "<DYPER_REPLY ID='1@h'><DYPER_REPLY ID='1@h' ACTIVE='false' /></DYPER_REPLY>"));
  CHECK_FALSE(parse_agent_who_reply("<DYPER_REPLY ID='1@h'/>"));
}

// ---------------------------------------------------------------------------------------
// Printing replies, errors and events

namespace {

std::string reply(const caf::message& m) {
  return print_reply("DM", m);
}

std::string wrapped(const std::string& body) {
  return "<DYPER_REPLY ID='DM'>" + body + "</DYPER_REPLY>";
}

metric_info cpu_metric() {
  return {metric_handle{0}, "cpu", metric_style::counter, "s"};
}
resource_info process_resource() {
  return {resource_handle{1}, "/Process", "/"};
}
phase_info current_phase() {
  return {phase_handle{1}, "p", 1.2, -1, 0.2};
}

}  // namespace

TEST_CASE("print_reply writes every reply struct", "[xml]") {
  CHECK(reply(caf::make_message(cpu_metric())) ==
        wrapped("<METRIC ID='0' NAME='cpu' STYLE='COUNTER' UNITS='s'/>"));
  CHECK(reply(caf::make_message(process_resource())) ==
        wrapped("<RESOURCE ID='1' NAME='/Process' PARENT='/'/>"));
  CHECK(reply(caf::make_message(current_phase())) ==
        wrapped("<PHASE ID='1' NAME='p' START='1.2' END='-1' WIDTH='0.2'/>"));
  CHECK(reply(caf::make_message(
            metric_list{{cpu_metric(), {metric_handle{1}, "io", metric_style::sampled, ""}}})) ==
        wrapped("<METRICS><METRIC ID='0' NAME='cpu' STYLE='COUNTER' UNITS='s'/>"
                "<METRIC ID='1' NAME='io' STYLE='SAMPLED' UNITS=''/></METRICS>"));
  CHECK(reply(caf::make_message(metric_list{})) == wrapped("<METRICS></METRICS>"));
  CHECK(reply(caf::make_message(
            resource_list{{{resource_handle{0}, "/", ""}, process_resource()}})) ==
        wrapped("<RESOURCES><RESOURCE ID='0' NAME='/' PARENT=''/>"
                "<RESOURCE ID='1' NAME='/Process' PARENT='/'/></RESOURCES>"));
  CHECK(reply(caf::make_message(
            phase_list{{{phase_handle{0}, "phase_0", 0, 1.2, 0.2}, current_phase()}})) ==
        wrapped("<PHASES><PHASE ID='0' NAME='phase_0' START='0' END='1.2' WIDTH='0.2'/>"
                "<PHASE ID='1' NAME='p' START='1.2' END='-1' WIDTH='0.2'/></PHASES>"));
  CHECK(reply(caf::make_message(stream_opened{stream_handle{0}})) == wrapped("<STREAM ID='0'/>"));
  CHECK(reply(caf::make_message(ok_reply{})) == wrapped("<OK/>"));
  CHECK(reply(caf::make_message(samples_ack{12, 3})) == wrapped("<OK COUNT='12' DROPPED='3'/>"));
  CHECK(reply(caf::make_message(mi_info{mi_handle{0}, "cpu", "/", {}, mi_state::active})) ==
        wrapped("<MI ID='0' METRIC='cpu' FOCUS='/' STATE='ACTIVE' PERSISTENT_DATA='false' "
                "PERSISTENT_COLLECTION='false' PHASE_PERSISTENT_DATA='false'/>"));
  CHECK(reply(caf::make_message(
            mi_info{mi_handle{2}, "io", "/a,/b", {true, false, true}, mi_state::deleted})) ==
        wrapped("<MI ID='2' METRIC='io' FOCUS='/a,/b' STATE='DELETED' PERSISTENT_DATA='true' "
                "PERSISTENT_COLLECTION='false' PHASE_PERSISTENT_DATA='true'/>"));
  CHECK(reply(caf::make_message(samplerate_info{0.2})) == wrapped("<SAMPLERATE INTERVAL='0.2'/>"));
}

TEST_CASE("print_reply writes histograms with LAST and nan", "[xml]") {
  histogram_data h{mi_handle{0}, 0, 0.2, 1000, {1, std::nan(""), 3}};
  CHECK(
      reply(caf::make_message(h)) ==
      wrapped("<HISTOGRAM MI='0' START='0' WIDTH='0.2' NBINS='1000' LAST='2'>1 nan 3</HISTOGRAM>"));
  histogram_data empty{mi_handle{4}, 1.5, 0.4, 1000, {}};
  CHECK(reply(caf::make_message(empty)) ==
        wrapped("<HISTOGRAM MI='4' START='1.5' WIDTH='0.4' NBINS='1000' LAST='-1'></HISTOGRAM>"));
}

TEST_CASE("print_reply writes the status", "[xml]") {
  mi_status a;
  a.id = mi_handle{0};
  a.metric = "cpu";
  a.focus = "/";
  a.global_users = {stream_handle{0}, stream_handle{1}};
  a.collecting = true;
  a.has_global = true;
  a.has_current = true;
  a.archived = {phase_handle{1}, phase_handle{2}};
  mi_status b;
  b.id = mi_handle{1};
  b.metric = "io";
  b.focus = "/a,/b";
  b.current_users = {stream_handle{2}};
  b.flags = {true, true, false};
  b.has_current = true;
  status_info s{1.5, 0.2, phase_handle{0}, {a, b}, {}};
  CHECK(
      reply(caf::make_message(s)) ==
      wrapped("<STATUS NOW='1.5' SAMPLEINTERVAL='0.2' PHASE='0'>"
              "<MI ID='0' METRIC='cpu' FOCUS='/' GLOBAL_USERS='0 1' CURRENT_USERS='' "
              "PERSISTENT_DATA='false' PERSISTENT_COLLECTION='false' PHASE_PERSISTENT_DATA='false' "
              "COLLECTING='true' HISTOGRAMS='GLOBAL CURRENT' ARCHIVED='1 2'/>"
              "<MI ID='1' METRIC='io' FOCUS='/a,/b' GLOBAL_USERS='' CURRENT_USERS='2' "
              "PERSISTENT_DATA='true' PERSISTENT_COLLECTION='true' PHASE_PERSISTENT_DATA='false' "
              "COLLECTING='false' HISTOGRAMS='CURRENT' ARCHIVED=''/>"
              "</STATUS>"));
  mi_status g;
  g.has_global = true;
  CHECK(reply(caf::make_message(status_info{0, 0.2, phase_handle{3}, {g}, {}}))
            .find("HISTOGRAMS='GLOBAL'") != std::string::npos);
  CHECK(reply(caf::make_message(status_info{0, 0.2, phase_handle{3}, {}, {}})) ==
        wrapped("<STATUS NOW='0' SAMPLEINTERVAL='0.2' PHASE='3'></STATUS>"));
}

TEST_CASE("print_reply of an unknown reply is an INTERNAL error", "[xml]") {
  auto text = reply(caf::make_message(list_metrics{}));
  CHECK(text.rfind("<DYPER_REPLY ID='DM' ERROR='INTERNAL'>", 0) == 0);
  CHECK(text.find("<UNKNOWN/>") == std::string::npos);
  CHECK(reply(caf::message{}).rfind("<DYPER_REPLY ID='DM' ERROR='INTERNAL'>", 0) == 0);
  CHECK(reply(caf::make_message(1, 2)).rfind("<DYPER_REPLY ID='DM' ERROR='INTERNAL'>", 0) == 0);
  // A reply that is an error prints as that error.
  CHECK(reply(caf::make_message(make_dm_error(dm_error::not_allowed, "no"))) ==
        "<DYPER_REPLY ID='DM' ERROR='NOT_ALLOWED'>no</DYPER_REPLY>");
}

TEST_CASE("print_error writes code and escaped reason", "[xml]") {
  CHECK(print_error("DM", make_dm_error(dm_error::unknown_handle, "no metric instance 7")) ==
        "<DYPER_REPLY ID='DM' ERROR='UNKNOWN_HANDLE'>no metric instance 7</DYPER_REPLY>");
  CHECK(print_error("x'y", make_dm_error(dm_error::bad_argument, "a<b & 'c' \"d\" > e")) ==
        "<DYPER_REPLY ID='x&apos;y' ERROR='BAD_ARGUMENT'>"
        "a&lt;b &amp; &apos;c&apos; &quot;d&quot; &gt; e</DYPER_REPLY>");
  CHECK(print_error("DM", make_dm_error(dm_error::internal, "two\nlines")) ==
        "<DYPER_REPLY ID='DM' ERROR='INTERNAL'>two&#10;lines</DYPER_REPLY>");
  // Errors from the parser print with their code.
  auto p = parse_request("<DYPER PID='x7' COMMAND='PING'/>");
  CHECK(
      print_error(p.target, p.error) ==
      "<DYPER_REPLY ID='x7' ERROR='UNKNOWN_TARGET'>no process &apos;x7&apos; is known</DYPER_REPLY>");
  CHECK(print_error("DM", make_dm_error(dm_error::limit, "x")).find("ERROR='LIMIT'") !=
        std::string::npos);
}

TEST_CASE("print_reply escapes names", "[xml]") {
  CHECK(
      reply(caf::make_message(
          metric_info{metric_handle{3}, "a<b>&'c'\"", metric_style::sampled, "%"})) ==
      wrapped(
          "<METRIC ID='3' NAME='a&lt;b&gt;&amp;&apos;c&apos;&quot;' STYLE='SAMPLED' UNITS='%'/>"));
  auto line = reply(caf::make_message(resource_info{resource_handle{1}, "/a\nb", "/"}));
  CHECK(line.find('\n') == std::string::npos);
  CHECK(line.find("NAME='/a&#10;b'") != std::string::npos);
}

TEST_CASE("print_event writes every stream event", "[xml]") {
  data_event d{stream_handle{0},
               {{mi_handle{0}, phase_type::global, 3, 1.5},
                {mi_handle{2}, phase_type::current, 0, std::nan("")}}};
  CHECK(print_event(caf::make_message(d)) ==
        "<DYPER DATA='0'><V MI='0' PHASE='GLOBAL' BUCKET='3' VALUE='1.5'/>"
        "<V MI='2' PHASE='CURRENT' BUCKET='0' VALUE='nan'/></DYPER>");
  CHECK(print_event(caf::make_message(fold_event{stream_handle{0}, phase_type::global, 0.4})) ==
        "<DYPER FOLD='0' PHASE='GLOBAL' WIDTH='0.4'/>");
  CHECK(print_event(caf::make_message(fold_event{stream_handle{1}, phase_type::current, 0.8})) ==
        "<DYPER FOLD='1' PHASE='CURRENT' WIDTH='0.8'/>");
  CHECK(print_event(caf::make_message(new_phase_event{stream_handle{0}, current_phase()})) ==
        "<DYPER NEWPHASE='0' ID='1' NAME='p' START='1.2' WIDTH='0.2'/>");
  CHECK(print_event(caf::make_message(samplerate_event{stream_handle{0}, 0.4})) ==
        "<DYPER SAMPLERATE='0' INTERVAL='0.4'/>");
  CHECK(print_event(caf::make_message(new_metric_event{stream_handle{0}, cpu_metric()})) ==
        "<DYPER NEWMETRIC='0' ID='0' NAME='cpu' STYLE='COUNTER' UNITS='s'/>");
  CHECK(print_event(caf::make_message(
            new_resource_event{stream_handle{0}, {resource_handle{1}, "/a", "/"}})) ==
        "<DYPER NEWRESOURCE='0' ID='1' NAME='/a' PARENT='/'/>");
  CHECK(print_event(caf::make_message(component_removed_event{stream_handle{2}, "node<1>:42"})) ==
        "<DYPER COMPONENTREMOVED='2' NAME='node&lt;1&gt;:42'/>");
  // Behind relays: the path of relays from the engine down.
  CHECK(print_event(caf::make_message(
            component_removed_event{stream_handle{2}, "node-1", "relay-top/relay-a"})) ==
        "<DYPER COMPONENTREMOVED='2' NAME='node-1' RELAY='relay-top/relay-a'/>");
  CHECK(print_event(caf::make_message(new_metric_event{
            stream_handle{5}, {metric_handle{2}, "&", metric_style::sampled, "<"}})) ==
        "<DYPER NEWMETRIC='5' ID='2' NAME='&amp;' STYLE='SAMPLED' UNITS='&lt;'/>");
  // Not an event.
  CHECK(print_event(caf::make_message(ok_reply{})).empty());
  CHECK(print_event(caf::message{}).empty());
}

TEST_CASE("printed replies and events are XML that parses", "[xml]") {
  // The printers' output is well-formed: re-reading a reply through the parser fails only on
  // the envelope (DYPER_REPLY is not a request), never as BAD_XML.
  histogram_data h{mi_handle{0}, 0, 0.2, 1000, {1, std::nan(""), 3}};
  for (auto text : {reply(caf::make_message(h)),
                    print_event(caf::make_message(data_event{stream_handle{0}, {{}}})),
                    print_error("DM", make_dm_error(dm_error::bad_argument, "<&>"))})
    CHECK(dm_error_code(parse_request(text).error) != dm_error::bad_xml);
}

TEST_CASE("LOG parses with and without FILE and its reply prints", "[xml]") {
  auto with = parse_request("<DYPER PID='DM' COMMAND='LOG'><LOG FILE='/tmp/a b.log'/></DYPER>");
  REQUIRE_FALSE(with.error);
  REQUIRE(with.request.match_elements<write_log>());
  CHECK(with.request.get_as<write_log>(0).file == "/tmp/a b.log");
  auto without = parse_request("<DYPER PID='DM' COMMAND='log'/>");
  REQUIRE(without.request.match_elements<write_log>());
  CHECK(without.request.get_as<write_log>(0).file.empty());
  CHECK(parse_request("<DYPER PID='DM' COMMAND='LOG'><LOG PATH='x'/></DYPER>").error);
  CHECK(print_request("DM", caf::make_message(write_log{"x.log"})) ==
        "<DYPER PID='DM' COMMAND='LOG'><LOG FILE='x.log'/></DYPER>");
  CHECK(print_reply("DM", caf::make_message(log_written{"x.log", 42})) ==
        "<DYPER_REPLY ID='DM'><LOG FILE='x.log' BYTES='42'/></DYPER_REPLY>");
}

TEST_CASE("EVIDENCE: a focus on a file carries FILE, the /File root leaves it out", "[xml]") {
  auto text = dm("EVIDENCE",
                 "<EVIDENCE SEARCH='0' TIME='1.5' EVICTED='0'>"
                 "<AT CODE='/Code/app/write_log' MACHINE='/Machine' SYNCOBJECT='/SyncObject' "
                 "FILE='/File/tmp/db'><P PID='7' N='40' RUNS='0' RUNS_MOST='0' SYNCS='0' "
                 "SYNCS_MOST='0' IOS='38' IOS_MOST='1' OPS='400' BYTES='6400' FIRST='0.5' "
                 "LAST='1.5'/></AT>"
                 "<AT CODE='/Code' MACHINE='/Machine' SYNCOBJECT='/SyncObject'></AT>"
                 "</EVIDENCE>");
  auto e = parsed<evidence_note>(text);
  REQUIRE(e.foci.size() == 2);
  CHECK(e.foci[0].file == "/File/tmp/db");
  CHECK(e.foci[0].processes.at(0).io_ops == 400);
  CHECK(e.foci[1].file == "/File");  // absent: the root
  CHECK(print_request("DM", caf::make_message(e)) == text);
}

TEST_CASE("EVIDENCE: a daemon's process carries HOST, the engine's own leaves it out", "[xml]") {
  // Two processes of pid 1 (two hosts' containers): told apart by their host.
  auto text = dm("EVIDENCE",
                 "<EVIDENCE SEARCH='0' TIME='2' EVICTED='0'>"
                 "<AT CODE='/Code' MACHINE='/Machine' SYNCOBJECT='/SyncObject'>"
                 "<P PID='1' HOST='hA' N='40' RUNS='40' RUNS_MOST='1' SYNCS='0' SYNCS_MOST='0' "
                 "IOS='0' IOS_MOST='0' OPS='0' BYTES='0' FIRST='1' LAST='2'/>"
                 "<P PID='1' HOST='hB' N='30' RUNS='30' RUNS_MOST='1' SYNCS='0' SYNCS_MOST='0' "
                 "IOS='0' IOS_MOST='0' OPS='0' BYTES='0' FIRST='1' LAST='2'/>"
                 "<P PID='1' N='20' RUNS='0' RUNS_MOST='0' SYNCS='0' SYNCS_MOST='0' "
                 "IOS='0' IOS_MOST='0' OPS='0' BYTES='0' FIRST='1' LAST='2'/>"
                 "</AT></EVIDENCE>");
  auto e = parsed<evidence_note>(text);
  REQUIRE(e.foci.size() == 1);
  REQUIRE(e.foci[0].processes.size() == 3);
  CHECK(e.foci[0].processes[0].host == "hA");
  CHECK(e.foci[0].processes[1].host == "hB");
  CHECK(e.foci[0].processes[1].ticks == 30);
  CHECK(e.foci[0].processes[2].host.empty());  // the engine's own
  CHECK(print_request("DM", caf::make_message(e)) == text);
}
