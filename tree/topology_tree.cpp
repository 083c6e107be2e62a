#include "tree/topology_tree.hpp"

namespace perfdm {

void measure_link(topology_node& child, const link_meter& meter, time_ns now) {
  child.samples_per_s = meter.samples_per_s(now);
  auto lag = meter.lag_s(now);
  child.has_lag = lag.has_value();
  child.lag_s = lag.value_or(0);
}

void graft(std::vector<topology_node>& tree, std::uint32_t parent,
           const std::vector<topology_node>& answer, const topology_node& known) {
  const auto base = static_cast<std::uint32_t>(tree.size());
  topology_node own = answer.empty() ? topology_node{} : answer.front();
  own.has_parent = true;
  own.parent = parent;
  own.name = known.name;
  own.samples_per_s = known.samples_per_s;
  own.has_lag = known.has_lag;
  own.lag_s = known.lag_s;
  if (answer.empty()) own.host = known.host;
  tree.push_back(own);
  for (std::size_t i = 1; i < answer.size(); ++i) {
    auto n = answer[i];
    // Indices in the answer become indices in the tree; a node naming no earlier parent (a
    // malformed answer) hangs under the child itself, so the tree stays a tree.
    if (!n.has_parent || n.parent >= i) n.parent = 0;
    n.has_parent = true;
    n.parent += base;
    tree.push_back(std::move(n));
  }
}

void count_components(std::vector<topology_node>& tree) {
  for (auto& n : tree) n.components = n.kind == "daemon" ? 1 : 0;
  // Pre-order: children come after their parent, so from the back every subtree is complete
  // before it is added to its parent.
  for (std::size_t i = tree.size(); i-- > 1;)
    if (tree[i].has_parent && tree[i].parent < i) tree[tree[i].parent].components += tree[i].components;
}

}  // namespace perfdm
