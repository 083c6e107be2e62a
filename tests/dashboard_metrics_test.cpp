// GET /metrics of perfdm engine --http: the Prometheus text exposition (http/prometheus_text.*)
// as plain functions, then from a real engine, checked by `promtool check metrics` when
// Debian's prometheus package is installed (scripts/setup.sh installs it).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <limits>

#include "http/prometheus_text.hpp"
#include "http/static_files.hpp"
#include "tests/dashboard_test_support.hpp"
#include "tests/skip_test.hpp"

using namespace perfdm;
using namespace perfdm::dashboard_test;
using gateway_test::dm;

namespace {

// The value of the sample line `series` (name and labels exactly), or NaN if absent.
double sample(const std::string& text, const std::string& series) {
  auto at = text.find("\n" + series + " ");
  if (at == std::string::npos) return std::numeric_limits<double>::quiet_NaN();
  return std::stod(text.substr(at + series.size() + 2));
}

}  // namespace

TEST_CASE("prometheus: latest completed bucket and running total of a DATA histogram",
          "[dashboard][prometheus]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  prometheus_histogram h;
  summarise_buckets({2, nan, 1.5, 0.25}, h);  // 0.25: the bucket still filling
  CHECK(h.has_latest);
  CHECK(h.latest == 1.5);
  CHECK(h.total == 3.75);
  summarise_buckets({4}, h);  // only the filling bucket: nothing completed yet
  CHECK_FALSE(h.has_latest);
  CHECK(h.total == 4);
  summarise_buckets({1, nan, 7}, h);
  CHECK(std::isnan(h.latest));  // an empty completed bucket
}

TEST_CASE("prometheus: families, labels escaped, numbers that read back exactly",
          "[dashboard][prometheus]") {
  prometheus_snapshot s;
  s.clock = 0.1 + 0.2;
  s.interval = 0.2;
  s.clients = 3;
  s.metric_instances = 2;
  prometheus_histogram counter;
  counter.metric = "work.requests";
  counter.focus = "/Process/a\"b\\c{1}";
  counter.phase = "global";
  counter.counter = true;
  counter.width = 0.4;
  counter.has_latest = true;
  counter.latest = 12;
  counter.total = 1e20;
  prometheus_histogram sampled = counter;
  sampled.metric = "work.latency_us";
  sampled.counter = false;
  sampled.phase = "busy\nphase";
  sampled.latest = std::numeric_limits<double>::quiet_NaN();
  s.histograms = {counter, sampled};
  s.frames = {{"/Process/w{7}", "work", 10, 2, 1}};
  auto unasked = prometheus_exposition(s);
  CHECK(unasked.find("# TYPE perfdm_bucket_value gauge\n") != std::string::npos);
  CHECK(unasked.find("perfdm_samples") == std::string::npos);  // not asked
  s.has_samples = true;
  s.samples = 42;
  s.samples_dropped = 3;
  auto text = prometheus_exposition(s);
  const std::string labels =
      "metric=\"work.requests\",focus=\"/Process/a\\\"b\\\\c{1}\",phase=\"global\"";
  CHECK(text.find("# TYPE perfdm_bucket_value gauge\n") != std::string::npos);
  CHECK(text.find("# TYPE perfdm_value_total counter\n") != std::string::npos);
  CHECK(text.find("\nperfdm_bucket_value{" + labels + "} 12\n") != std::string::npos);
  CHECK(text.find("\nperfdm_value_total{" + labels + "} 1e+20\n") != std::string::npos);
  CHECK(text.find("phase=\"busy\\nphase\"} NaN\n") != std::string::npos);
  // Only COUNTER instances have a running total.
  CHECK(text.find("perfdm_value_total{metric=\"work.latency_us\"") == std::string::npos);
  CHECK(text.find("\nperfdm_engine_clock_seconds 0.30000000000000004\n") != std::string::npos);
  CHECK(text.find("\nperfdm_sampling_interval_seconds 0.2\n") != std::string::npos);
  CHECK(text.find("\nperfdm_clients 3\n") != std::string::npos);
  CHECK(text.find("\nperfdm_samples_total 42\n") != std::string::npos);
  CHECK(text.find("\nperfdm_samples_dropped_total 3\n") != std::string::npos);
  CHECK(text.find("\nperfdm_frames_lost_total{process=\"/Process/w{7}\",type=\"work\"} 2\n") !=
        std::string::npos);
}

TEST_CASE("dashboard: which file a URL names", "[dashboard][static]") {
  static_roots r{"/web", ""};
  CHECK(static_file_for(r, "/") == "/web/index.html");
  CHECK(static_file_for(r, "/app.js?x=1") == "/web/app.js");
  CHECK(static_file_for(r, "/panels/flame.js") == "/web/panels/flame.js");
  for (const char* bad : {"", "app.js", "/../etc/passwd", "/a/../../b", "/lib/chart.js/../x",
                          "/a//b", "/%2e%2e/x", "/a\\b", "/./a", "/lib/chart.js/"})
    CHECK_FALSE(static_file_for(r, bad));
  // The page's chart libraries: from node_modules/<package>/dist in a build, from the web
  // folder's lib/ once installed (no npm root then).
  CHECK(static_file_for(r, "/lib/d3/d3.min.js") == "/web/lib/d3/d3.min.js");
  CHECK(static_file_for(r, "/lib/chart.js/chart.min.js") == "/web/lib/chart.js/chart.min.js");
  static_roots built{"/web", "/npm"};
  CHECK(static_file_for(built, "/lib/d3-flame-graph/d3-flamegraph.umd.min.js") ==
        "/npm/d3-flame-graph/dist/d3-flamegraph.umd.min.js");
  CHECK(static_file_for(built, "/lib/chart.js/chart.min.js") == "/npm/chart.js/dist/chart.min.js");
  CHECK(static_file_for(built, "/app.js") == "/web/app.js");
  for (const char* bad : {"/lib/d3", "/lib/d3/../../x", "/lib/../d3/x", "/lib//x", "/lib/d3/",
                          "/node_modules/d3/package.json"})
    CHECK_FALSE(static_file_for(built, bad));
  CHECK(content_type_for("/w/app.js") == "text/javascript; charset=utf-8");
  CHECK(content_type_for("/w/index.html") == "text/html; charset=utf-8");
}

TEST_CASE("dashboard: GET /metrics gives every enabled MI's latest bucket and running total",
          "[dashboard][prometheus]") {
  engine_process engine("metrics");
  gateway_test::client c(engine.tcp_port());
  c.ask(dm("STREAM"));
  c.ask(dm("DEFINE", "<METRIC NAME='cpu' STYLE='COUNTER' UNITS='s'/>"));
  c.ask(dm("DEFINE", "<METRIC NAME='rss' STYLE='SAMPLED' UNITS='bytes'/>"));
  c.ask(dm("DEFINE", "<RESOURCE NAME='/Process/app'/>"));
  c.ask(dm("ENABLE", "<ENABLE STREAM='0' METRIC='cpu'/>"));
  c.ask(dm("ENABLE", "<ENABLE STREAM='0' METRIC='rss' FOCUS='/Process/app' PHASE='CURRENT'/>"));
  auto before = http_request(engine.http_port(), "/metrics");
  REQUIRE(before.status == 200);
  CHECK(sample(before.body, "perfdm_samples_total") == 0);
  CHECK(sample(before.body, "perfdm_samples_dropped_total") == 0);
  c.ask(dm("SAMPLES",
           "<SAMPLES><S MI='0' START='0' END='0.2' VALUE='3'/><S MI='0' START='0.2' END='0.4' "
           "VALUE='5'/><S MI='0' START='0.4' END='0.5' VALUE='1'/><S MI='1' START='0' "
           "END='0.5' VALUE='100'/></SAMPLES>"));
  c.ask(dm("PHASE", "<PHASE NAME='busy'/>"));
  auto answer = http_request(engine.http_port(), "/metrics");
  REQUIRE(answer.status == 200);
  CHECK(answer.content_type == "text/plain; version=0.0.4; charset=utf-8");
  auto& text = answer.body;
  const std::string cpu = "{metric=\"cpu\",focus=\"/\",phase=\"global\"}";
  CHECK(sample(text, "perfdm_bucket_value" + cpu) == 5);  // bucket 1; bucket 2 still fills
  CHECK(sample(text, "perfdm_value_total" + cpu) == 9);
  CHECK(sample(text, "perfdm_bucket_width_seconds" + cpu) == 0.2);
  CHECK(text.find("metric=\"rss\"") == std::string::npos);  // its current histogram is archived
  CHECK(sample(text, "perfdm_metric_instances") == 1);
  CHECK(sample(text, "perfdm_clients") == 1);  // the TCP client
  CHECK(sample(text, "perfdm_samples_total") == 4);
  CHECK(sample(text, "perfdm_samples_dropped_total") == 0);
  CHECK(text.find("# TYPE perfdm_samples_total counter\n") != std::string::npos);

  // The counters grow with every sample taken in: one more applied, and one for an MI that
  // keeps its data but no longer collects (PERSISTENT_DATA, then DISABLE) dropped; a refused
  // SAMPLES (an MI that does not exist, H4) counts in neither.
  auto kept = c.ask(dm("ENABLE", "<ENABLE STREAM='0' METRIC='rss' PERSISTENT_DATA='true'/>"));
  auto id_at = kept.find("<MI ID='");
  REQUIRE(id_at != std::string::npos);
  auto kept_mi = kept.substr(id_at + 8, kept.find('\'', id_at + 8) - id_at - 8);
  CHECK(c.ask(dm("DISABLE", "<DISABLE STREAM='0' MI='" + kept_mi + "'/>")).find("ERROR=") ==
        std::string::npos);
  CHECK(c.ask(dm("SAMPLES", "<SAMPLES><S MI='0' START='0.5' END='0.6' VALUE='2'/><S MI='" +
                                kept_mi + "' START='0.5' END='0.6' VALUE='7'/></SAMPLES>")) ==
        "<DYPER_REPLY ID='DM'><OK COUNT='1' DROPPED='1'/></DYPER_REPLY>");
  CHECK(c.ask(dm("SAMPLES",
                 "<SAMPLES><S MI='0' START='0.6' END='0.7' VALUE='2'/><S MI='99' "
                 "START='0.6' END='0.7' VALUE='7'/></SAMPLES>"))
            .find("ERROR=") != std::string::npos);
  auto after = http_request(engine.http_port(), "/metrics");
  REQUIRE(after.status == 200);
  CHECK(sample(after.body, "perfdm_samples_total") == 5);
  CHECK(sample(after.body, "perfdm_samples_dropped_total") == 1);

  if (std::system("command -v promtool >/dev/null 2>&1") != 0)
    return skip_test("promtool is not installed: the exposition is not checked by it");
  auto file = temp_path("metrics.txt");
  {
    std::ofstream out(file);
    out << text;
  }
  auto output = temp_path("promtool.out");
  int status = std::system(("promtool check metrics < " + file + " > " + output + " 2>&1").c_str());
  INFO(slurp(output));
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  std::filesystem::remove(file);
  std::filesystem::remove(output);
}
