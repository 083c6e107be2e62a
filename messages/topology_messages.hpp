// TOPOLOGY: the tree of daemons and relays as the engine knows it, and the probe a
// node sends down to learn its children's subtrees (docs/PROTOCOL.md, "Relays").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "messages/inspect_macros.hpp"

namespace perfdm {

// TOPOLOGY (target DM): no argument. Answered with topology_reply.
struct topology_query {};
PERFDM_INSPECT_EMPTY(topology_query)

// One node of the tree. The figures describe the link from the node to its parent, as the
// parent measured it on arrival (the engine, the root, has no link: its samples_per_s is the
// sum over its links, and it has no lag).
struct topology_node {
  // Index of the parent in topology_reply::nodes; the root (index 0) has none.
  bool has_parent = false;
  std::uint32_t parent = 0;
  std::string name;  // the component name its parent knows it by (the engine: <host>:<pid>)
  std::string host;  // the host it runs on (its own hostname)
  std::string kind;  // "engine", "relay", "daemon"; "" for a node that did not answer in time
  double samples_per_s = 0;  // samples received on the link over the last 5 s
  bool has_lag = false;      // a watermark arrived on the link over the last 5 s
  double lag_s = 0;          // mean of (arrival - watermark) over the last 5 s, seconds
  std::uint64_t components = 0;  // daemons in its subtree (a daemon: 1)
  std::uint64_t sources = 0;     // its own local data sources (watched, attached processes)
};
PERFDM_INSPECT(topology_node, x.has_parent, x.parent, x.name, x.host, x.kind, x.samples_per_s,
               x.has_lag, x.lag_s, x.components, x.sources)

// The tree in pre-order: a parent always comes before its children.
struct topology_reply {
  std::vector<topology_node> nodes;
};
PERFDM_INSPECT(topology_reply, x.nodes)

// Not of the command language: a parent (the engine, a relay) asks a child (a relay, a
// daemon) for its subtree, answered with topology_reply, its own node first. A relay asks
// its own children with half of `budget_ms` and answers within it, unanswered children
// included as what it knows of them, so a hung node below never holds TOPOLOGY up.
struct topology_probe {
  std::uint32_t budget_ms = 2000;
};
PERFDM_INSPECT(topology_probe, x.budget_ms)

}  // namespace perfdm
