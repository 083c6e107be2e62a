// The search's structures as its messages carry them, and back (docs/PROTOCOL.md §12): the
// search history graph's nodes (SHG, SHGNODE), the findings (FINDINGS), the evidence the
// stack sample windows answer (WINDOW, EVIDENCE), and the data time of a histogram bucket.
// One place for each conversion, so that the search actor and `perfdm search` only call them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "messages/evidence_messages.hpp"
#include "messages/search_messages.hpp"
#include "pc/evidence.hpp"
#include "pc/findings.hpp"
#include "pc/focus.hpp"
#include "pc/search_graph.hpp"

namespace perfdm::pc {

// SHG's NODE and SHGNODE: a node of search `search`.
shg_node_info node_info(std::uint64_t search, const shg_node& n);
// A node as the findings need it, from NODE (its first parent only: the one the wire has).
node_view view_of(const shg_node_info& n);
// Every node of a search history graph as the findings need it, every parent included.
std::vector<node_view> views_of(const search_graph& g);

// FINDINGS: the findings of search `search`'s graph, ranked (pc::findings).
std::vector<finding_info> finding_infos(std::uint64_t search, const search_graph& g);
// FINDINGS' findings as pc::finding (function and caller from the graph `nodes` where it holds
// the node, text as FINDINGS wrote it), in their rank: what pc::fold_findings folds.
std::vector<finding> findings_of(const std::vector<finding_info>& infos,
                                 const std::vector<node_view>& nodes);

// One process's counts at a focus as the statistics take them.
process_evidence evidence_of(const evidence_counts& c);
// A focus as EVIDENCE's AT names it, and back.
evidence_focus evidence_at(const focus& f);
focus focus_of(const evidence_focus& at);
// EVIDENCE's counts by focus, each process's as the statistics take them.
std::map<focus, std::vector<process_evidence>> evidence_by_focus(const evidence_note& note);
// WINDOW's answers at `foci` (the query's, in its order) as search `search`'s EVIDENCE, at data
// time `time` or the latest sample counted if later. A process with no sample at a focus
// (outside its /Machine part) counts for nothing (pc/evidence.hpp) and is left out, so that a
// focus on one process of 64 records one entry, not 64. A daemon's process is told by its host
// too (the same pid may run on two hosts); those of `own_host` (the engine's) leave it out, so
// that a recording of a search on one machine reads the same.
evidence_note evidence_note_of(std::uint64_t search, double time, const std::vector<focus>& foci,
                               const window_answers& answers, const std::string& own_host);

// The data time of histogram bucket `bucket` of width `width` (seconds; ≤ 0: not known yet,
// the data manager's base width) from `origin` (0, or the phase's start).
struct bucket_span {
  double begin = 0, end = 0;
};
bucket_span span_of_bucket(std::uint64_t bucket, double width, double origin);

}  // namespace perfdm::pc
