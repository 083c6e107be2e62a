#include "native/call_graph.hpp"

#include <algorithm>
#include <set>
#include <string_view>

#include "native/pc_resources.hpp"
#include "proc/system_modules.hpp"

namespace perfdm::native {

namespace {

// The C++ library's wrappers a thread starts through (std::thread's _State_impl::_M_run,
// std::__invoke…), named with or without their return type.
bool library_wrapper(const std::string& function) {
  return function.compare(0, 5, "std::") == 0 || function.find(" std::") != std::string::npos;
}

}  // namespace

void call_graph::add_stack(const std::vector<stack_frame>& frames) {
  if (frames.empty()) return;
  ++stacks_;
  std::vector<std::string> names;
  names.reserve(frames.size());
  for (auto& f : frames) names.push_back(code_resource(f));
  std::string entry = names.back();
  auto startup = [&](std::size_t i) {
    return proc::system_module(frames[i].module) || frames[i].function == "_start" ||
           library_wrapper(frames[i].function);
  };
  for (std::size_t i = frames.size(); i-- > 0;) {
    if (startup(i)) continue;
    // The outermost frame, calling into the C library's start-up: a stripped executable's
    // _start (named by address, so not known by name); main comes after.
    if (i + 1 == frames.size() && i > 0 && startup(i - 1)) continue;
    entry = names[i];
    break;
  }
  ++entries_[entry];
  std::set<std::pair<std::string, std::string>> seen;  // a recursive call counts once
  for (std::size_t i = 0; i + 1 < names.size(); ++i) {
    if (names[i + 1] == names[i]) continue;
    std::pair<std::string, std::string> e{names[i + 1], names[i]};
    if (seen.insert(e).second) ++edges_[e];
  }
}

call_graph_view call_graph::view() const {
  call_graph_view v;
  v.stacks = stacks_;
  for (auto& [name, n] : entries_) v.entries.emplace_back(name, n);
  for (auto& [e, n] : edges_) v.edges.push_back(call_edge{e.first, e.second, n});
  return v;
}

void call_graph::clear() {
  stacks_ = 0;
  entries_.clear();
  edges_.clear();
}

void merge_call_graph(call_graph_view& into, const call_graph_view& from) {
  into.stacks += from.stacks;
  std::map<std::string, std::uint64_t> entries(into.entries.begin(), into.entries.end());
  for (auto& [name, n] : from.entries) entries[name] += n;
  into.entries.assign(entries.begin(), entries.end());
  std::map<std::pair<std::string, std::string>, std::uint64_t> edges;
  for (auto& e : into.edges) edges[{e.caller, e.callee}] += e.samples;
  for (auto& e : from.edges) edges[{e.caller, e.callee}] += e.samples;
  into.edges.clear();
  for (auto& [e, n] : edges) into.edges.push_back(call_edge{e.first, e.second, n});
}

}  // namespace perfdm::native
