// Benchmarks of perfdm as DyPer's agent (engine --controller, actors/dyper_controller_dialer_actor.cpp),
// one engine in this process observing a program of 8 threads (a grandchild, WATCHed):
// - PING round trips through the connection the engine dialed to a DyPer controller (this
//   bench listens as DymonDyperServer does), side by side, in the same run, with the same PING
//   to the same process through the --listen gateway;
// - the CPU a REPORT in DyPer's schema costs (the whole process: engine and this client, with
//   sampling stopped by SET MONITOR false), per report, and the engine's own measure of
//   building one (MONITOR's REPORTTIME, ms: /proc reads and XML, thread CPU).
// Results: bench/RESULTS.md.
#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/send.hpp>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <regex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "actors/data_manager_actor.hpp"
#include "actors/dyper_controller_dialer_actor.hpp"
#include "actors/dyper_gateway_actor.hpp"
#include "cli/xml_session.hpp"
#include "messages/dyper_framing.hpp"

using namespace perfdm;

namespace {

// A program of 8 threads (main and 7 that sleep in short naps), not our child but a
// grandchild handed to init, so that no thread of this process reaps the sampler's stops.
pid_t start_target() {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe");
  pid_t middle = fork();
  if (middle == 0) {
    if (fork() == 0) {
      close(fds[0]);
      std::vector<std::thread> threads;
      for (int i = 0; i < 7; ++i)
        threads.emplace_back([] {
          for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        });
      pid_t self = getpid();
      [[maybe_unused]] auto n = write(fds[1], &self, sizeof self);
      for (;;) pause();
    }
    _exit(0);
  }
  waitpid(middle, nullptr, 0);
  close(fds[1]);
  pid_t pid = 0;
  if (read(fds[0], &pid, sizeof pid) != sizeof pid) throw std::runtime_error("no target");
  close(fds[0]);
  return pid;
}

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

// Sends one framed request and returns its reply (frames pushed meanwhile are skipped).
std::string ask(int fd, dyper_splitter& splitter, std::vector<dyper_frame>& frames,
                const std::string& framed) {
  if (send(fd, framed.data(), framed.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(framed.size()))
    throw std::runtime_error("send failed");
  for (;;) {
    for (std::size_t i = 0; i < frames.size(); ++i)
      if (frames[i].kind == dyper_frame::reply) {
        auto text = std::move(frames[i].text);
        frames.erase(frames.begin(), frames.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        return text;
      }
    frames.clear();
    char buf[65536];
    auto n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) throw std::runtime_error("the connection closed");
    splitter.feed(std::string_view(buf, static_cast<std::size_t>(n)), frames);
  }
}

struct bench_config : caf::actor_system_config {
  bench_config() { configure_engine_system(*this, false); }
};

// The engine with its gateway and its connection to "the controller" (this bench).
struct agent_setup {
  bench_config config;
  caf::actor_system system{config};
  caf::actor dm = spawn_data_manager(system);
  caf::actor gateway, dialer;
  pid_t target = start_target();
  std::string id;
  int client = -1, controller = -1;  // to the gateway; from the dialer
  dyper_splitter client_split{1u << 30, false}, controller_split{1u << 30, true};
  std::vector<dyper_frame> client_frames, controller_frames;

  agent_setup() {
    gateway_options o;
    o.targets.emplace(data_manager_target, dm);
    auto started = start_dyper_gateway(system, std::move(o));
    if (!started) throw std::runtime_error("the gateway did not start");
    gateway = started->first;
    client = connect_to(started->second);
    auto watched = ask(client, client_split, client_frames,
                       frame_message("<DYPER PID='DM' COMMAND='WATCH'><PROCESS PID='" +
                                     std::to_string(target) + "'/></DYPER>"));
    if (watched.find("WATCHED='true'") == std::string::npos)
      throw std::runtime_error("WATCH failed: " + watched);
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(listener, 4) != 0)
      throw std::runtime_error("cannot listen");
    socklen_t len = sizeof a;
    getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len);
    controller_options c;
    c.port = ntohs(a.sin_port);
    c.hostname = "bench";
    c.data_manager = dm;
    c.note = [](const std::string&) {};
    auto d = start_dyper_controller_dialer(system, std::move(c));
    if (!d) throw std::runtime_error("the dialer did not start");
    dialer = *d;
    controller = accept(listener, nullptr, nullptr);
    close(listener);
    int one = 1;
    setsockopt(controller, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    id = std::to_string(target) + "@bench";
  }
  ~agent_setup() {
    close(client);
    close(controller);
    kill(target, SIGKILL);
    caf::anon_send_exit(dialer, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(gateway, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(dm, caf::exit_reason::user_shutdown);
  }
  static agent_setup& get() {
    static std::unique_ptr<agent_setup> setup;
    static std::once_flag once;
    std::call_once(once, [] { setup = std::make_unique<agent_setup>(); });
    return *setup;
  }
  std::string to_controller_side(const std::string& command) {
    return ask(controller, controller_split, controller_frames, frame_message(command));
  }
};

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

void BM_ping_listen_gateway(benchmark::State& state) {
  auto& s = agent_setup::get();
  auto ping = frame_message("<DYPER PID='" + std::to_string(s.target) + "' COMMAND='PING'/>");
  for (auto _ : state)
    benchmark::DoNotOptimize(ask(s.client, s.client_split, s.client_frames, ping));
  state.SetItemsProcessed(state.iterations());
}

void BM_ping_controller_connection(benchmark::State& state) {
  auto& s = agent_setup::get();
  auto ping = "<DYPER COMMAND='PING' PID='" + s.id + "' />";
  for (auto _ : state) benchmark::DoNotOptimize(s.to_controller_side(ping));
  state.SetItemsProcessed(state.iterations());
}

void BM_report_8_threads(benchmark::State& state) {
  auto& s = agent_setup::get();
  auto report = "<DYPER COMMAND='REPORT' PID='" + s.id + "' />";
  // No sampling meanwhile (MONITOR false): the CPU measured is the reports'. The profile
  // the reports carry stays as it was.
  s.to_controller_side("<DYPER COMMAND='SET' PID='" + s.id +
                       "'><VAR NAME='MONITOR' VALUE='false' /></DYPER>");
  std::string last;
  auto cpu = cpu_seconds();
  for (auto _ : state) last = s.to_controller_side(report);
  cpu = cpu_seconds() - cpu;
  state.counters["cpu_us_per_report"] = cpu * 1e6 / static_cast<double>(state.iterations());
  std::smatch m;
  if (std::regex_search(last, m, std::regex(" REPORTTIME='([0-9.e+-]+)'")))
    state.counters["build_ms_mean"] = std::stod(m[1].str());
  if (std::regex_search(last, m, std::regex("<THREADS COUNT='([0-9]+)'")))
    state.counters["threads"] = std::stod(m[1].str());
}

// Interleaved, so that both gateways see the same machine in the same run.
BENCHMARK(BM_ping_listen_gateway)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_ping_controller_connection)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_ping_listen_gateway)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_ping_controller_connection)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_report_8_threads)->UseRealTime()->MinTime(3.0);

}  // namespace

BENCHMARK_MAIN();
