#include "pc/search_graph.hpp"

#include <algorithm>

namespace perfdm::pc {

const char* state_name(node_state s) {
  switch (s) {
    case node_state::never:
      return "never";
    case node_state::unknown:
      return "unknown";
    case node_state::true_:
      return "true";
    case node_state::false_:
      return "false";
  }
  return "never";
}

std::pair<std::uint64_t, bool> search_graph::reach(hypothesis h, const focus& f,
                                                   std::optional<std::uint64_t> parent,
                                                   edge_kind kind) {
  auto key = std::make_pair(h, f);
  bool made = false;
  std::uint64_t id;
  if (auto i = index_.find(key); i != index_.end()) {
    id = i->second;
  } else {
    id = nodes_.size();
    shg_node n;
    n.id = id;
    n.hyp = h;
    n.focus = f;
    nodes_.push_back(std::move(n));
    index_.emplace(key, id);
    made = true;
  }
  if (parent && *parent != id) {
    auto& parents = nodes_[id].parents;
    bool known = std::any_of(parents.begin(), parents.end(),
                             [&](const shg_edge& e) { return e.from == *parent; });
    if (!known) {
      parents.push_back({*parent, kind});
      nodes_[*parent].children.push_back(id);
    }
  }
  return {id, made};
}

std::optional<std::uint64_t> search_graph::find(hypothesis h, const focus& f) const {
  if (auto i = index_.find(std::make_pair(h, f)); i != index_.end()) return i->second;
  return std::nullopt;
}

}  // namespace perfdm::pc
