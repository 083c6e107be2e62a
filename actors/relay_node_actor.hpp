// An internal node of a tree of daemons (`perfdm relay`). Towards its children
// (daemons and other relays, which connect to it as to an engine, through the remote bridge
// it publishes) it stands in for the data manager; towards its upstream (the engine or
// another relay) it is ONE component. It
// - registers upstream as component `name` and passes every source_update it gets to every
//   child, so interval changes and enable/disable reach every leaf;
// - aggregates its children's samples interval by interval with the engine's own aggregation
//   (dm/component_aggregator: an interval goes up once every live child reported it or
//   watermarked past it; a COUNTER's sums stay exact, a SAMPLED level is summed over the
//   children) and sends what is complete upstream in batches, as a daemon does (`batch`
//   samples or `flush_period` after the first, whichever comes first);
// - sends with every batch, and alone every flush period while it moves, its watermark: the
//   least of its live children's watermarks (everything before it was received from every
//   child, hence aggregated and sent), so depth adds no waiting beyond the flushes;
// - forwards every other request (DEFINE, STATUS, ENABLE, ...) upstream, where the metric
//   instances live, and the answer back; it learns each metric's style from the DEFINEs that
//   pass through and from the upstream's metric list;
// - answers its parent's topology_probe with itself and its children's subtrees, asked of
//   them (actors/topology_probe.hpp), with each child's link figures measured here;
// - tells its upstream of every child it lost (unregistered, connection closed, heartbeat
//   timed out: subtree_component_gone), and passes on what its children tell of theirs with
//   the child's name in front, so the engine's streams hear COMPONENTREMOVED at any depth;
//   and the same of every child that registers (subtree_component_joined: COMPONENTADDED),
//   one that takes over from a child still live here after that child is gone;
// - failover (tree/upstream_failover.hpp): tells each child its upstream's address, and which of
//   their samples reached the engine (samples_safe), so a child whose relay goes down can go
//   on at the relay's upstream and send again only what may be lost; a child that took over
//   from such a relay has what that relay had passed on dropped (take_over). Under a relay,
//   it fails over itself the same way;
// - otherwise ends when its upstream goes down (its children then see their upstream go).
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <chrono>
#include <string>

#include "actors/reconnect_actor.hpp"

namespace perfdm {

struct relay_node_options {
  std::string component;  // the name upstream; "<host>:<pid>" by default
  std::size_t batch = 2048;
  std::chrono::milliseconds flush_period{5};
  // Failover: the upstream's address as the children may reach it ("HOST:PORT"),
  // told to every child that registers, and how to reach an upstream relay's own upstream
  // should that relay go down (none: the node ends with its upstream).
  std::string upstream_address = {};
  connect_function connect = {};
  // How often the watermark goes alone (a batch carries it too) and the children hear what
  // reached the engine (samples_safe). Every child's report moves the least of their
  // watermarks a little: sent within a flush, 8 relays sent the engine as many messages as
  // 64 daemons did, and its CPU through the tree was 0.67 of flat's.
  std::chrono::milliseconds quiet_period{50};
};

// relay_node_stats_atom -> (samples received from children, samples sent upstream, batches
// sent upstream, live children).
using relay_node_stats_atom = caf::atom_constant<caf::atom("rnodestat")>;

// Answered with ok_reply once the node registered upstream and heard its first
// source_update; with the reason it ended if it ends first.
using relay_node_ready_atom = caf::atom_constant<caf::atom("rnoderdy")>;

caf::actor spawn_relay_node(caf::actor_system& sys, caf::actor upstream, relay_node_options o);

}  // namespace perfdm
