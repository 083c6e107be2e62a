// What the search knows of the where axis: the resources of the three hierarchies as the
// data manager defines them, and the sampled call graph, along which /Code is refined
// (entry functions, then callees: a hot callee with several callers is reached even when no
// caller is hot enough alone, as Paradyn refined).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "pc/focus.hpp"

namespace perfdm::pc {

struct call_edge {
  std::string caller;  // /Code/<module>/<function>
  std::string callee;
};

class resource_tree {
 public:
  // A resource of /Code, /Machine, /SyncObject or /File and its ancestors; others are ignored.
  // Returns true when it was new.
  bool add(const std::string& name);
  bool contains(const std::string& name) const { return known_.count(name) != 0; }

  // Replaces the call graph. Returns true when it changed.
  bool set_call_graph(std::vector<std::string> entries, std::vector<call_edge> edges);
  bool has_call_graph() const { return !entries_.empty(); }

  // The components one where-refinement of `component` (in hierarchy `h`) reaches, sorted:
  // /Code along the call graph when there is one (else module, then function), /File to the
  // files under it at once (the leaves, past their directories), the others along the
  // resource tree.
  std::vector<std::string> refinements(hierarchy h, const std::string& component) const;

  // Processes (/Machine/<host>/<process>) at or under a /Machine component, at least 1: the
  // divisor of the per-process hypotheses.
  std::size_t processes_under(const std::string& machine_component) const;

 private:
  std::set<std::string> known_;
  std::map<std::string, std::set<std::string>> children_;
  std::set<std::string> entries_;
  std::map<std::string, std::set<std::string>> callees_;
};

}  // namespace perfdm::pc
