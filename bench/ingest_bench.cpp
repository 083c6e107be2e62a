// Frames to histogram buckets, end to end: this process writes 32-byte frames (bench32, the
// component generated from bench/frames_bench.frames) from one thread at a set rate, while an
// engine in the same process has ATTACHed to it: the ingest actor reads the ring, turns each
// frame into samples for the metric instance collecting bench32.requests, and the data manager
// adds them to its histogram. Reported per rate: frames written, read, lost (overwritten
// before they were read), and whether the histogram holds exactly the frames read. The
// sustained rate is the highest with no loss.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <regex>
#include <sstream>
#include <thread>

#include <unistd.h>

#include "cli/xml_session.hpp"
#include "frames_bench_frames.h"

namespace {

using clock_type = std::chrono::steady_clock;

std::string dm(const std::string& command, const std::string& arg = "") {
  return "<DYPER PID='DM' COMMAND='" + command + "'>" + arg + "</DYPER>";
}

std::uint64_t attribute(const std::string& xml, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(xml, m, std::regex(" " + name + "='([0-9]+)'"))) return 0;
  return std::stoull(m[1].str());
}

struct engine {
  explicit engine(std::uint32_t capacity) : s(options()) {
    reply(dm("DEFINE", "<METRIC NAME='bench32.requests' STYLE='COUNTER'/>"));
    reply(dm("STREAM"));
    reply(dm("ENABLE", "<ENABLE STREAM='0' METRIC='bench32.requests'/>"));
    attached = reply(dm("ATTACH", "<PROCESS PID='" + std::to_string(getpid()) +
                                      "' CAPACITY='" + std::to_string(capacity) + "'/>"));
  }
  ~engine() { reply(dm("DETACH", "<PROCESS PID='" + std::to_string(getpid()) + "'/>")); }
  static perfdm::session_options options() {
    perfdm::session_options o;
    o.deterministic = false;
    return o;
  }
  std::string reply(const std::string& xml) {
    std::string out;
    s.run_line(xml, [&](const perfdm::session_line& l) {
      if (l.kind != perfdm::session_line::event) out = l.xml;
    });
    return out;
  }
  double histogram_total() {
    auto data = reply(dm("DATA", "<DATA MI='0'/>"));
    std::smatch m;
    double total = 0;
    if (!std::regex_search(data, m, std::regex(">([^<]*)</HISTOGRAM>"))) return total;
    std::istringstream in(m[1].str());
    std::string v;
    while (in >> v)
      if (v != "nan") total += std::stod(v);
    return total;
  }
  perfdm::session s;
  std::string attached;
};

// Writes `rate` frames per second (0: as fast as possible) for `seconds`; returns how many.
std::uint64_t write_frames(double rate, double seconds) {
  auto start = clock_type::now();
  auto end = start + std::chrono::duration<double>(seconds);
  std::uint64_t n = 0;
  perfdm_bench32_frame f{};
  for (;;) {
    for (int i = 0; i < 256; ++i) {
      PERFDM_bench32_SET_requests(&f, 1);
      PERFDM_bench32_SET_bytes(&f, 32);
      perfdm_write_bench32(&f);
    }
    n += 256;
    auto now = clock_type::now();
    if (now >= end) break;
    if (rate > 0) {
      auto due = start + std::chrono::duration<double>(static_cast<double>(n) / rate);
      if (due > now) std::this_thread::sleep_until(due);
    }
  }
  return n;
}

void BM_frames_to_histogram(benchmark::State& state) {
  const double rate = static_cast<double>(state.range(0));
  const auto capacity = static_cast<std::uint32_t>(state.range(1));
  engine e(capacity);
  if (e.attached.find("FRAMES='bench32'") == std::string::npos) {
    state.SkipWithError(("ATTACH failed: " + e.attached).c_str());
    return;
  }
  std::uint64_t written = 0;
  double seconds = 0;
  for (auto _ : state) {
    auto t0 = clock_type::now();
    written = write_frames(rate, 2.0);
    seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
    state.SetIterationTime(seconds);
  }
  // Everything written is read or counted lost, and the samples reach the histogram.
  std::uint64_t read = 0, lost = 0;
  auto deadline = clock_type::now() + std::chrono::seconds(30);
  double total = 0;
  while (clock_type::now() < deadline) {
    auto frames = e.reply(dm("FRAMES"));
    read = attribute(frames, "READ");
    lost = attribute(frames, "LOST");
    total = e.histogram_total();
    if (read + lost >= written && total >= static_cast<double>(read) - 0.5) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  state.counters["written/s"] = static_cast<double>(written) / seconds;
  state.counters["read"] = static_cast<double>(read);
  state.counters["lost"] = static_cast<double>(lost);
  state.counters["in_histogram"] = total;
  state.counters["exact"] = std::fabs(total - static_cast<double>(read)) < 0.5 ? 1 : 0;
}

}  // namespace

// Rates from 1 M to 32 M frames/s and unlimited (0), with the default lane of 4096 frames and a
// larger one of 65536.
BENCHMARK(BM_frames_to_histogram)
    ->ArgsProduct({{1'000'000, 4'000'000, 8'000'000, 16'000'000, 32'000'000, 0}, {4096, 65536}})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kSecond);

BENCHMARK_MAIN();
