#include "sources/callgraph_report.hpp"

namespace perfdm {

namespace {

native::call_graph_view to_view(const callgraph_report& r) {
  native::call_graph_view v;
  v.stacks = r.stacks;
  for (auto& e : r.entries) v.entries.emplace_back(e.name, e.samples);
  for (auto& e : r.edges) v.edges.push_back(native::call_edge{e.caller, e.callee, e.samples});
  return v;
}

}  // namespace

callgraph_report to_callgraph_report(const native::call_graph_view& view, std::int32_t pid) {
  callgraph_report r;
  r.pid = pid;
  r.stacks = view.stacks;
  for (auto& [name, n] : view.entries) r.entries.push_back(callgraph_entry{name, n});
  for (auto& e : view.edges) r.edges.push_back(callgraph_edge{e.caller, e.callee, e.samples});
  return r;
}

void merge_callgraph_report(callgraph_report& into, const callgraph_report& from) {
  auto v = to_view(into);
  native::merge_call_graph(v, to_view(from));
  auto pid = into.pid;
  into = to_callgraph_report(v, pid);
}

}  // namespace perfdm
