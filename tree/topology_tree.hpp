// Building a TOPOLOGY reply from the answers of a node's children: plain C++, used
// by the engine and by every relay, so the tree is put together the same way at any depth.
#pragma once

#include <optional>
#include <vector>

#include "tree/link_meter.hpp"
#include "messages/topology_messages.hpp"

namespace perfdm {

// A child's own node with the figures of its link, as its parent measured them at `now`.
void measure_link(topology_node& child, const link_meter& meter, time_ns now);

// Appends `answer` (a child's topology_reply: its own node first, then its subtree in
// pre-order) under node `parent` of `tree`; `known` replaces the child's own node's link
// figures and name (the parent's view of the link). An empty answer (the child did not answer
// in time, or cannot) appends `known` alone, with an empty kind.
void graft(std::vector<topology_node>& tree, std::uint32_t parent,
           const std::vector<topology_node>& answer, const topology_node& known);

// Sets every node's `components` (daemons in its subtree) from the kinds of the nodes below:
// a daemon counts 1, a node that did not answer 0.
void count_components(std::vector<topology_node>& tree);

}  // namespace perfdm
