#include "cli/daemon_command.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>
#include <future>
#include <iostream>
#include <thread>

#include "actors/daemon_relay_actor.hpp"
#include "cli/bounded_exit.hpp"
#include "cli/host_port.hpp"
#include "cli/stop_signals.hpp"
#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/native_messages.hpp"
#include "messages/process_messages.hpp"
#include "messages/remote_interface.hpp"
#include "messages/time.hpp"
#include "messages/type_registry.hpp"
#include "messages/xml_codec.hpp"

namespace perfdm {

namespace {

// How long the daemon may take to leave once it decided to: after its upstream went away
// (nothing left to send), and after SIGINT/SIGTERM (its sources first send what they read,
// each bounded by 10 s below).
constexpr std::chrono::seconds upstream_lost_exit_bound{5};
constexpr std::chrono::seconds stop_exit_bound{25};

}  // namespace

CLI::App* add_daemon_command(CLI::App& app, daemon_options& o) {
  auto* d = app.add_subcommand(
      "daemon",
      "Run a per-node daemon: observe local processes and forward their batched "
      "samples to a central engine (engine --publish), which aggregates the daemons");
  d->add_option("--upstream", o.upstream, "HOST:PORT of the central engine's --publish")
      ->required();
  d->add_option("--attach", o.attach, "attach this process's frames (repeatable)")
      ->check(CLI::PositiveNumber);
  d->add_option("--pid", o.watch, "watch this process: /proc and stack sampling (repeatable)")
      ->check(CLI::PositiveNumber);
  d->add_option("--name", o.name, "the daemon's component name (default HOSTNAME:PID)");
  d->add_option("--batch", o.batch, "samples per message upstream at most")
      ->check(CLI::Range(1, 1 << 24));
  d->add_option("--flush-ms", o.flush_ms, "the longest a sample waits before going upstream")
      ->check(CLI::Range(0.1, 10000.0));
  d->add_option("--connect-timeout", o.connect_timeout_seconds,
                "seconds to wait for the upstream engine")
      ->check(CLI::Range(0.1, 3600.0));
  d->add_option("--checktime", o.checktime_ms,
                "mean milliseconds between stack samples of watched processes")
      ->check(CLI::Range(0.1, 10000.0));
  add_remote_options(*d, o.remote);
  return d;
}

static int run_daemon(caf::actor_system& sys, const daemon_options& o, const host_port& address,
                      caf::actor& relay, bool& upstream_gone, std::ostream& out,
                      std::ostream& err);

int run_daemon_command(const daemon_options& o, std::ostream& out, std::ostream& err) {
  auto address = parse_host_port(o.upstream);
  if (!address || address->port == 0) {
    err << "perfdm daemon: --upstream '" << o.upstream << "' is not HOST:PORT\n";
    return 2;
  }
  if (auto problem = remote_options_problem(o.remote); !problem.empty()) {
    err << "perfdm daemon: " << problem << '\n';
    return 2;
  }
  remote_peer_config cfg(o.remote);
  caf::actor_system sys{cfg};
  caf::actor relay;
  bool upstream_gone = false;
  int status = run_daemon(sys, o, *address, relay, upstream_gone, out, err);
  // Whatever ended the daemon, its relay (and with it every local source) ends too, and the
  // actor system is left in bounded time (cli/bounded_exit.hpp says why that needs care).
  if (relay) caf::anon_send_exit(relay, caf::exit_reason::user_shutdown);
  relay = nullptr;
  exit_within(upstream_lost_exit_bound, status);
  settle_actor_system(sys, std::chrono::seconds(2));
  if (upstream_gone) leave_now(status);  // nothing left to send
  return status;
}

static int run_daemon(caf::actor_system& sys, const daemon_options& o, const host_port& address,
                      caf::actor& relay, bool& upstream_gone, std::ostream& out,
                      std::ostream& err) {
  // A peer that accepts but never answers costs the timeout, not a daemon hanging.
  auto connected = connect_remote_dm(sys, address, o.remote,
                                     std::chrono::duration<double>(o.connect_timeout_seconds));
  if (told_unreachable(connected, address, o.connect_timeout_seconds,
                       "perfdm daemon: cannot reach the engine at " + o.upstream, err))
    return 2;
  if (!connected) {
    err << "perfdm daemon: " << o.upstream << " accepted but did not answer as a perfdm engine\n";
    std::_Exit(2);  // the connecting thread stays blocked inside CAF: leave without it
  }
  auto& upstream = *connected;
  if (!upstream) {
    if (upstream.error() == caf::sec::connection_timeout)  // CAF gave up before our wait
      err << "perfdm daemon: " << o.upstream
          << " accepted but did not answer as a perfdm engine (the handshake timed out)\n";
    else
      err << "perfdm daemon: " << o.upstream
          << " is no perfdm engine: " << sys.render(upstream.error()) << '\n';
    return 2;
  }

  relay_options ro;
  ro.component = o.name;
  ro.batch = o.batch;
  ro.flush_period = std::chrono::milliseconds(std::max<long>(1, std::lround(o.flush_ms)));
  ro.native.delay.checktime_ns = to_ns(o.checktime_ms / 1000);
  ro.connect = remote_dm_connector(sys, o.remote);  // under a relay: failover
  caf::scoped_actor self{sys};
  bool ready = false;
  // A connection lost before the engine answered the registration is made again, twice at
  // most: the engine's CAF can lose a handshake when another connection to it closes at that
  // moment (docs/PROTOCOL.md §11, "No probe before connecting"), and a daemon started with
  // its cluster should not give up for that.
  for (int attempt = 1; !ready; ++attempt) {
    relay = spawn_daemon_relay(sys, caf::actor_cast<caf::actor>(*upstream), ro);
    caf::error why;
    self->request(relay, std::chrono::seconds(30), relay_ready_atom::value)
        .receive([&](ok_reply) { ready = true; }, [&](caf::error& e) { why = e; });
    if (ready) break;
    self->send_exit(relay, caf::exit_reason::user_shutdown);
    relay = nullptr;
    const auto unreachable = static_cast<std::uint8_t>(caf::exit_reason::remote_link_unreachable);
    const bool lost = why.category() == caf::atom("exit") && why.code() == unreachable;
    err << "perfdm daemon: the engine did not register the daemon: " << sys.render(why)
        << (lost && attempt < 3 ? " (the connection was lost: connecting again)" : "") << '\n';
    if (!lost || attempt == 3) return 2;
    std::this_thread::sleep_for(std::chrono::seconds(attempt));  // not into the same burst
    auto again = connect_remote_dm(sys, address, o.remote,
                                   std::chrono::duration<double>(o.connect_timeout_seconds));
    if (!again) std::_Exit(2);  // the connecting thread stays blocked inside CAF
    if (!*again) {
      err << "perfdm daemon: cannot connect to the engine at " << o.upstream
          << " again: " << sys.render(again->error()) << '\n';
      return 2;
    }
    upstream = std::move(*again);
  }
  self->monitor(relay);
  int status = 0;
  auto run = [&](caf::message request, const char* what, int pid) {
    self->request(relay, std::chrono::seconds(60), std::move(request))
        .receive([&](process_info& p) { out << print_reply_body(caf::make_message(p)) << '\n'; },
                 [&](caf::error& e) {
                   err << "perfdm daemon: cannot " << what << " process " << pid << ": "
                       << dm_error_reason(e) << '\n';
                   status = 1;
                 });
  };
  std::vector<int> attached;
  for (int pid : o.attach) {
    run(caf::make_message(attach_request{pid, {}, false, 0, 0}), "attach", pid);
    if (status == 0) attached.push_back(pid);
  }
  for (int pid : o.watch) run(caf::make_message(watch_request{pid}), "watch", pid);
  err << "perfdm daemon: component " << (o.name.empty() ? default_component_name() : o.name)
      << " forwarding to " << o.upstream << '\n';
  out.flush();

  // The first SIGINT/SIGTERM stops the daemon in order (bounded by exit_within); a second
  // one ends it at once.
  install_stop_signals({true, false});
  while (!stop_requested() && !upstream_gone)
    self->receive([&](caf::down_msg&) { upstream_gone = true; },
                  caf::after(std::chrono::milliseconds(100)) >> [] {});
  if (upstream_gone) {
    exit_within(upstream_lost_exit_bound, 1);
    err << "perfdm daemon: the engine at " << o.upstream << " went away\n";
    return 1;
  }
  exit_within(stop_exit_bound, status);
  // Stopped: the attached processes stop writing frames, the watched ones are let go, and
  // once their sources sent what they read (they unregister) the relay ends, sending what it
  // holds. Bounded: a source that does not end in 10 s loses its last samples.
  for (int pid : attached)
    self->request(relay, std::chrono::seconds(10), detach_request{pid})
        .receive([](process_info&) {}, [](caf::error&) {});
  for (int pid : o.watch)
    self->request(relay, std::chrono::seconds(10), unwatch_request{pid})
        .receive([](process_info&) {}, [](caf::error&) {});
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (bool idle = false; !idle && std::chrono::steady_clock::now() < until;) {
    self->request(relay, std::chrono::seconds(10), relay_stats_atom::value)
        .receive([&](std::uint64_t, std::uint64_t, std::uint64_t sources) { idle = sources == 0; },
                 [&](caf::error&) { idle = true; });
    if (!idle) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  self->request(relay, std::chrono::seconds(2), relay_sums_atom::value)
      .receive(
          [&](const std::string& sums) {
            err << "perfdm daemon: forwarded sums by MI: " << sums << '\n';
          },
          [](caf::error&) {});
  return status;
}

}  // namespace perfdm
