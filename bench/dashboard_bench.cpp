// The dashboard's server (perfdm engine --http) against the TCP gateway, in one engine
// process: stream events per second to a WebSocket client and to a TCP client receiving the
// same events at once, and the time of one GET /metrics scrape with 1,000 enabled metric
// instances. Results: bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "tests/dashboard_test_support.hpp"

using namespace perfdm;
using namespace perfdm::dashboard_test;
using gateway_test::dm;

namespace {

using clock_type = std::chrono::steady_clock;

// Every NEWRESOURCE event goes to every open stream: a driver defining resources makes the
// same events reach both clients.
void BM_stream_events_websocket_vs_tcp(benchmark::State& state) {
  const int events = static_cast<int>(state.range(0));
  engine_process engine("bench-events");
  ws_client ws(engine.http_port());
  gateway_test::client tcp(engine.tcp_port());
  ws.ask(dm("STREAM"));
  tcp.ask(dm("STREAM"));
  double ws_rate = 0, tcp_rate = 0;
  int round = 0;
  for (auto _ : state) {
    gateway_test::client driver(engine.tcp_port());
    std::atomic<bool> go{false};
    clock_type::time_point start;
    double ws_seconds = 0, tcp_seconds = 0;
    std::thread ws_reader([&] {
      while (!go) std::this_thread::yield();
      for (int i = 0; i < events; ++i) ws.next();
      ws_seconds = std::chrono::duration<double>(clock_type::now() - start).count();
    });
    std::thread tcp_reader([&] {
      while (!go) std::this_thread::yield();
      for (int i = 0; i < events; ++i) tcp.next();
      tcp_seconds = std::chrono::duration<double>(clock_type::now() - start).count();
    });
    start = clock_type::now();
    go = true;
    // Each DEFINE creates one resource (its parent /b<round> once, before the loop).
    driver.ask(dm("DEFINE", "<RESOURCE NAME='/b" + std::to_string(round) + "'/>"));
    std::string batch;
    for (int i = 1; i < events; ++i)
      batch += frame_message(dm("DEFINE", "<RESOURCE NAME='/b" + std::to_string(round) + "/r" +
                                              std::to_string(i) + "'/>"));
    driver.send_raw(batch);
    for (int i = 1; i < events; ++i) driver.next();
    ws_reader.join();
    tcp_reader.join();
    state.SetIterationTime(std::max(ws_seconds, tcp_seconds));
    ws_rate += events / ws_seconds;
    tcp_rate += events / tcp_seconds;
    ++round;
  }
  state.counters["websocket_events_per_s"] = ws_rate / round;
  state.counters["tcp_events_per_s"] = tcp_rate / round;
  state.counters["websocket_over_tcp"] = ws_rate / tcp_rate;
}
BENCHMARK(BM_stream_events_websocket_vs_tcp)
    ->Arg(20000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);

void BM_metrics_scrape(benchmark::State& state) {
  const int instances = static_cast<int>(state.range(0));
  engine_process engine("bench-scrape");
  gateway_test::client c(engine.tcp_port());
  c.ask(dm("STREAM"));
  c.ask(dm("DEFINE", "<METRIC NAME='cpu' STYLE='COUNTER' UNITS='s'/>"));
  std::string batch;
  for (int i = 0; i < instances; ++i) {
    batch += frame_message(dm("DEFINE", "<RESOURCE NAME='/r/n" + std::to_string(i) + "'/>"));
    batch += frame_message(
        dm("ENABLE", "<ENABLE STREAM='0' METRIC='cpu' FOCUS='/r/n" + std::to_string(i) + "'/>"));
  }
  c.send_raw(batch);
  for (int i = 0; i < 2 * instances;) i += c.next().kind == dyper_frame::reply;
  // Ten buckets of data for every instance.
  std::string samples;
  for (int i = 0; i < instances; ++i)
    for (int b = 0; b < 10; ++b)
      samples += "<S MI='" + std::to_string(i) + "' START='" + std::to_string(b * 0.2) + "' END='" +
                 std::to_string((b + 1) * 0.2) + "' VALUE='1'/>";
  c.ask(dm("SAMPLES", "<SAMPLES>" + samples + "</SAMPLES>"));
  std::size_t bytes = 0;
  for (auto _ : state) {
    auto answer = http_request(engine.http_port(), "/metrics");
    if (answer.status != 200) state.SkipWithError("GET /metrics failed");
    bytes = answer.body.size();
  }
  state.counters["exposition_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_metrics_scrape)->Arg(1000)->Unit(benchmark::kMillisecond)->Iterations(20);

}  // namespace

BENCHMARK_MAIN();
