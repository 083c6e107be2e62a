// Samples/s forwarded from a daemon-like sender to a central engine across CAF's network
// layer: two actor systems in one process, each with its own middleman, connected over
// 127.0.0.1 (the same serialisation, TCP and deserialisation as between two processes).
// - transport only: source_samples into a published sink actor that counts them;
// - end to end: into a published data manager, the sender registered as a component
//   (component aggregation, histogram, one stream subscribed), each batch acknowledged.
// Each in batches and with one message per sample, in the same run, so the ratio shows what
// batching buys. Results: bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include <atomic>
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <thread>

#include "actors/data_manager_actor.hpp"
#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/source_messages.hpp"
#include "messages/type_registry.hpp"

using namespace perfdm;

namespace {

std::atomic<std::uint64_t> sink_received{0};

caf::behavior counting_sink(caf::event_based_actor*) {
  return {[](source_samples& x) { sink_received += x.samples.size(); }};
}

caf::behavior discarding_stream_sink(caf::event_based_actor*) {
  return {[](data_event&) {},
          [](fold_event&) {},
          [](new_phase_event&) {},
          [](samplerate_event&) {},
          [](new_metric_event&) {},
          [](new_resource_event&) {},
          [](component_removed_event&) {},
          [](component_added_event&) {}};
}

struct config : caf::actor_system_config {
  config() {
    register_message_types(*this);
    load<caf::io::middleman>();
    set("logger.console", caf::atom("none"));
  }
};

// The central side (a published sink and a published data manager) and the daemon side.
struct network {
  config central_cfg, daemon_cfg;
  caf::actor_system central{central_cfg}, daemon{daemon_cfg};
  caf::actor dm;
  caf::actor sink_proxy, dm_proxy;  // as the daemon side sees them
  mi_handle mi;

  network() {
    auto sink = central.spawn(counting_sink);
    dm = spawn_data_manager(central);
    {
      caf::scoped_actor self{central};
      auto fail = [](caf::error& e) { throw std::runtime_error(dm_error_reason(e)); };
      self->request(dm, caf::infinite, define_metric{"m", metric_style::counter, ""})
          .receive([](metric_info&) {}, fail);
      self->request(dm, caf::infinite, open_stream{central.spawn(discarding_stream_sink)})
          .receive([](stream_opened&) {}, fail);
      self->request(dm, caf::infinite, enable_request{stream_handle{0}, "m", {}, phase_ref{}, {}})
          .receive([&](mi_info& x) { mi = x.id; },
                   [](caf::error& e) { throw std::runtime_error(dm_error_reason(e)); });
    }
    sink_proxy = connect(sink);
    dm_proxy = connect(dm);
  }

  caf::actor connect(const caf::actor& a) {
    auto port = central.middleman().publish(a, 0, "127.0.0.1");
    if (!port) throw std::runtime_error(central.render(port.error()));
    auto proxy = daemon.middleman().remote_actor("127.0.0.1", *port);
    if (!proxy) throw std::runtime_error(daemon.render(proxy.error()));
    return *proxy;
  }
};

network& net() {
  static network n;
  return n;
}

std::vector<sample> batch_of(mi_handle mi, std::size_t n, double& t) {
  std::vector<sample> out(n);
  for (auto& s : out) {
    s = sample{mi, t, t + 1e-6, 1};
    t += 1e-6;
  }
  return out;
}

// Transport only: `per_message` samples per source_samples, 2^20 (or 2^14 for one per
// message) samples per iteration, until the sink counted them all.
void BM_forward_to_sink(benchmark::State& state) {
  auto& n = net();
  const auto per_message = static_cast<std::size_t>(state.range(0));
  const std::size_t total = per_message == 1 ? (1u << 14) : (1u << 20);
  double t = 0;
  auto batch = batch_of(mi_handle{0}, per_message, t);
  caf::scoped_actor self{n.daemon};
  for (auto _ : state) {
    auto target = sink_received.load() + total;
    for (std::size_t sent = 0; sent < total; sent += per_message)
      self->send(n.sink_proxy, source_samples{batch});
    while (sink_received.load() < target) std::this_thread::yield();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * total));
  state.counters["samples/msg"] = static_cast<double>(per_message);
}
BENCHMARK(BM_forward_to_sink)
    ->Arg(1)
    ->Arg(256)
    ->Arg(1024)
    ->Arg(2048)
    ->Arg(4096)
    ->Arg(8192)
    ->Arg(65536)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// End to end: into the data manager as a component, every batch acknowledged (samples_ack).
void BM_forward_to_dm(benchmark::State& state) {
  auto& n = net();
  const auto per_message = static_cast<std::size_t>(state.range(0));
  const std::size_t total = per_message == 1 ? (1u << 12) : (1u << 19);
  caf::scoped_actor self{n.daemon};
  self->send(n.dm_proxy, source_register{caf::actor_cast<caf::actor>(self), "bench:1"});
  self->receive([](source_update&) {});
  static double t = 0;  // samples go on in time across runs: the component never goes back
  std::uint64_t taken = 0;
  for (auto _ : state) {
    std::size_t messages = 0;
    for (std::size_t sent = 0; sent < total; sent += per_message, ++messages)
      self->send(n.dm_proxy, source_samples{batch_of(n.mi, per_message, t)});
    for (std::size_t i = 0; i < messages; ++i)
      self->receive([&](samples_ack& a) { taken += a.count; },
                    [](caf::error& e) { throw std::runtime_error(dm_error_reason(e)); });
  }
  self->send(n.dm_proxy, source_unregister{caf::actor_cast<caf::actor>(self)});
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * total));
  state.counters["samples/msg"] = static_cast<double>(per_message);
  state.counters["taken"] = static_cast<double>(taken);
}
BENCHMARK(BM_forward_to_dm)
    ->Arg(1)
    ->Arg(1024)
    ->Arg(4096)
    ->Arg(8192)
    ->Arg(65536)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

// Both actor systems live until the process ends: tearing down two middlemen connected to
// each other at static destruction is not something CAF 0.17 does cleanly.
int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::fflush(nullptr);
  std::_Exit(0);
}
