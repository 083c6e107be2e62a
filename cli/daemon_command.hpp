// `perfdm daemon --upstream HOST:PORT`: a per-node daemon. It observes local processes
// (--attach: frames; --pid: /proc and stack sampling) with its own process registry and
// forwards their definitions and batched samples to the central engine through one relay
// (actors/daemon_relay_actor.hpp), which the engine aggregates as one component of every
// metric instance (Paradyn's aggregation).
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

#include "cli/remote_options.hpp"

namespace perfdm {

struct daemon_options {
  std::string upstream;      // HOST:PORT of an engine's --publish
  std::vector<int> attach;   // processes to ATTACH (frames)
  std::vector<int> watch;    // processes to WATCH (/proc, stacks)
  std::string name;          // the component's name; default "<hostname>:<pid>"
  std::size_t batch = 2048;  // samples per upstream message at most
  double flush_ms = 5;       // the longest a sample waits in the relay
  double connect_timeout_seconds = 10;
  double checktime_ms = 10;  // watched processes: mean ms between stack samples
  remote_options remote;     // heartbeat and connection timeout
};

// Adds the `daemon` subcommand to `app`, filling `options`.
CLI::App* add_daemon_command(CLI::App& app, daemon_options& options);

// Connects upstream, attaches and watches, then forwards until SIGINT/SIGTERM (0) or until
// the upstream goes away (1). 2: the upstream could not be reached or is no perfdm engine;
// 1 also when an ATTACH or WATCH was refused (it says why on `err`).
int run_daemon_command(const daemon_options& options, std::ostream& out, std::ostream& err);

}  // namespace perfdm
