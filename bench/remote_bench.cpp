// Round trips of a STATUS query to the data manager, three ways, in one run:
// - remote: `perfdm client`'s path — CAF's network layer (BASP over loopback TCP) to a real
//   `perfdm engine --publish` child process, through its bridge (remote_dm_actor);
// - gateway: the same engine's DyPer gateway (`--listen`), XML over a raw socket;
// - local: a data manager in this process, a scoped actor asking it (no network).
// PING (pong) beside STATUS separates the path's cost from the query's. Each client waits for
// its reply before the next request. Results: bench/RESULTS.md.
#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "actors/data_manager_actor.hpp"
#include "messages/dyper_framing.hpp"
#include "messages/remote_interface.hpp"
#include "messages/type_registry.hpp"

using namespace perfdm;

namespace {

struct bench_config : caf::actor_system_config {
  bench_config() {
    register_message_types(*this);
    load<caf::io::middleman>();
    set("logger.console", caf::atom("none"));
    // As a live session sets it (cli/xml_session.cpp): an idle worker wakes within 1 ms.
    set("work-stealing.relaxed-sleep-duration", caf::timespan{std::chrono::milliseconds(1)});
  }
};

// `perfdm engine --publish 127.0.0.1:0 --listen 127.0.0.1:0`, killed at exit.
struct engine_process {
  pid_t pid = -1;
  std::uint16_t publish_port = 0, listen_port = 0;
  std::string err_path = "/tmp/perfdm_remote_bench_" + std::to_string(getpid()) + ".err";
  std::string log_path = "/tmp/perfdm_remote_bench_" + std::to_string(getpid()) + ".log";

  engine_process() {
    pid = fork();
    if (pid == 0) {
      int in = open("/dev/null", O_RDONLY);
      int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(in, STDIN_FILENO);
      dup2(err, STDERR_FILENO);
      execl(PERFDM_BINARY, PERFDM_BINARY, "engine", "--publish", "127.0.0.1:0", "--listen",
            "127.0.0.1:0", "--log", log_path.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    const std::regex publishing("publishing on 127\\.0\\.0\\.1:([0-9]+)\n");
    const std::regex listening("listening on 127\\.0\\.0\\.1:([0-9]+)\n");
    while (std::chrono::steady_clock::now() < deadline) {
      std::ifstream f(err_path);
      std::stringstream s;
      s << f.rdbuf();
      auto text = s.str();
      std::smatch a, b;
      if (std::regex_search(text, a, publishing) && std::regex_search(text, b, listening)) {
        publish_port = static_cast<std::uint16_t>(std::stoul(a[1]));
        listen_port = static_cast<std::uint16_t>(std::stoul(b[1]));
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    throw std::runtime_error("the engine did not start");
  }
  ~engine_process() {
    kill(pid, SIGTERM);
    waitpid(pid, nullptr, 0);
    std::remove(err_path.c_str());
    std::remove(log_path.c_str());
  }
  // Made on first use and ended by main() (not at static destruction: CAF's own statics
  // may be gone by then).
  static std::unique_ptr<engine_process>& instance() {
    static std::unique_ptr<engine_process> engine;
    return engine;
  }
  static engine_process& get() {
    if (!instance()) instance() = std::make_unique<engine_process>();
    return *instance();
  }
};

// This process's actor system: the remote handle to the engine and a local data manager.
struct client_side {
  bench_config config;
  caf::actor_system system{config};
  remote_dm_actor remote;
  caf::actor local_dm = spawn_data_manager(system);
  client_side() {
    auto h = system.middleman().remote_actor<remote_dm_actor>("127.0.0.1",
                                                              engine_process::get().publish_port);
    if (!h) throw std::runtime_error("cannot connect: " + system.render(h.error()));
    remote = *h;
  }
  ~client_side() {
    caf::anon_send_exit(local_dm, caf::exit_reason::user_shutdown);
    remote = nullptr;
  }
  static std::unique_ptr<client_side>& instance() {
    static std::unique_ptr<client_side> c;
    return c;
  }
  static client_side& get() {
    if (!instance()) instance() = std::make_unique<client_side>();
    return *instance();
  }
};

template <class Request, class Reply, class Handle>
void ask(benchmark::State& state, const Handle& to) {
  caf::scoped_actor self{client_side::get().system};
  bool failed = false;
  for (auto _ : state) {
    self->request(to, caf::infinite, Request{})
        .receive([](Reply& r) { benchmark::DoNotOptimize(r); },
                 [&](caf::error&) { failed = true; });
    if (failed) {
      state.SkipWithError("the request failed");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_remote_status(benchmark::State& state) {
  ask<status_query, status_info>(state, client_side::get().remote);
}
void BM_remote_ping(benchmark::State& state) {
  ask<ping, pong>(state, client_side::get().remote);
}
void BM_local_status(benchmark::State& state) {
  ask<status_query, status_info>(state, client_side::get().local_dm);
}
void BM_local_ping(benchmark::State& state) {
  ask<ping, pong>(state, client_side::get().local_dm);
}

// The gateway: one framed request, then bytes up to the reply's trailer.
void gateway_round_trips(benchmark::State& state, const std::string& xml) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(engine_process::get().listen_port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    state.SkipWithError("cannot connect to the gateway");
    return;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  const std::string request = frame_message(xml);
  static const std::string trailer = "\nENDDYPERREPLY\n";
  std::string in;
  for (auto _ : state) {
    if (send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
        static_cast<ssize_t>(request.size())) {
      state.SkipWithError("send failed");
      break;
    }
    for (;;) {
      if (auto at = in.find(trailer); at != std::string::npos) {
        in.erase(0, at + trailer.size());
        break;
      }
      char buf[4096];
      auto n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) {
        state.SkipWithError("the gateway closed the connection");
        close(fd);
        return;
      }
      in.append(buf, static_cast<std::size_t>(n));
    }
  }
  close(fd);
  state.SetItemsProcessed(state.iterations());
}

void BM_gateway_status(benchmark::State& state) {
  gateway_round_trips(state, "<DYPER PID='DM' COMMAND='STATUS'/>");
}
void BM_gateway_ping(benchmark::State& state) {
  gateway_round_trips(state, "<DYPER PID='DM' COMMAND='PING'/>");
}

BENCHMARK(BM_remote_status)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_remote_ping)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_gateway_status)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_gateway_ping)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_local_status)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_local_ping)->UseRealTime()->MinTime(2.0);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  client_side::instance().reset();  // the actor system first, then the engine it talks to
  engine_process::instance().reset();
  return 0;
}
