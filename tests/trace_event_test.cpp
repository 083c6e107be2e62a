// Trace export as plain functions (trace/): the Chrome Trace Event writer and the conversion
// of `perfdm log` rows. The files themselves are checked with a JSON parser by
// tests/browser/trace_test.mjs (ctest dashboard.trace).
#include <catch2/catch.hpp>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "trace/log_trace.hpp"
#include "trace/trace_event_writer.hpp"

using namespace perfdm;

TEST_CASE("trace: JSON strings and numbers", "[trace]") {
  auto name_event = [](std::string_view name) {
    std::ostringstream out;
    trace_event_writer w(out);
    w.process_name(1, name);
    w.finish();
    const std::string text = out.str();
    const std::string before = "\"args\":{\"name\":";
    const auto at = text.find(before) + before.size();
    return text.substr(at, text.find("}}", at) - at);
  };
  CHECK(name_event("a\"b\\c\nd\te\x01") == "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
  CHECK(name_event("/Process/w{7}") == "\"/Process/w{7}\"");
  // Backspace and form feed in their short forms; a byte that is not UTF-8 as U+FFFD; UTF-8
  // as it is.
  CHECK(name_event("\b\f") == "\"\\b\\f\"");
  CHECK(name_event("a\xff" "b") == "\"a\xef\xbf\xbd" "b\"");
  CHECK(name_event("caf\xc3\xa9") == "\"caf\xc3\xa9\"");
  CHECK(json_number(0.1 + 0.2) == "0.30000000000000004");
  CHECK(json_number(400000) == "400000");
  CHECK(json_number(-2.5e-7) == "-2.5e-07");
  CHECK(json_number(1.7e15) == "1.7e+15");
}

TEST_CASE("trace: events, and values that are not finite left out", "[trace]") {
  std::ostringstream out;
  {
    trace_event_writer w(out);
    w.process_name(7, "work \"x\"");
    w.thread_name(7, 8, "thread 8");
    w.counter(7, "m", 0.5, 3);
    w.counter(7, "m", 0.75, std::numeric_limits<double>::quiet_NaN());
    w.slice(1, 1, "busy", 0.25, 1.5);
    CHECK(w.events() == 4);
    w.finish({{"source", "test"}});
  }
  CHECK(out.str() ==
        "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":7,\"tid\":0,\"args\":{\"name\":\"work "
        "\\\"x\\\"\"}},\n"
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":7,\"tid\":8,\"args\":{\"name\":\"thread "
        "8\"}},\n"
        "{\"ph\":\"C\",\"name\":\"m\",\"pid\":7,\"tid\":0,\"ts\":500000,\"args\":{\"value\":3}},\n"
        "{\"ph\":\"X\",\"name\":\"busy\",\"cat\":\"perfdm\",\"pid\":1,\"tid\":1,\"ts\":250000,"
        "\"dur\":1500000}\n"
        "],\"otherData\":{\"source\":\"test\"}}\n");
}

TEST_CASE("trace: rows of perfdm log become phases, processes and counter tracks", "[trace]") {
  CHECK(process_of_resource("/Process/perfdm_workload{4711}/work") == 4711);
  CHECK(process_of_resource("/Process/app") == 0);
  CHECK(process_of_resource("/Code/x{1}") == 0);
  log_trace_builder b;
  log_trace_row row;
  for (const char* line : {
           "dm\t1\tstart\t0\tphase 0 phase_0",
           "dm\t1\tend\t0.4\tphase 0 phase_0",
           "dm\t2\tstart\t0.4\tphase 1 busy",
           "dm\t2\tend\t-1\tphase 1 busy",
           "dm\t3\tnow\t1\tengine",
           "dm\t4\tid\t2\tresource /Process/w{9}",
           "dm\t5\tid\t3\tresource /Process/w{9}/10",
           "dm\t6\tid\t0\tmi 0 work.requests /Process/w{9}",
           "dm\t7\tstart\t0\thistogram 0 GLOBAL",
           "dm\t7\twidth\t0.2\thistogram 0 GLOBAL",
           "dm\t7\tbucket.2\t5\thistogram 0 GLOBAL",
           "dm\t7\tbucket.0\t3\thistogram 0 GLOBAL",
       }) {
    REQUIRE(parse_log_row(line, "dm", row));
    b.add(row);
  }
  CHECK_FALSE(parse_log_row("# comment", "dm", row));
  CHECK_FALSE(parse_log_row("frames\t1\tx\t2\ty", "dm", row));
  CHECK_FALSE(parse_log_row("dm\t1\tx\tabc\ty", "dm", row));
  std::ostringstream out;
  trace_event_writer w(out);
  CHECK(b.write(w) == 2);
  w.finish();
  auto text = out.str();
  CHECK(text.find("\"name\":\"session\",\"cat\":\"perfdm\",\"pid\":1,\"tid\":1,\"ts\":0,"
                  "\"dur\":1000000}") != std::string::npos);
  CHECK(text.find("\"name\":\"busy\",\"cat\":\"perfdm\",\"pid\":1,\"tid\":1,\"ts\":400000,"
                  "\"dur\":600000}") != std::string::npos);  // the current phase ends at now
  CHECK(text.find("\"name\":\"process_name\",\"pid\":9,\"tid\":0,\"args\":{\"name\":\"w{9}\"}") !=
        std::string::npos);
  CHECK(text.find("\"name\":\"thread_name\",\"pid\":9,\"tid\":10,") != std::string::npos);
  // Buckets in order, in the process of the focus; the empty bucket 1 is a gap.
  auto first = text.find(
      "\"name\":\"MI 0 work.requests @ /Process/w{9} (GLOBAL)\",\"pid\":9,"
      "\"tid\":0,\"ts\":0,\"args\":{\"value\":3}}");
  auto second = text.find("\"ts\":400000,\"args\":{\"value\":5}}");
  CHECK(first != std::string::npos);
  CHECK(second != std::string::npos);
  CHECK(first < second);
}

TEST_CASE("trace: every event reads back with nlohmann-json, field by field", "[trace][json]") {
  std::ostringstream out;
  {
    trace_event_writer w(out);
    w.process_name(4711, "w{9} \"x\"");
    w.thread_name(4711, 4712, "worker");
    w.counter(4711, "MI 0 [] @ /Process/w{9}", 1.7e9, 0.1 + 0.2, "bytes");
    w.slice(1, 1, "phase [1]", 0.25, 1.5, "phases");
    w.slice(1, 1, "never ends", 0.5, std::numeric_limits<double>::quiet_NaN());
    w.finish({{"frames", "12"}, {"note", "],\"x\":[]"}});
  }
  const auto trace = nlohmann::json::parse(out.str());  // fails the test when it is no JSON
  CHECK(trace.at("displayTimeUnit") == "ms");
  const auto& events = trace.at("traceEvents");
  REQUIRE(events.size() == 5);
  CHECK(events[0] == nlohmann::json::parse(
                         R"({"ph":"M","name":"process_name","pid":4711,"tid":0,)"
                         R"("args":{"name":"w{9} \"x\""}})"));
  CHECK(events[1].at("name") == "thread_name");
  CHECK(events[1].at("tid") == 4712);
  CHECK(events[1].at("args").at("name") == "worker");
  CHECK(events[2].at("ph") == "C");
  CHECK(events[2].at("name") == "MI 0 [] @ /Process/w{9}");
  CHECK(events[2].at("ts").get<double>() == 1.7e15);
  CHECK(events[2].at("args").at("bytes").get<double>() == 0.1 + 0.2);
  CHECK(events[3] == nlohmann::json::parse(R"({"ph":"X","name":"phase [1]","cat":"phases",)"
                                           R"("pid":1,"tid":1,"ts":250000,"dur":1500000})"));
  // A duration that is not a number is null, so the file stays JSON.
  CHECK(events[4].at("ts") == 500000);
  CHECK(events[4].at("dur").is_null());
  CHECK(trace.at("otherData") == nlohmann::json{{"frames", "12"}, {"note", "],\"x\":[]"}});
  // Times in the trace's number form: printf's %.15g, not nlohmann-json's 1700000000000000.0.
  CHECK(out.str().find("\"ts\":1.7e+15,\"args\":{\"bytes\":0.30000000000000004}}") !=
        std::string::npos);
}
