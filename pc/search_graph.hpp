// The search history graph (SHG): one node per (hypothesis, focus); reaching a node again
// only adds an edge (Paradyn's where axis and search history graph).
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "pc/focus.hpp"
#include "pc/hypotheses.hpp"

namespace perfdm::pc {

enum class node_state { never, unknown, true_, false_ };
enum class edge_kind { why, where };
const char* state_name(node_state s);  // "never", "unknown", "true", "false"

struct shg_edge {
  std::uint64_t from;
  edge_kind kind;
};

struct shg_node {
  std::uint64_t id = 0;
  hypothesis hyp = hypothesis::cpu_bound;
  pc::focus focus;
  std::vector<shg_edge> parents;  // the first one made the node
  std::vector<std::uint64_t> children;
  node_state state = node_state::never;
  bool active = false;      // its experiment collects and is evaluated
  bool persistent = false;  // a top-level node: keeps running after a false conclusion
  double value = 0;
  double threshold = 0;
  std::optional<double> since;  // search time it last became true
  // From the evidence (pc/evidence.hpp evidence_value), NaN where not known (Paradyn's rule on
  // metric instances): what a fix would save (the findings' rank), the threads in the state
  // at the focus on average; the threads waiting for its work and the idle threads (0: none).
  double score = std::nan("");
  double threads = std::nan("");
  double blamed = 0;
  double idle = 0;
  // The hierarchy of the where-edge that made it (none: a top or why node), and how far its
  // own where-refinement went (an index into its refinement order).
  std::optional<hierarchy> reached_by;
  std::size_t where_stage = 0;
  bool refined = false;

  std::optional<std::uint64_t> parent() const {
    if (parents.empty()) return std::nullopt;
    return parents.front().from;
  }
};

class search_graph {
 public:
  // The node of (h, f), made if new, with an edge from `parent` (none for a top node).
  // Returns its id and whether it was made now.
  std::pair<std::uint64_t, bool> reach(hypothesis h, const focus& f,
                                       std::optional<std::uint64_t> parent, edge_kind kind);
  std::optional<std::uint64_t> find(hypothesis h, const focus& f) const;
  shg_node& at(std::uint64_t id) { return nodes_.at(id); }
  const shg_node& at(std::uint64_t id) const { return nodes_.at(id); }
  const std::vector<shg_node>& nodes() const { return nodes_; }
  std::size_t size() const { return nodes_.size(); }

 private:
  std::vector<shg_node> nodes_;
  std::map<std::pair<hypothesis, focus>, std::uint64_t> index_;
};

}  // namespace perfdm::pc
