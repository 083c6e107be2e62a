#include "cli/relay_command.hpp"

#include <caf/actor_system.hpp>
#include <caf/function_view.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>
#include <caf/openssl/publish.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <cmath>
#include <csignal>
#include <iostream>

#include "actors/daemon_relay_actor.hpp"
#include "actors/relay_node_actor.hpp"
#include "actors/remote_bridge_actor.hpp"
#include "cli/bounded_exit.hpp"
#include "cli/host_port.hpp"
#include "cli/stop_signals.hpp"
#include "messages/dm_messages.hpp"

namespace perfdm {

namespace {

constexpr std::chrono::seconds exit_bound{5};

int run_relay(caf::actor_system& sys, const relay_command_options& o, const host_port& up,
              const host_port& where, caf::actor& node, remote_dm_actor& bridge,
              std::uint16_t& port, bool& upstream_gone, std::ostream& err) {
  auto connected = connect_remote_dm(sys, up, o.remote,
                                     std::chrono::duration<double>(o.connect_timeout_seconds));
  if (told_unreachable(connected, up, o.connect_timeout_seconds,
                       "perfdm relay: cannot reach the upstream at " + o.upstream, err))
    return 2;
  if (!connected) {
    err << "perfdm relay: " << o.upstream << " accepted but did not answer as a perfdm engine\n";
    std::_Exit(2);  // the connecting thread stays blocked inside CAF: leave without it
  }
  auto& upstream = *connected;
  if (!upstream) {
    err << "perfdm relay: " << o.upstream
        << " is no perfdm engine: " << sys.render(upstream.error()) << '\n';
    return 2;
  }
  relay_node_options ro;
  ro.component = o.name;
  ro.batch = o.batch;
  ro.flush_period = std::chrono::milliseconds(std::max<long>(1, std::lround(o.flush_ms)));
  ro.upstream_address = o.upstream;  // told to the children, for failover
  ro.connect = remote_dm_connector(sys, o.remote);
  node = spawn_relay_node(sys, caf::actor_cast<caf::actor>(*upstream), ro);
  caf::scoped_actor self{sys, true};
  self->monitor(node);
  bool ready = false;
  self->request(node, std::chrono::seconds(30), relay_node_ready_atom::value)
      .receive([&](ok_reply) { ready = true; },
               [&](caf::error& e) {
                 err << "perfdm relay: the upstream did not register the relay: " << sys.render(e)
                     << '\n';
               });
  if (!ready) return 2;
  bridge = spawn_remote_bridge(sys, node, nullptr);
  auto published = o.remote.tls() ? caf::openssl::publish(bridge, where.port, where.host.c_str())
                                  : sys.middleman().publish(bridge, where.port, where.host.c_str());
  if (!published) {
    err << "perfdm relay: cannot publish on " << o.publish << ": " << sys.render(published.error())
        << '\n';
    return 2;
  }
  port = *published;
  err << "perfdm relay: component " << (o.name.empty() ? default_component_name() : o.name)
      << " forwarding to " << o.upstream << ", publishing on " << where.host << ':' << port
      << (o.remote.tls() ? " (TLS)" : "") << std::endl;

  // The first SIGINT/SIGTERM stops the relay in order; a second one ends it at once.
  install_stop_signals({true, false});
  while (!stop_requested() && !upstream_gone)
    self->receive([&](caf::down_msg&) { upstream_gone = true; },
                  caf::after(std::chrono::milliseconds(100)) >> [] {});
  if (upstream_gone) {
    exit_within(exit_bound, 1);
    err << "perfdm relay: the upstream at " << o.upstream << " went away\n";
    return 1;
  }
  exit_within(exit_bound, 0);
  return 0;
}

}  // namespace

CLI::App* add_relay_command(CLI::App& app, relay_command_options& o) {
  auto* r = app.add_subcommand(
      "relay",
      "Run an internal node of a tree of daemons: daemons and relays connect to it as to an "
      "engine; it aggregates them interval by interval and forwards one component upstream");
  r->add_option("--upstream", o.upstream, "HOST:PORT of the engine's or a relay's --publish")
      ->required();
  r->add_option("--publish", o.publish,
                "[HOST:]PORT for daemons and relays, loopback unless a host is given; port 0 "
                "picks one")
      ->required();
  r->add_option("--name", o.name, "the relay's component name (default HOSTNAME:PID)");
  r->add_option("--batch", o.batch, "samples per message upstream at most")
      ->check(CLI::Range(1, 1 << 24));
  r->add_option("--flush-ms", o.flush_ms, "the longest a sample waits before going upstream")
      ->check(CLI::Range(0.1, 10000.0));
  r->add_option("--connect-timeout", o.connect_timeout_seconds, "seconds to wait for the upstream")
      ->check(CLI::Range(0.1, 3600.0));
  add_remote_options(*r, o.remote);
  return r;
}

int run_relay_command(const relay_command_options& o, std::ostream&, std::ostream& err) {
  auto up = parse_host_port(o.upstream);
  if (!up || up->port == 0) {
    err << "perfdm relay: --upstream '" << o.upstream << "' is not HOST:PORT\n";
    return 2;
  }
  auto where = parse_host_port(o.publish);
  if (!where) {
    err << "perfdm relay: --publish takes [HOST:]PORT (e.g. 127.0.0.1:0 or 0), not '" << o.publish
        << "'\n";
    return 2;
  }
  if (auto problem = remote_options_problem(o.remote); !problem.empty()) {
    err << "perfdm relay: " << problem << '\n';
    return 2;
  }
  remote_peer_config cfg(o.remote);
  caf::actor_system sys{cfg};
  caf::actor node;
  remote_dm_actor bridge;
  std::uint16_t port = 0;
  bool upstream_gone = false;
  int status = run_relay(sys, o, *up, *where, node, bridge, port, upstream_gone, err);
  // The children lose their upstream with the published port; the node sends what it holds.
  if (bridge) {
    if (port && o.remote.tls())
      caf::make_function_view(sys.openssl_manager().actor_handle())(caf::unpublish_atom::value,
                                                                    bridge.address(), port);
    else if (port)
      sys.middleman().unpublish(bridge, port);
    caf::anon_send_exit(bridge, caf::exit_reason::user_shutdown);
  }
  if (node) caf::anon_send_exit(node, caf::exit_reason::user_shutdown);
  bridge = nullptr;
  node = nullptr;
  exit_within(exit_bound, status);
  settle_actor_system(sys, std::chrono::seconds(2));
  if (upstream_gone) leave_now(status);  // nothing left to send
  return status;
}

}  // namespace perfdm
