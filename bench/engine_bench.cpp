// Benchmarks of the engine through its actors:
// - samples/s through the actor path, batched SAMPLES requests vs one request per sample,
//   with a stream subscribed to every metric instance (the same run, so the ratio shows
//   what batching buys);
// - memory per metric instance (global and current histograms, actor included);
// - replay throughput in requests/s.
#include <benchmark/benchmark.h>

#include <malloc.h>

#include <atomic>
#include <sstream>

#include <caf/all.hpp>

#include "actors/data_manager_actor.hpp"
#include "dm/metric_instance_state.hpp"
#include "cli/xml_session.hpp"
#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/type_registry.hpp"

using namespace perfdm;

namespace {

// A client's connection: counts the data values its stream delivers.
std::atomic<std::uint64_t> values_received{0};

caf::behavior counting_sink(caf::event_based_actor*) {
  return {
      [](data_event& x) { values_received += x.values.size(); },
      [](fold_event&) {},
      [](samplerate_event&) {},
      [](new_phase_event&) {},
      [](new_metric_event&) {},
      [](new_resource_event&) {},
  };
}

// A live engine (work-stealing scheduler on both cores) with `mis` COUNTER metric
// instances, all enabled for GLOBAL and CURRENT on one stream.
struct live_engine {
  explicit live_engine(int mis) : sys(configure(cfg)), self(sys) {
    dm = spawn_data_manager(sys);
    auto sink = sys.spawn(counting_sink);
    ask(define_metric{"m", metric_style::counter, ""});
    ask(open_stream{sink});
    for (int i = 0; i < mis; ++i) {
      auto name = "/r" + std::to_string(i);
      ask(define_resource{name});
      ask(enable_request{stream_handle{0}, "m", {name}, phase_ref{phase_type::current, false, {}},
                         {}});
    }
  }
  ~live_engine() { self->send_exit(dm, caf::exit_reason::user_shutdown); }

  static caf::actor_system_config& configure(caf::actor_system_config& c) {
    configure_engine_system(c, false);  // what `perfdm engine` runs
    return c;
  }

  template <class T>
  caf::message ask(T x) {
    caf::message reply;
    self->request(dm, caf::infinite, std::move(x))
        .receive([](caf::error& e) { throw std::runtime_error(dm_error_reason(e)); },
                 caf::others >> [&](caf::message_view& m) -> caf::result<caf::message> {
                   reply = m.copy_content_to_message();
                   return caf::message{};
                 });
    return reply;
  }

  caf::actor_system_config cfg;
  caf::actor_system sys;
  caf::scoped_actor self;
  caf::actor dm;
};

constexpr int bench_mis = 8;
constexpr double sample_length = 0.01;  // seconds; every MI gets one sample per 10 ms

// Samples [t, t + 10 ms) for each MI in turn, starting at sample number `first`.
samples_request make_samples(std::uint64_t first, std::size_t n) {
  samples_request r;
  r.samples.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto k = first + i;
    double t = static_cast<double>(k / bench_mis) * sample_length;
    r.samples.push_back(sample{mi_handle{k % bench_mis}, t, t + sample_length, 1.0});
  }
  return r;
}

void BM_actor_path_batched(benchmark::State& state) {
  live_engine e(bench_mis);
  auto batch = static_cast<std::size_t>(state.range(0));
  std::uint64_t next = 0;
  values_received = 0;
  std::uint64_t taken = 0;
  for (auto _ : state) {
    // returns once every event of the batch is out
    taken += e.ask(make_samples(next, batch)).get_as<samples_ack>(0).count;
    next += batch;
  }
  if (taken != next) state.SkipWithError("samples were dropped");
  state.SetItemsProcessed(static_cast<std::int64_t>(next));
  state.counters["values_to_stream"] = static_cast<double>(values_received.load());
}
BENCHMARK(BM_actor_path_batched)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime();

// One SAMPLES request per sample, sent without waiting; the engine runs each to completion
// (sync with the MI, stream flush) as it would for any request. One round trip at the end.
void BM_actor_path_one_message_per_sample(benchmark::State& state) {
  live_engine e(bench_mis);
  std::uint64_t next = 0;
  constexpr std::size_t per_iteration = 1000;
  for (auto _ : state) {
    for (std::size_t i = 0; i < per_iteration; ++i) e.self->send(e.dm, make_samples(next + i, 1));
    e.ask(samplerate_query{});  // answered after every request before it
    next += per_iteration;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(next));
}
BENCHMARK(BM_actor_path_one_message_per_sample)->Unit(benchmark::kMillisecond)->UseRealTime();

// Heap bytes per metric instance with global and current histograms, actor included.
void BM_memory_per_metric_instance(benchmark::State& state) {
  for (auto _ : state) {
    constexpr int n = 2000;
    auto before = mallinfo2().uordblks;
    {
      live_engine e(0);
      auto base = mallinfo2().uordblks;
      for (int i = 0; i < n; ++i) {
        auto name = "/r" + std::to_string(i);
        e.ask(define_resource{name});
        e.ask(enable_request{stream_handle{0}, "m", {name}, phase_ref{phase_type::current, false, {}},
                             {}});
      }
      auto after = mallinfo2().uordblks;
      state.counters["bytes_per_mi_with_actor"] = static_cast<double>(after - base) / n;
    }
    benchmark::DoNotOptimize(before);
    for (auto style : {metric_style::counter, metric_style::sampled}) {
      metric_instance_state mi(mi_handle{0}, style);
      time_bases tb;
      tb.current_start = ns_per_second;
      mi.enable(stream_handle{0}, phase_type::current, {}, tb);
      state.counters[style == metric_style::counter ? "bytes_counter_mi_state"
                                                    : "bytes_sampled_mi_state"] =
          static_cast<double>(mi.memory_bytes());
    }
  }
}
BENCHMARK(BM_memory_per_metric_instance)->Iterations(1)->Unit(benchmark::kMillisecond);

// A replay session of `n` requests: samples, reads, status, phases, enables and disables.
std::string replay_file(int n) {
  std::ostringstream f;
  f << "<DYPER PID='DM' COMMAND='DEFINE'><METRIC NAME='m' STYLE='COUNTER'/></DYPER>\n"
    << "<DYPER PID='DM' COMMAND='STREAM'/>\n"
    << "<DYPER PID='DM' COMMAND='ENABLE'><ENABLE STREAM='0' METRIC='m' PHASE='CURRENT' "
       "PERSISTENT_DATA='true' PERSISTENT_COLLECTION='true'/></DYPER>\n";
  double t = 0;
  for (int i = 3; i < n; ++i) {
    switch (i % 10) {
      case 0: f << "<DYPER PID='DM' COMMAND='STATUS'/>\n"; break;
      case 1: f << "<DYPER PID='DM' COMMAND='DATA'><DATA MI='0' PHASE='CURRENT'/></DYPER>\n"; break;
      case 2: f << "<DYPER PID='DM' COMMAND='PHASE'/>\n"; break;
      default: {
        f << "<DYPER PID='DM' COMMAND='SAMPLES'><SAMPLES>";
        for (int k = 0; k < 10; ++k, t += 0.05)
          f << "<S MI='0' START='" << t << "' END='" << t + 0.05 << "' VALUE='1'/>";
        f << "</SAMPLES></DYPER>\n";
      }
    }
  }
  return f.str();
}

void BM_replay_throughput(benchmark::State& state) {
  auto file = replay_file(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    std::istringstream in(file);
    std::ostringstream out;
    replay(in, out, {});
    benchmark::DoNotOptimize(out.str().size());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(file.size()));
}
BENCHMARK(BM_replay_throughput)->Arg(2000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
