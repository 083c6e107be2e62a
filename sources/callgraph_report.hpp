// Between the sampled call graph (native/call_graph.hpp) and CALLGRAPH's reply
// (messages/callgraph_messages.hpp), and merging the replies of several processes. Plain C++.
#pragma once

#include "messages/callgraph_messages.hpp"
#include "native/call_graph.hpp"

namespace perfdm {

callgraph_report to_callgraph_report(const native::call_graph_view& view, std::int32_t pid);

// Adds `from` into `into` (the same function called from two processes adds up).
void merge_callgraph_report(callgraph_report& into, const callgraph_report& from);

}  // namespace perfdm
