// The network options of remote actors, the same on both ends (`perfdm engine --publish`,
// `perfdm client`): CAF's middleman sends a heartbeat every --heartbeat-ms and drops a
// connection that was silent for --timeout-ms, so a frozen peer is detected (its proxies go
// down) instead of holding its streams forever. Both are off in CAF unless configured.
#pragma once

#include <CLI/CLI.hpp>
#include <caf/fwd.hpp>

namespace perfdm {

struct remote_options {
  int heartbeat_ms = 1000;
  int timeout_ms = 5000;  // must exceed the peer's heartbeat, or an idle peer is dropped
};

// Adds --heartbeat-ms and --timeout-ms to `sub`.
void add_remote_options(CLI::App& sub, remote_options& o);

// Sets those options for the middleman (which the caller loads: a live session does); call
// before the actor system exists.
void configure_remote(caf::actor_system_config& cfg, const remote_options& o);

}  // namespace perfdm
