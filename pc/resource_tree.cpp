#include "pc/resource_tree.hpp"

#include <algorithm>

namespace perfdm::pc {

namespace {

std::string parent_of(const std::string& name) {
  auto slash = name.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : name.substr(0, slash);
}

std::size_t depth_of(const std::string& name) {
  return static_cast<std::size_t>(std::count(name.begin(), name.end(), '/'));
}

}  // namespace

bool resource_tree::add(const std::string& name) {
  hierarchy h;
  if (!hierarchy_of(name, h) || name.back() == '/' || name.find("//") != std::string::npos)
    return false;
  if (known_.count(name)) return false;
  std::string root = hierarchy_root(h);
  // Ancestors first, up to the hierarchy's root.
  if (name != root) add(parent_of(name));
  known_.insert(name);
  if (name != root) children_[parent_of(name)].insert(name);
  return true;
}

bool resource_tree::set_call_graph(std::vector<std::string> entries, std::vector<call_edge> edges) {
  std::set<std::string> new_entries(entries.begin(), entries.end());
  std::map<std::string, std::set<std::string>> new_callees;
  for (auto& e : edges)
    if (e.caller != e.callee) new_callees[e.caller].insert(e.callee);
  if (new_entries == entries_ && new_callees == callees_) return false;
  entries_ = std::move(new_entries);
  callees_ = std::move(new_callees);
  return true;
}

std::vector<std::string> resource_tree::refinements(hierarchy h,
                                                    const std::string& component) const {
  const std::set<std::string>* next = nullptr;
  if (h == hierarchy::file) {
    // Files, not directories: a file's directories are levels of its name for the resource
    // tree, but refining through each would cost a conclusion per level.
    std::vector<std::string> files;
    std::string prefix = component + "/";
    for (auto i = known_.lower_bound(prefix);
         i != known_.end() && i->compare(0, prefix.size(), prefix) == 0; ++i)
      if (!children_.count(*i)) files.push_back(*i);
    return files;
  }
  if (h == hierarchy::code && has_call_graph()) {
    if (component == hierarchy_root(h)) {
      next = &entries_;
    } else if (auto i = callees_.find(component); i != callees_.end()) {
      next = &i->second;
    }
  } else if (auto i = children_.find(component); i != children_.end()) {
    next = &i->second;
  }
  if (next == nullptr) return {};
  return {next->begin(), next->end()};
}

std::size_t resource_tree::processes_under(const std::string& machine_component) const {
  // /Machine/<host>/<process> has depth 3: a process or thread component is one process.
  if (depth_of(machine_component) >= 3) return 1;
  std::size_t n = 0;
  std::string prefix = machine_component + "/";
  for (auto& r : known_)
    if (depth_of(r) == 3 && r.compare(0, prefix.size(), prefix) == 0) ++n;
  return std::max<std::size_t>(n, 1);
}

}  // namespace perfdm::pc
