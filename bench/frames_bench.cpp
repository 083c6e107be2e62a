// Frames (docs/FRAMES.md): the cost of a write in the observed program and the reader's
// throughput, for 32-byte frames (perfdm_seq, perfdm_time, two u64 counters), with peers
// measured in the same run:
//   BM_write_not_observing    perfdm_write_bench32 while perfdm does not observe (target <= 1 ns)
//   BM_write_observing        the same while observing, one thread, no reader (target <= 5 ns)
//   BM_write_observing_reader_clock  the same frame and loop, generated with --clock reader
//                             (perfdm_time copied from the header, no rdtsc; bench32r)
//   BM_write_observing_read   the same with a reader thread polling the segment meanwhile
//   BM_rdtsc                  the timestamp alone, which every observed write pays
//   BM_spsc_push              boost::lockfree::spsc_queue of 32-byte frames in shared memory,
//                             a consumer thread popping meanwhile (a peer)
//   BM_lttng_no_session       an LTTng-UST tracepoint with the frame's payload, no session
//   BM_lttng_session          the same while a session of a private lttng-sessiond records it
//                             (both only when built with LTTng-UST, see bench/CMakeLists.txt)
//   BM_read                   frame_reader::poll over a full 1 Mi-frame lane (target >= 50 M/s)
//   BM_memcpy                 memcpy of the same 32 MiB: the bandwidth the reader is held to
#include <benchmark/benchmark.h>
#include <sys/mman.h>
#include <unistd.h>
#include <x86intrin.h>

#include <atomic>
#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/shared_memory_object.hpp>
#include <boost/lockfree/spsc_queue.hpp>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "frames_bench_frames.h"
#include "frames_bench_reader_frames.h"
#include "shm/frame_reader.hpp"
#include "shm/schema.hpp"
#include "shm/segment.hpp"
#include "shm/segment_format.hpp"

#ifdef PERFDM_BENCH_HAVE_LTTNG
#include "lttng_session.hpp"
#include "perfdm_bench_tp.h"
#endif

using namespace perfdm::shm;

namespace {

const frame_layout& bench_layout() {
  static const auto l = parse_schema_file(PERFDM_SOURCE_DIR "/bench/frames_bench.frames")[0];
  return l;
}

// A segment for this process, observed while it lives.
struct observed_segment {
  explicit observed_segment(segment_options o)
      : s(segment::create(::getpid(), segment::new_handle(), bench_layout(), o)) {
    perfdm_handle_bench32 = s.handle();
    perfdm_bench32_frame f{};
    perfdm_write_bench32(&f);  // start-observe, outside the timing
  }
  ~observed_segment() {
    perfdm_handle_bench32 = 0;
    perfdm_bench32_frame f{};
    perfdm_write_bench32(&f);  // end-observe
    s.remove();
  }
  segment s;
};

void BM_write_not_observing(benchmark::State& state) {
  perfdm_bench32_frame f{};
  std::uint64_t i = 0;
  for (auto _ : state) {
    PERFDM_bench32_SET_requests(&f, ++i);
    PERFDM_bench32_SET_bytes(&f, i * 64);
    perfdm_write_bench32(&f);
    benchmark::DoNotOptimize(f);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_write_not_observing);

void BM_write_observing(benchmark::State& state) {
  observed_segment seg({1, 1u << 16});
  perfdm_bench32_frame f{};
  std::uint64_t i = 0;
  for (auto _ : state) {
    PERFDM_bench32_SET_requests(&f, ++i);
    PERFDM_bench32_SET_bytes(&f, i * 64);
    perfdm_write_bench32(&f);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_write_observing);

const frame_layout& bench_reader_layout() {
  static const auto l = parse_schema_file(PERFDM_SOURCE_DIR "/bench/frames_bench_reader.frames")[0];
  return l;
}

void BM_write_observing_reader_clock(benchmark::State& state) {
  segment_options o{1, 1u << 16};
  o.clock = format::clock_reader;
  auto s = segment::create(::getpid(), segment::new_handle(), bench_reader_layout(), o);
  perfdm_handle_bench32r = s.handle();
  perfdm_bench32r_frame f{};
  perfdm_write_bench32r(&f);  // start-observe, outside the timing
  if (perfdm_mapping_bench32r == nullptr) state.SkipWithError("the writer refused the segment");
  std::uint64_t i = 0;
  for (auto _ : state) {
    PERFDM_bench32r_SET_requests(&f, ++i);
    PERFDM_bench32r_SET_bytes(&f, i * 64);
    perfdm_write_bench32r(&f);
  }
  perfdm_handle_bench32r = 0;
  perfdm_write_bench32r(&f);  // end-observe
  s.remove();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_write_observing_reader_clock);

void BM_write_observing_read(benchmark::State& state) {
  observed_segment seg({1, 1u << 16});
  frame_reader reader(seg.s.name());
  std::atomic<bool> stop{false};
  std::uint64_t sum = 0;
  std::thread poller([&] {
    while (!stop.load(std::memory_order_relaxed))
      reader.poll(
          [&](const std::byte* p, std::int64_t) { sum += static_cast<std::uint64_t>(p[16]); });
  });
  perfdm_bench32_frame f{};
  std::uint64_t i = 0;
  for (auto _ : state) {
    PERFDM_bench32_SET_requests(&f, ++i);
    PERFDM_bench32_SET_bytes(&f, i * 64);
    perfdm_write_bench32(&f);
  }
  stop = true;
  poller.join();
  const auto c = reader.counters();
  state.counters["read_fraction"] =
      c.read + c.lost ? static_cast<double>(c.read) / static_cast<double>(c.read + c.lost) : 0;
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_write_observing_read)->UseRealTime();

void BM_rdtsc(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(__rdtsc());
}
BENCHMARK(BM_rdtsc);

// The peer: a single-producer queue of the same frames, placed in a shared-memory segment.
using spsc_frames =
    boost::lockfree::spsc_queue<perfdm_bench32_frame, boost::lockfree::capacity<1u << 16>>;

void BM_spsc_push(benchmark::State& state) {
  namespace bip = boost::interprocess;
  const char* name = "perfdm.bench.spsc";
  bip::shared_memory_object::remove(name);
  bip::shared_memory_object shm(bip::create_only, name, bip::read_write);
  shm.truncate(sizeof(spsc_frames));
  bip::mapped_region region(shm, bip::read_write);
  auto* q = new (region.get_address()) spsc_frames();
  std::atomic<bool> stop{false};
  std::uint64_t popped = 0;
  std::thread consumer([&] {
    perfdm_bench32_frame out[256];
    while (!stop.load(std::memory_order_relaxed)) popped += q->pop(out, 256);
  });
  perfdm_bench32_frame f{};
  std::uint64_t i = 0, full = 0;
  for (auto _ : state) {
    f.perfdm_seq = ++i;
    f.perfdm_time = __rdtsc();
    f.requests = i;
    f.bytes = i * 64;
    if (!q->push(f)) ++full;
  }
  stop = true;
  consumer.join();
  state.counters["full_fraction"] = static_cast<double>(full) / static_cast<double>(i ? i : 1);
  q->~spsc_frames();
  bip::shared_memory_object::remove(name);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_spsc_push)->UseRealTime();

#ifdef PERFDM_BENCH_HAVE_LTTNG
// The LTTng-UST peer. LTTng-UST reads LTTNG_HOME (else HOME) once, when the program starts, to
// find the session daemon it registers with; main() therefore points both at a temporary folder
// and runs the program again, so the daemon started here is the one this process talks to.
constexpr const char* lttng_home_variable = "PERFDM_BENCH_LTTNG_HOME";
std::string lttng_home;  // empty: the with-session peer cannot run (lttng_error says why)
std::string lttng_error;
std::unique_ptr<perfdm::bench::lttng_session> lttng;

void use_private_lttng_home(char** argv) {
  if (const char* home = std::getenv(lttng_home_variable)) {
    lttng_home = home;
    return;
  }
  char folder[] = "/tmp/perfdm-bench-lttng-XXXXXX";
  if (!::mkdtemp(folder)) {
    lttng_error = std::string("cannot create a temporary LTTNG_HOME: ") + std::strerror(errno);
    return;
  }
  ::setenv(lttng_home_variable, folder, 1);
  ::setenv("LTTNG_HOME", folder, 1);
  ::setenv("HOME", folder, 1);
  ::execv("/proc/self/exe", argv);
  lttng_error = std::string("cannot run again with LTTNG_HOME set: ") + std::strerror(errno);
  std::filesystem::remove_all(folder);
}

void end_lttng() {
  lttng.reset();  // stops and destroys the session, ends the daemon
  if (!lttng_home.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(lttng_home, ignored);
  }
}

// Waits (bounded) until the session's enable reached this process's tracepoint.
bool tracepoint_becomes_enabled() {
  for (int i = 0; i < 400; ++i) {
    if (tracepoint_enabled(perfdm_bench, frame32)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

void BM_lttng_no_session(benchmark::State& state) {
  if (tracepoint_enabled(perfdm_bench, frame32)) {
    state.SkipWithError("a session records perfdm_bench:frame32; not the no-session case");
    return;
  }
  std::uint64_t i = 0;
  for (auto _ : state) {
    ++i;
    tracepoint(perfdm_bench, frame32, i, i * 64);
    benchmark::DoNotOptimize(i);  // as in BM_write_not_observing: the state is read each time
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_lttng_no_session);

void BM_lttng_session(benchmark::State& state) {
  if (!lttng && lttng_error.empty()) {
    try {
      lttng = std::make_unique<perfdm::bench::lttng_session>(
          lttng_home, "perfdm-bench-" + std::to_string(::getpid()), "perfdm_bench");
      if (!tracepoint_becomes_enabled()) {
        lttng_error = "the session started but perfdm_bench:frame32 was not enabled within 20 s";
        lttng.reset();
      }
    } catch (const std::exception& e) {
      lttng_error = e.what();
    }
    if (!lttng) std::fprintf(stderr, "frames_bench: no LTTng session: %s\n", lttng_error.c_str());
  }
  if (!lttng) {
    state.SkipWithError(("no LTTng session: " + lttng_error).c_str());
    return;
  }
  const std::uint64_t discarded_before = lttng->discarded_events();
  std::uint64_t i = 0;
  for (auto _ : state) {
    ++i;
    tracepoint(perfdm_bench, frame32, i, i * 64);
    benchmark::DoNotOptimize(i);
  }
  // In discard mode a full buffer drops the event, which is cheaper than recording it.
  const std::uint64_t discarded = lttng->discarded_events() - discarded_before;
  state.counters["discarded_fraction"] =
      static_cast<double>(discarded) / static_cast<double>(i ? i : 1);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_lttng_session);
#endif

constexpr std::uint32_t read_capacity = 1u << 20;  // 32 MiB of frames in one lane

void BM_read(benchmark::State& state) {
  observed_segment seg({1, read_capacity});
  frame_reader reader(seg.s.name());
  std::uint64_t sum = 0;
  perfdm_bench32_frame f{};
  for (auto _ : state) {
    state.PauseTiming();
    for (std::uint32_t i = 0; i < read_capacity; ++i) {
      PERFDM_bench32_SET_requests(&f, i);
      perfdm_write_bench32(&f);
    }
    state.ResumeTiming();
    const auto n = reader.poll([&](const std::byte* p, std::int64_t ns) {
      std::uint64_t v;
      std::memcpy(&v, p + 16, sizeof v);
      sum += v + static_cast<std::uint64_t>(ns);
    });
    if (n != read_capacity) state.SkipWithError("the reader missed frames");
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations() * read_capacity);
  state.SetBytesProcessed(state.iterations() * read_capacity * sizeof(perfdm_bench32_frame));
}
BENCHMARK(BM_read)->Unit(benchmark::kMillisecond);

void BM_memcpy(benchmark::State& state) {
  const std::size_t bytes = std::size_t(read_capacity) * sizeof(perfdm_bench32_frame);
  std::vector<char> from(bytes, 1), to(bytes, 0);
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.SetItemsProcessed(state.iterations() * read_capacity);
}
BENCHMARK(BM_memcpy)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
#ifdef PERFDM_BENCH_HAVE_LTTNG
  use_private_lttng_home(argv);
#else
  std::fprintf(stderr, "frames_bench: built without LTTng-UST; no LTTng peer\n");
#endif
  benchmark::Initialize(&argc, argv);
  const bool bad_arguments = benchmark::ReportUnrecognizedArguments(argc, argv);
  if (!bad_arguments) benchmark::RunSpecifiedBenchmarks();
#ifdef PERFDM_BENCH_HAVE_LTTNG
  end_lttng();
#endif
  return bad_arguments ? 1 : 0;
}
