// The sampled call graph of a process, for the Performance Consultant's refinement of /Code
// along callers and callees (CALLGRAPH, docs/NATIVE.md §9). Plain C++.
//
// Every stack sampled (any state: a call graph is structure, not time) adds, once per stack:
// - each caller → callee pair of adjacent frames (functions named as /Code resources;
//   a function calling itself adds nothing);
// - its entry: the outermost frame outside the system's start-up code (the C library, the
//   dynamic loader, libstdc++, libgcc, `_start`, the `std::` wrappers of std::thread), i.e.
//   `main` for the main thread and a thread's start routine for the others; the outermost
//   frame when every frame is such code. The frames outside it still give edges.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "native/stack_sampler.hpp"

namespace perfdm::native {

struct call_edge {
  std::string caller, callee;  // /Code/<module>/<function>
  std::uint64_t samples = 0;   // stacks that held the call
};

struct call_graph_view {
  std::uint64_t stacks = 0;
  std::vector<std::pair<std::string, std::uint64_t>> entries;  // by name, with stack counts
  std::vector<call_edge> edges;                                // by caller, then callee
};

class call_graph {
 public:
  // One thread's stack, innermost frame first.
  void add_stack(const std::vector<stack_frame>& frames);
  call_graph_view view() const;
  void clear();

 private:
  std::uint64_t stacks_ = 0;
  std::map<std::string, std::uint64_t> entries_;
  std::map<std::pair<std::string, std::string>, std::uint64_t> edges_;
};

// Adds `from` into `into` (the graphs of several processes).
void merge_call_graph(call_graph_view& into, const call_graph_view& from);

}  // namespace perfdm::native
