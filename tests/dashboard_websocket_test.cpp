// The dashboard's server end to end: a real `perfdm engine --listen --http` process, a real
// WebSocket and HTTP clients on 127.0.0.1 (tests/dashboard_test_support.hpp).
#include <catch2/catch.hpp>

#include "tests/dashboard_test_support.hpp"

using namespace perfdm;
using namespace perfdm::dashboard_test;
using gateway_test::dm;

namespace {

// Every DM command, errors included: the walk-through session of docs/PROTOCOL.md.
const std::vector<std::string> every_command = gateway_test::walkthrough_and({
    "<DYPER PID='1234' COMMAND='WHORU'/>",
    dm("ENABLE", "<ENABLE STREAM='9' METRIC='cpu'/>"),
    "hello",
    dm("CLOSE", "<STREAM ID='0'/>"),
    dm("CLOSE", "<STREAM ID='0'/>"),
});

}  // namespace

TEST_CASE("dashboard: every command through the WebSocket answers as through TCP, byte for byte",
          "[dashboard][websocket]") {
  std::vector<std::string> over_ws, over_tcp;
  {
    engine_process engine("ws-every");
    ws_client ws(engine.http_port());
    for (auto& r : every_command) over_ws.push_back(ws.ask(r, &over_ws));
  }
  {
    engine_process engine("tcp-every");
    gateway_test::client tcp(engine.tcp_port());
    for (auto& r : every_command) over_tcp.push_back(tcp.ask(r, &over_tcp));
  }
  REQUIRE(over_tcp.size() > every_command.size());  // events as well as replies
  CHECK(over_ws == over_tcp);
  CHECK(over_ws == gateway_test::replayed(every_command));
}

TEST_CASE("dashboard: a WebSocket client's stream gets the events other clients cause (T1)",
          "[dashboard][websocket]") {
  engine_process engine("ws-events");
  ws_client ws(engine.http_port());
  gateway_test::client tcp(engine.tcp_port());
  CHECK(ws.ask(dm("STREAM")) == "<DYPER_REPLY ID='DM'><STREAM ID='0'/></DYPER_REPLY>");
  tcp.ask(dm("DEFINE", "<METRIC NAME='cpu' STYLE='COUNTER' UNITS='s'/>"));
  CHECK(ws.next() == "<DYPER NEWMETRIC='0' ID='0' NAME='cpu' STYLE='COUNTER' UNITS='s'/>");
}

TEST_CASE("dashboard: DATA events that follow each other reach a WebSocket merged, every value in order",
          "[dashboard][websocket]") {
  // The page's 20 live histograms were 1,000 messages a second (a DATA event per command, T2):
  // a WebSocket gets them merged (docs/DASHBOARD.md §2), as many values, fewer messages.
  engine_process engine("ws-merge");
  ws_client ws(engine.http_port());
  gateway_test::client tcp(engine.tcp_port());
  ws.ask(dm("STREAM"));
  ws.ask(dm("DEFINE", "<METRIC NAME='n' STYLE='COUNTER' UNITS=''/>"));
  ws.ask(dm("ENABLE", "<ENABLE STREAM='0' METRIC='n'/>"));
  // 100 commands sent without waiting for their replies, each completing a bucket.
  const int commands = 100;
  for (int i = 0; i < commands; ++i)
    tcp.send(dm("SAMPLES", "<SAMPLES><S MI='0' START='" + std::to_string(i * 0.2) + "' END='" +
                               std::to_string((i + 1) * 0.2) + "' VALUE='1'/></SAMPLES>"));
  for (int i = 0; i < commands; ++i) CHECK(tcp.next().text.find("<OK COUNT='1'") != std::string::npos);
  std::vector<int> buckets;
  int events = 0;
  const std::regex value("<V MI='0' PHASE='GLOBAL' BUCKET='(\\d+)' VALUE='1'/>");
  while (buckets.size() < static_cast<std::size_t>(commands)) {
    auto m = ws.next();
    REQUIRE(m.rfind("<DYPER DATA='0'>", 0) == 0);
    ++events;
    int n = 0;
    for (std::sregex_iterator it(m.begin(), m.end(), value), end; it != end; ++it, ++n)
      buckets.push_back(std::stoi((*it)[1]));
    CHECK(n >= 1);
    CHECK(n <= 50);
  }
  std::vector<int> expected(commands);  // the last sample ends bucket 99 too
  for (int i = 0; i < commands; ++i) expected[i] = i;
  CHECK(buckets == expected);
  CHECK(events < commands);
}

TEST_CASE("dashboard: a WebSocket client that goes has its streams closed (T3)",
          "[dashboard][websocket]") {
  engine_process engine("ws-t3");
  gateway_test::client tcp(engine.tcp_port());
  {
    ws_client ws(engine.http_port());
    ws.ask(dm("STREAM"));
    ws.ask(dm("DEFINE", "<METRIC NAME='cpu'/>"));
    CHECK(ws.ask(dm("ENABLE", "<ENABLE STREAM='0' METRIC='cpu'/>")).find("STATE='ACTIVE'") !=
          std::string::npos);
    REQUIRE(gateway_test::status_mis(tcp.ask(dm("STATUS"))).size() == 1);
    ws.close();
  }
  // The MI had no flag: its last user gone, it is deleted (D1).
  CHECK(eventually([&] { return gateway_test::status_mis(tcp.ask(dm("STATUS"))).empty(); }));
}

TEST_CASE("dashboard: a WebSocket message over the size limit closes that connection with 1009",
          "[dashboard][websocket][limits]") {
  engine_process engine("ws-limit");
  ws_client other(engine.http_port());
  // The limit is 1 MiB. The engine sends the close frame 1009 and closes the socket with the
  // rest of the message unread, so the kernel answers the client with a reset, which may
  // discard the close frame before the client reads it. Every such connection ends; the
  // frame is seen within a few tries.
  bool told_too_big = false;
  for (int attempt = 0; attempt < 5 && !told_too_big; ++attempt) {
    ws_client big(engine.http_port());
    try {
      big.send(std::string(2u << 20, 'x'));
    } catch (const std::exception&) {
    }
    CHECK_THROWS(big.next());
    told_too_big =
        big.close_reason().code == static_cast<std::uint16_t>(websocket::close_code::too_big);
  }
  CHECK(told_too_big);
  CHECK(other.ask(dm("PING")) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
  ws_client after(engine.http_port());
  CHECK(after.ask(dm("PING")) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
}

TEST_CASE("dashboard: connections over the limit are answered 503 and the others go on",
          "[dashboard][limits]") {
  engine_process engine("ws-flood", {"--http-max-connections", "3"});
  std::vector<std::unique_ptr<ws_client>> held;
  for (int i = 0; i < 3; ++i) held.push_back(std::make_unique<ws_client>(engine.http_port()));
  auto refused = http_request(engine.http_port(), "/");
  CHECK(refused.status == 503);
  CHECK(refused.body.find("too many connections") != std::string::npos);
  CHECK(held[0]->ask(dm("PING")) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
  held[2]->close();
  held.pop_back();
  CHECK(eventually([&] { return http_request(engine.http_port(), "/").status == 200; }));
}

TEST_CASE("dashboard: a WebSocket from another origin is refused", "[dashboard][limits]") {
  engine_process engine("ws-origin");
  CHECK_THROWS(ws_client(engine.http_port(), "http://elsewhere.example"));
  ws_client same(engine.http_port(), "http://127.0.0.1:" + std::to_string(engine.http_port()));
  CHECK(same.ask(dm("PING")) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
}

TEST_CASE("dashboard: the page, the charting library, and paths that leave their root",
          "[dashboard][http]") {
  engine_process engine("http-files");
  auto page = http_request(engine.http_port(), "/");
  CHECK(page.status == 200);
  CHECK(page.content_type == "text/html; charset=utf-8");
  CHECK(page.body.find("<script type=\"module\" src=\"/app.js\">") != std::string::npos);
  auto app = http_request(engine.http_port(), "/app.js");
  CHECK(app.status == 200);
  CHECK(app.content_type == "text/javascript; charset=utf-8");
  // The chart libraries the page loads, as npm installed them (web/package.json's perfdm.page).
  for (const char* library : {"/lib/chart.js/chart.min.js", "/lib/d3/d3.min.js",
                              "/lib/d3-flame-graph/d3-flamegraph.umd.min.js"}) {
    auto file = http_request(engine.http_port(), library);
    CHECK(file.status == 200);
    CHECK(file.content_type == "text/javascript; charset=utf-8");
    CHECK(page.body.find(std::string("<script src=\"") + library + "\" defer>") !=
          std::string::npos);
  }
  CHECK(http_request(engine.http_port(), "/lib/chart.js/chart.min.js").body.find("Chart.js") !=
        std::string::npos);
  CHECK(http_request(engine.http_port(), "/../CMakeLists.txt").status == 400);
  CHECK(http_request(engine.http_port(), "/lib/chart.js/../jquery/jquery.js").status == 400);
  CHECK(http_request(engine.http_port(), "/%2e%2e/CMakeLists.txt").status == 400);
  CHECK(http_request(engine.http_port(), "/nothing-here.js").status == 404);
  CHECK(http_request(engine.http_port(), "/", http::verb::post).status == 405);
  CHECK(http_request(engine.http_port(), "/", http::verb::head).status == 200);
}

TEST_CASE("dashboard: --http beyond loopback needs --http-insecure", "[dashboard][address]") {
  auto err = temp_path("insecure.err");
  auto run = [&](const std::string& extra) {
    auto command = std::string(PERFDM_BINARY) + " engine --http 0.0.0.0:0 " + extra + " --log " +
                   temp_path("insecure.log") + " </dev/null 2>" + err +
                   " & pid=$!; sleep 1; kill $pid 2>/dev/null; wait $pid";
    int status = std::system(("bash -c '" + command + "'").c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  CHECK(run("") == 1);
  CHECK(slurp(err).find("or add --http-insecure") != std::string::npos);
  run("--http-insecure");
  CHECK(slurp(err).find("dashboard on http://0.0.0.0:") != std::string::npos);
  std::filesystem::remove(err);
  std::filesystem::remove(temp_path("insecure.log"));
}

TEST_CASE("dashboard: when the engine stops, its WebSocket clients are told (1001)",
          "[dashboard][websocket]") {
  engine_process engine("ws-stop");
  ws_client ws(engine.http_port());
  ws.ask(dm("STREAM"));
  CHECK(engine.stop() == 0);  // SIGTERM: the log is written, the exit is clean
  CHECK_THROWS(ws.next());
  CHECK(ws.close_reason().code == static_cast<std::uint16_t>(websocket::close_code::going_away));
  CHECK(std::string(ws.close_reason().reason.c_str()) == "the engine stops");
}
