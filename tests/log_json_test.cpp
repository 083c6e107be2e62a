// JSON from nlohmann-json objects (log/json_dump.hpp) and `perfdm log --json`'s JSON Lines
// read back with nlohmann-json, field by field, one test per object kind. The bytes of each
// kind are fixed by tests/log_format_test.cpp and tests/log_partial_test.cpp.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "log/json_dump.hpp"
#include "log/log_core.hpp"
#include "log/log_counters.hpp"
#include "log/log_print.hpp"
#include "log/log_print_text.hpp"
#include "tests/log_test_files.hpp"

using namespace perfdm;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {

std::string dump(const ordered_json& value) {
  std::string out;
  append_json(out, value, &log_text::append_number<double>);
  return out;
}

void append_marked_real(std::string& out, double value) {
  out += "R";
  log_text::append_number(out, value);
}

constexpr std::uint32_t counters_id = 16;
constexpr std::uint32_t unknown_id = 40;

// A log with integers, reals of every form, names that are text, not printable or missing,
// a command line that is not UTF-8, and a module no printer knows.
std::string write_sample_log(const std::string& path) {
  log_core core;
  core.job().command_line = std::string("./app caf\xe9 \"q\"");
  core.job().host = "node17";
  core.job().start_ns = 1'700'000'000'000'000'000;
  core.job().end_ns = 1'700'000'012'500'000'000;
  core.job().metadata = {{"lib_ver", "3.4.4"}, {"empty", ""}};
  core.job().pids = {4242, 18446744073709551615ull};
  REQUIRE(core.register_module("COUNTERS", counters_id, 1, 1 << 16) == 1 << 16);
  REQUIRE(core.register_module("LATER", unknown_id, 1, 1 << 10) == 1 << 10);
  const auto v = core.lookup_id("V");
  const auto file = core.lookup_id("/data/in put.h5");
  const std::string odd("\x01obj", 4);
  const auto hidden = core.lookup_id(odd.data(), odd.size(), false);
  REQUIRE(core.add_counters(counters_id, file,
                            {log_counter::of(v, std::int64_t{-3}), log_counter::of(v, 5.0),
                             log_counter::of(v, 1e6), log_counter::of(v, 0.1 + 0.2),
                             log_counter::of(v, -0.0),
                             log_counter::of(v, std::numeric_limits<double>::quiet_NaN()),
                             log_counter::of(v, -std::numeric_limits<double>::infinity())}));
  REQUIRE(core.add_counters(counters_id, hidden, {log_counter::of(v, std::int64_t{7})}));
  REQUIRE(core.add_counters(counters_id, 12345, {log_counter::of(v, std::int64_t{8})}));
  REQUIRE(core.add_counters(unknown_id, file, {log_counter::of(v, std::int64_t{1})}));
  core.write(path);
  return odd;
}

struct printed {
  std::vector<std::string> lines;
  std::vector<json> objects;
};

printed print_json(const std::string& path) {
  log_printer_registry reg;
  reg.add(counters_id, "COUNTERS", 1, print_log_counters);
  log_print_options o;
  o.json = true;
  o.registry = &reg;
  std::ostringstream out;
  print_log(path, o, out);
  printed p;
  std::istringstream in(out.str());
  for (std::string l; std::getline(in, l);) {
    p.lines.push_back(l);
    p.objects.push_back(json::parse(l));  // throws, and fails the test, when a line is no JSON
  }
  return p;
}

std::vector<json> of_type(const printed& p, const std::string& type) {
  std::vector<json> r;
  for (const auto& o : p.objects) {
    if (o.at("type") == type) r.push_back(o);
  }
  return r;
}

}  // namespace

TEST_CASE("json dump: nlohmann-json's text, reals in the form given", "[log][json]") {
  const ordered_json value{{"s", "a\"b\\c\n\x01"},
                           {"i", -3},
                           {"u", std::numeric_limits<std::uint64_t>::max()},
                           {"b", true},
                           {"n", nullptr},
                           {"reals", {5.0, 1e6, 0.25, -0.0, 1e300}},
                           {"nested", {{"x", 0.5}, {"empty", ordered_json::object()}}},
                           {"list", ordered_json::array()}};
  const std::string text = dump(value);
  CHECK(text ==
        "{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"i\":-3,\"u\":18446744073709551615,\"b\":true,"
        "\"n\":null,\"reals\":[5,1e+06,0.25,-0,1e+300],\"nested\":{\"x\":0.5,\"empty\":{}},"
        "\"list\":[]}");
  // The same value as nlohmann-json reads it; only the reals' text differs from its dump().
  CHECK(json::parse(text) == json::parse(value.dump()));
  CHECK(value.dump().find("[5.0,1000000.0,") != std::string::npos);
  // Keys keep their order; the real writer is the caller's, and sees every finite real.
  std::string marked;
  append_json(marked, ordered_json{{"z", 2.5}, {"a", {1.0, 3}}}, &append_marked_real);
  CHECK(marked == "{\"z\":R2.5,\"a\":[R1,3]}");
  // A real that is not finite is null, as nlohmann-json writes it (JSON has no NaN).
  CHECK(dump(ordered_json{{"x", std::nan("")}, {"y", 1.0}}) == "{\"x\":null,\"y\":1}");
  // A string that is not UTF-8: U+FFFD, and the text stays JSON.
  const std::string bad = dump(ordered_json{{"k\xff", "v\xfe"}});
  CHECK(bad == "{\"k\xef\xbf\xbd\":\"v\xef\xbf\xbd\"}");
  CHECK(json::parse(bad).begin().key() == "k\xef\xbf\xbd");
}

TEST_CASE("log printer: every JSON Lines object reads back, field by field", "[log][json]") {
  const std::string path = log_test::temp_path("log_json_test", "sample.log");
  log_test::removed_on_exit cleanup{{path}};
  const std::string odd = write_sample_log(path);
  const printed p = print_json(path);
  REQUIRE(p.objects.size() == p.lines.size());
  REQUIRE(p.objects.size() > 10);

  SECTION("log") {
    const auto logs = of_type(p, "log");
    REQUIRE(logs.size() == 1);
    CHECK(p.objects.front() == logs[0]);  // the first line
    CHECK(logs[0].at("path") == path);
    CHECK(logs[0].at("format_version") == 1);
    CHECK(logs[0].at("byte_order") == "little-endian");
    CHECK(logs[0].at("compression") == "zlib");
    CHECK(logs[0].at("complete") == true);
  }
  SECTION("job") {
    const auto jobs = of_type(p, "job");
    REQUIRE(jobs.size() == 1);
    const json& j = jobs[0];
    CHECK(j.at("command_line") == "./app caf\xc3\xa9 \"q\"");  // 0xe9 read as Latin-1
    CHECK(j.at("host") == "node17");
    CHECK(j.at("start_ns").get<std::int64_t>() == 1'700'000'000'000'000'000);
    CHECK(j.at("end_ns").get<std::int64_t>() == 1'700'000'012'500'000'000);
    CHECK(j.at("metadata") ==
          json::parse(R"([{"key":"lib_ver","value":"3.4.4"},{"key":"empty","value":""}])"));
    REQUIRE(j.at("pids").size() == 2);
    CHECK(j.at("pids")[0].get<std::uint64_t>() == 4242);
    CHECK(j.at("pids")[1].get<std::uint64_t>() == 18446744073709551615ull);
  }
  SECTION("region") {
    const auto regions = of_type(p, "region");
    REQUIRE(regions.size() == 4);  // job, names, two modules
    std::vector<std::string> names;
    for (const auto& r : regions) {
      names.push_back(r.at("name"));
      CHECK(r.at("partial") == false);
      CHECK(r.at("offset").get<std::uint64_t>() > 0);
      CHECK(r.at("compressed_bytes").get<std::uint64_t>() > 0);
      CHECK(r.at("uncompressed_bytes").get<std::uint64_t>() > 0);
      CHECK(r.contains("names") == (r.at("id") == 1));
    }
    CHECK(names == std::vector<std::string>{"job", "names", "COUNTERS", "LATER"});
    CHECK(regions[1].at("names").get<std::uint64_t>() == 3);
    CHECK(regions[2].at("id") == counters_id);
    CHECK(regions[2].at("version") == 1);
  }
  SECTION("note") {
    const auto notes = of_type(p, "note");
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].at("text") == "module LATER (id 40) is unknown to this reader: skipped");
    CHECK(notes[0].at("module") == "LATER");
    CHECK(notes[0].at("module_id") == unknown_id);
    CHECK(notes[0].at("reason") == "unknown");
  }
  SECTION("row") {
    const auto rows = of_type(p, "row");
    REQUIRE(rows.size() == 9);  // the unknown module's row is not printed
    const std::string file_id = std::to_string(log_name_id("/data/in put.h5"));
    for (std::size_t i = 0; i < 7; ++i) {
      CHECK(rows[i].at("module") == "COUNTERS");
      CHECK(rows[i].at("record_id") == file_id);  // a string: a u64 does not fit a double
      CHECK(rows[i].at("counter") == "V");
      CHECK(rows[i].at("name") == "/data/in put.h5");
      CHECK_FALSE(rows[i].contains("name_hex"));
    }
    CHECK(rows[0].at("value").get<std::int64_t>() == -3);
    CHECK(rows[1].at("value").get<double>() == 5.0);
    CHECK(rows[2].at("value").get<double>() == 1e6);
    CHECK(rows[3].at("value").get<double>() == 0.1 + 0.2);  // every bit read back
    CHECK(rows[4].at("value").get<double>() == 0.0);  // -0: nlohmann-json reads it as 0
    CHECK(rows[5].at("value") == "nan");
    CHECK(rows[6].at("value") == "-inf");
    CHECK(rows[7].at("record_id") == std::to_string(log_name_id(odd)));
    CHECK(rows[7].at("name").is_null());
    CHECK(rows[7].at("name_hex") == "016f626a");
    CHECK(rows[7].at("value") == 7);
    CHECK(rows[8].at("record_id") == "12345");
    CHECK(rows[8].at("name").is_null());
    CHECK_FALSE(rows[8].contains("name_hex"));
    CHECK(rows[8].at("value") == 8);
    // The reals' text: the shortest form that reads back, as the text rows print it.
    std::string values;
    for (std::size_t i = 0; i < 7; ++i) {
      const auto& l = p.lines[p.lines.size() - 9 + i];
      const auto at = l.find("\"value\":");
      REQUIRE(at != std::string::npos);
      values += l.substr(at + 8, l.find(",\"name\"") - at - 8) + ' ';
    }
    CHECK(values == "-3 5 1e+06 0.30000000000000004 -0 \"nan\" \"-inf\" ");
  }
}
