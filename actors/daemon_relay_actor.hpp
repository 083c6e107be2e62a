// The relay of a per-node daemon (`perfdm daemon`): towards the daemon's local data sources
// (frame ingest and native source actors, spawned by its own process registry) it stands in
// for the data manager; towards the central engine it is ONE data source, registered as a
// component (Paradyn's aggregation happens there). It
// - registers upstream as component "<host>:<daemon pid>" and passes every source_update it
//   gets to every local source, so interval changes and enable/disable reach every daemon;
// - forwards the definitions the local sources make (resources, metrics) upstream, where
//   the metric instances live, and the answers back;
// - forwards the local sources' samples upstream in batches: a batch goes when it holds
//   `batch` samples or `flush_period` after its first sample, whichever comes first (CAF
//   carries some 50 k remote messages/s, so one message per sample would not do);
// - sends with every batch, and alone every `quiet_period` while it moves, its watermark: the
//   engine time before which it has sent everything it will send (a local source that ended
//   or reported nothing yet does not hold it back), so a daemon whose process exited does
//   not hold the aggregate back upstream (component_aggregator::add_watermark), and at once
//   when a source ends;
// - spawns the local process registry once the first source_update told it the engine's
//   time origin, so local samples are stamped in engine time, and serves ATTACH, WATCH
//   and the other process requests with it.
// It answers its parent's topology_probe with its own node (kind daemon, its local sources).
// It ends when the upstream goes down, unless that was a relay whose own upstream it knows:
// then it connects there, registers as taking over from the relay, and sends again what the
// relay had not passed on (tree/upstream_failover.hpp); it ends if that fails within
// reconnect_budget.
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <chrono>
#include <string>

#include "actors/native_source_actor.hpp"
#include "actors/reconnect_actor.hpp"

namespace perfdm {

struct relay_options {
  std::string component;  // the name upstream; "<host>:<pid>" by default
  std::size_t batch = 2048;  // the best rate in bench/forward_bench
  std::chrono::milliseconds flush_period{5};
  native_options native;  // for watched processes (the origin is set from upstream)
  // Failover: how to reach the upstream relay's own upstream should that relay go
  // down. None: the relay ends with its upstream, as under the engine.
  connect_function connect = {};
  // How often the watermark goes alone. It moves by itself only while no local source holds
  // it (none reported yet, or every one ended), and then only a component that joined an MI
  // and fell quiet waits for it upstream: not worth a wake-up and a message every
  // flush_period from every daemon of a cluster (64 idle daemons sent 12,800 a second).
  std::chrono::milliseconds quiet_period{50};
};

// Answered with ok_reply once the relay registered upstream and knows the engine's time
// origin: ATTACH and WATCH sent to the relay work from then on. A relay that ends first (its
// upstream went down before answering) answers with the reason it ended.
using relay_ready_atom = caf::atom_constant<caf::atom("relayrdy")>;

// Counters of the relay: relay_stats_atom -> (samples received from local sources, batches
// sent upstream, local sources registered now).
using relay_stats_atom = caf::atom_constant<caf::atom("relaystat")>;

// What the local sources sent, summed by MI: "MI=SUM …" (printed by the daemon as it stops,
// so a person can check against the engine that nothing was lost on the way).
using relay_sums_atom = caf::atom_constant<caf::atom("relaysums")>;

// The watermark the relay sent upstream last (no_watermark: none yet) -> time_ns.
using relay_watermark_atom = caf::atom_constant<caf::atom("relaywmq")>;

caf::actor spawn_daemon_relay(caf::actor_system& sys, caf::actor upstream, relay_options o);

// "<hostname>:<pid>" of this process.
std::string default_component_name();

}  // namespace perfdm
