// `perfdm relay --upstream HOST:PORT --publish [HOST:]PORT`: an internal node of a tree of
// daemons. Daemons and other relays connect to it as to an engine; it aggregates
// their components interval by interval (the engine's aggregation) and forwards one
// component upstream (actors/relay_node_actor.hpp). Any depth: its upstream may be a relay.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>

#include "cli/remote_options.hpp"

namespace perfdm {

struct relay_command_options {
  std::string upstream;      // HOST:PORT of an engine's or relay's --publish
  std::string publish;       // [HOST:]PORT for the children; loopback unless a host is given
  std::string name;          // the component's name; default "<hostname>:<pid>"
  std::size_t batch = 2048;  // samples per upstream message at most
  double flush_ms = 5;       // the longest a complete sample waits in the relay
  double connect_timeout_seconds = 10;
  remote_options remote;     // heartbeat, connection timeout and TLS, both ways
};

CLI::App* add_relay_command(CLI::App& app, relay_command_options& options);

// Connects upstream, publishes, then relays until SIGINT/SIGTERM (0) or until the upstream
// goes away (1); 2: the upstream could not be reached or is no perfdm engine, or it cannot
// publish. It leaves in bounded time either way (cli/bounded_exit.hpp).
int run_relay_command(const relay_command_options& options, std::ostream& out, std::ostream& err);

}  // namespace perfdm
