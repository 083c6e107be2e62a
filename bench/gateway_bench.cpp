// Benchmarks of the DyPer gateway (actors/dyper_gateway_actor.cpp):
// - PING round trips/s over loopback TCP with 1 and 16 clients, each client waiting for its
//   reply before it sends the next request; side by side, in the same run, a minimal
//   raw-socket server (one thread per connection, blocking reads, a fixed reply per request)
//   measured with the same clients: the machine's limit for this pattern;
// - XML translation alone (no sockets, no actors): a DATA-heavy mix of framed requests split,
//   parsed and answered, in requests/s and MB/s of input.
// Results: bench/RESULTS.md.
#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/send.hpp>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "actors/data_manager_actor.hpp"
#include "actors/dyper_gateway_actor.hpp"
#include "cli/xml_session.hpp"
#include "messages/dm_messages.hpp"
#include "messages/dyper_framing.hpp"
#include "messages/type_registry.hpp"
#include "messages/xml_codec.hpp"

using namespace perfdm;

namespace {

const std::string ping_request = frame_message("<DYPER PID='DM' COMMAND='PING'/>");
const std::string pong_reply = frame_reply("<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");

int connect_to(std::uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
    throw std::runtime_error("cannot connect");
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// One round trip: the request, then bytes until the reply's trailer line.
bool round_trip(int fd, std::string& in) {
  if (send(fd, ping_request.data(), ping_request.size(), MSG_NOSIGNAL) !=
      static_cast<ssize_t>(ping_request.size()))
    return false;
  static const std::string trailer = "\nENDDYPERREPLY\n";
  for (;;) {
    if (auto at = in.find(trailer); at != std::string::npos) {
      in.erase(0, at + trailer.size());
      return true;
    }
    char buf[4096];
    auto n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return false;
    in.append(buf, static_cast<std::size_t>(n));
  }
}

struct bench_config : caf::actor_system_config {
  bench_config() {
    configure_engine_system(*this, false);  // what `perfdm engine --listen` runs
    // PERFDM_BENCH_SCHEDULER=sharing compares CAF's other scheduler (default: stealing).
    if (auto* p = std::getenv("PERFDM_BENCH_SCHEDULER"))
      set("scheduler.policy", caf::atom_from_string(p));
  }
};

// The engine with its gateway, shared by every benchmark thread.
struct gateway_server {
  bench_config config;
  caf::actor_system system{config};
  caf::actor dm = spawn_data_manager(system);
  caf::actor gateway;
  std::uint16_t port = 0;
  // The actor system waits for every actor at exit: stop them first.
  ~gateway_server() {
    caf::anon_send_exit(gateway, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(dm, caf::exit_reason::user_shutdown);
  }
  gateway_server() {
    gateway_options o;
    o.targets.emplace(data_manager_target, dm);
    auto started = start_dyper_gateway(system, std::move(o));
    if (!started) throw std::runtime_error("the gateway did not start");
    gateway = started->first;
    port = started->second;
  }
  static std::unique_ptr<gateway_server>& instance() {
    static std::unique_ptr<gateway_server> server;
    return server;
  }
  static gateway_server& get() {
    static std::once_flag once;
    std::call_once(once, [] { instance() = std::make_unique<gateway_server>(); });
    return *instance();
  }
};

// The reference: answers every request (a line ENDDYPERMSG) with the PONG reply.
struct echo_server {
  int listener = -1;
  std::uint16_t port = 0;
  echo_server() {
    listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(listener, 64) != 0)
      throw std::runtime_error("echo server: cannot listen");
    socklen_t len = sizeof a;
    getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
    std::thread([this] {
      for (;;) {
        int fd = accept(listener, nullptr, nullptr);
        if (fd < 0) return;
        std::thread([fd] { serve(fd); }).detach();
      }
    }).detach();
  }
  static void serve(int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    static const std::string trailer = "\nENDDYPERMSG\n";
    std::string in;
    char buf[4096];
    for (;;) {
      auto n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      in.append(buf, static_cast<std::size_t>(n));
      for (auto at = in.find(trailer); at != std::string::npos; at = in.find(trailer)) {
        in.erase(0, at + trailer.size());
        if (send(fd, pong_reply.data(), pong_reply.size(), MSG_NOSIGNAL) < 0) break;
      }
    }
    close(fd);
  }
  static echo_server& get() {
    static echo_server server;
    return server;
  }
};

template <class Server>
void ping_round_trips(benchmark::State& state) {
  int fd = connect_to(Server::get().port);
  std::string in;
  for (auto _ : state)
    if (!round_trip(fd, in)) {
      state.SkipWithError("the connection failed");
      break;
    }
  close(fd);
  state.SetItemsProcessed(state.iterations());
}

void BM_gateway_ping(benchmark::State& state) {
  ping_round_trips<gateway_server>(state);
}
void BM_raw_socket_ping(benchmark::State& state) {
  ping_round_trips<echo_server>(state);
}
BENCHMARK(BM_gateway_ping)->Threads(1)->Threads(16)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_raw_socket_ping)->Threads(1)->Threads(16)->UseRealTime()->MinTime(2.0);

// A DATA-heavy mix as a monitor sends it: SAMPLES of 50 samples, DATA queries, a STATUS,
// framed; each is split, parsed, and its typical answer printed (DATA: a 1000-bucket
// histogram; SAMPLES: 50 values as a stream event, and the ack).
void BM_xml_translation(benchmark::State& state) {
  std::string samples = "<DYPER PID='DM' COMMAND='SAMPLES'><SAMPLES>";
  for (int i = 0; i < 50; ++i)
    samples += "<S MI='" + std::to_string(i % 8) + "' START='" + std::to_string(i * 0.01) +
               "' END='" + std::to_string(i * 0.01 + 0.01) + "' VALUE='" + std::to_string(i * 1.5) +
               "'/>";
  samples += "</SAMPLES></DYPER>";
  const std::string data = "<DYPER PID='DM' COMMAND='DATA'><DATA MI='3' PHASE='GLOBAL'/></DYPER>";
  std::string input;
  int requests = 0;
  for (int i = 0; i < 4; ++i) {
    input += frame_message(samples) + frame_message(data);
    requests += 2;
  }
  input += frame_message("<DYPER PID='DM' COMMAND='STATUS'/>");
  ++requests;

  histogram_data histogram{mi_handle{3}, 0, 0.2, 1000, {}};
  for (int i = 0; i < 1000; ++i) histogram.values.push_back(i * 0.37);
  data_event event{stream_handle{0}, {}};
  for (int i = 0; i < 50; ++i)
    event.values.push_back({mi_handle{static_cast<std::uint64_t>(i % 8)}, phase_type::global,
                            static_cast<std::uint32_t>(i), i * 0.5});
  const auto histogram_reply = caf::make_message(histogram);
  const auto event_message = caf::make_message(event);
  const auto ack = caf::make_message(samples_ack{50, 0});
  const auto status = caf::make_message(status_info{});

  std::size_t output_bytes = 0;
  for (auto _ : state) {
    dyper_splitter splitter(max_request_bytes);
    std::vector<dyper_frame> frames;
    splitter.feed(input, frames);
    for (auto& f : frames) {
      auto parsed = parse_request(f.text);
      std::string out;
      if (parsed.request.match_elements<samples_request>()) {
        out = frame_message(print_event(event_message)) + frame_reply(print_reply("DM", ack));
      } else if (parsed.request.match_elements<data_request>()) {
        out = frame_reply(print_reply("DM", histogram_reply));
      } else {
        out = frame_reply(print_reply("DM", status));
      }
      output_bytes += out.size();
      benchmark::DoNotOptimize(out);
    }
  }
  state.SetItemsProcessed(state.iterations() * requests);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(input.size()));
  state.counters["out_bytes/s"] =
      benchmark::Counter(static_cast<double>(output_bytes), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_xml_translation);

}  // namespace

// The engine stops before main returns: an actor system destroyed among the static objects at
// exit corrupted the heap (CAF's own statics may be gone by then).
int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  gateway_server::instance().reset();
  benchmark::Shutdown();
  return 0;
}
