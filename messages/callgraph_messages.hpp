// CALLGRAPH: the call graph the stack samples of watched processes show (native/call_graph.hpp),
// for the Performance Consultant's refinement of /Code along callers and callees.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "messages/inspect_macros.hpp"

namespace perfdm {

// `pid` 0: every watched process, merged.
struct callgraph_request {
  std::int32_t pid = 0;
};
PERFDM_INSPECT(callgraph_request, x.pid)

struct callgraph_entry {
  std::string name;           // /Code/<module>/<function>
  std::uint64_t samples = 0;  // stacks it was the entry of
};
PERFDM_INSPECT(callgraph_entry, x.name, x.samples)
struct callgraph_edge {
  std::string caller, callee;  // /Code/<module>/<function>
  std::uint64_t samples = 0;   // stacks that held the call
};
PERFDM_INSPECT(callgraph_edge, x.caller, x.callee, x.samples)
// `<CALLGRAPH [PID] STACKS><ENTRY NAME SAMPLES/>…<EDGE CALLER CALLEE SAMPLES/>…</CALLGRAPH>`.
struct callgraph_report {
  std::int32_t pid = 0;  // 0: every watched process
  std::uint64_t stacks = 0;
  bool ended = false;  // the process exited: the graph of its samples until then
  std::vector<callgraph_entry> entries;
  std::vector<callgraph_edge> edges;
};

PERFDM_INSPECT(callgraph_report, x.pid, x.stacks, x.ended, x.entries, x.edges)

}  // namespace perfdm
