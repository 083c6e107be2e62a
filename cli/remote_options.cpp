#include "cli/remote_options.hpp"

#include <caf/actor_system_config.hpp>
#include <chrono>

namespace perfdm {

void add_remote_options(CLI::App& sub, remote_options& o) {
  sub.add_option("--heartbeat-ms", o.heartbeat_ms,
                 "milliseconds between heartbeats to remote peers (default 1000)")
      ->check(CLI::Range(1, 3600000));
  sub.add_option("--timeout-ms", o.timeout_ms,
                 "a remote peer silent this long is dropped, its streams closed (default 5000)")
      ->check(CLI::Range(1, 3600000));
}

void configure_remote(caf::actor_system_config& cfg, const remote_options& o) {
  cfg.set("middleman.heartbeat-interval", caf::timespan{std::chrono::milliseconds(o.heartbeat_ms)});
  cfg.set("middleman.connection-timeout", caf::timespan{std::chrono::milliseconds(o.timeout_ms)});
}

}  // namespace perfdm
