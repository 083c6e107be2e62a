// The search's answer in a few lines: its findings. A finding is a true node of the search
// history graph with no true refinement (no true node below it, by an edge of the graph or by
// a narrower focus of the same or a sub-hypothesis). Since the search refines one hierarchy
// after another, the deepest true node names code and thread (or lock, or file) together.
// Findings are ranked by how far their value lies beyond the threshold. `perfdm search`,
// FINDINGS and `perfdm top` all print them with finding_text.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "pc/search_graph.hpp"

namespace perfdm::pc {

// One SHG node as the findings need it (from pc::shg_node, or from SHGNODE events).
struct node_view {
  std::uint64_t id = 0;
  std::vector<std::uint64_t> parents;  // every parent known; the CLI knows only the first
  std::string hypothesis;              // "CPUbound"
  std::string code = "/Code";
  std::string machine = "/Machine";
  std::string syncobject = "/SyncObject";
  std::string file;   // "/File/…", or "" where the search has no /File
  std::string state;  // never, unknown, true, false
  bool active = false;
  double value = 0;
  double threshold = 0;
  double since = -1;  // seconds after the search started it became true; -1: never
  // From the evidence (pc::shg_node): what a fix would save, the threads in the state on
  // average (NaN: not known); the threads waiting for its work and the idle ones.
  double score = std::nan("");
  double threads = std::nan("");
  double blamed = 0;
  double idle = 0;
  // The evidence behind an open node, where the search keeps it (NaN / -1: not known).
  double low = std::nan("");
  double high = std::nan("");
  long long samples = -1;
};

struct finding {
  node_view node;
  double score = 0;  // value over threshold (threshold over value for a "below" test)
  bool inconclusive = false;
  // From the focus: what a front end highlights (0 / "" when the focus does not name it).
  int pid = 0;
  int tid = 0;
  std::string host;  // the /Machine host the focus names ("" above a host)
  // The nodes searched span several hosts: the text names the host with the process or
  // thread ("— process node3:job{42}"), as two hosts may run the same pid.
  bool host_named = false;
  std::string function;  // "lzma_code (liblzma.so.5)"
  // When `function` is in a system library (libc, libstdc++, the vDSO, …) or has no symbol
  // ("liblzma.so.5+0x15ae0"): the nearest named function of the program's own above it on
  // the search's path, the call a person can change or look up ("update_shared_table
  // (pc_lock)", "lzma_code (liblzma.so.5)"); "" otherwise.
  std::string caller;
  std::string text;      // finding_text
};

// True when `b` refines `a` by its focus and hypothesis alone: the same hypothesis or a
// sub-hypothesis, every component equal to or below `a`'s, and not the same node.
bool refines_by_focus(const node_view& b, const node_view& a);

// The findings, ranked: highest score first, then the earliest, then by id.
std::vector<finding> findings(const std::vector<node_view>& nodes);

// The findings whose refinement is over: every node below them concluded false (or there is
// none). A front end prints these as they come; a finding still being refined may yet give
// way to a deeper one.
std::vector<finding> settled_findings(const std::vector<node_view>& nodes);

// What the data showed where nothing concluded: the open nodes (state unknown: evaluated,
// not concluded), ranked by score, at most `limit`.
std::vector<finding> inconclusive_nodes(const std::vector<node_view>& nodes, std::size_t limit);

// A /Code resource's function part as a person reads it: %XX decoded
// (native/pc_resources.hpp): "crypto%2Fsha256.block" is "crypto/sha256.block".
std::string readable_function(const std::string& part);

// For a frame of JIT code no perf map named ("[jit node] (node)", native/jit_code.hpp): what
// gives it names ("node --perf-basic-prof names it"); "" for any other function.
std::string perf_map_advice(const std::string& function);

// "CPUbound 99% of time in lzma_code (liblzma.so.5) — thread xz{4711} — since 1.4 s";
// "… in __lll_lock_wait (libc.so.6) from update_shared_table (pc_lock) — on Mutex/0x… …";
// an inconclusive node ends "— inconclusive: value 0.25 [0.1, 0.4], 40 samples".
std::string finding_text(const finding& f);

// finding_text's parts, for the folded findings (pc/finding_folding.hpp):
// the value, "94% of time" or "94–99% of time" (low and high differ once printed), or
// "12 bytes per I/O operation";
std::string value_text(const std::string& hypothesis, double low, double high);
// where, without /Machine: " in tokenize (pc_cpu) from … — on Mutex/0x… — file /tmp/x";
std::string where_text(const finding& f);
// the /Machine part: " — thread pc_cpu{3093}", " — process …", " — host …", or ""; with
// `name_host`, " — thread node3:pc_cpu{3093}", " — process node3:…".
std::string machine_text(const std::string& machine, bool name_host = false);

// Whether the nodes' /Machine parts name more than one host (their findings then name hosts).
bool spans_hosts(const std::vector<node_view>& nodes);

// The threads idle (waiting for work) on average in the programs searched, as the top
// focus's evidence saw them (0 when none, or not known): what a report says instead of
// findings about them ("4 idle threads").
double idle_threads(const std::vector<node_view>& nodes);
// "4 threads idle, waiting for work", "" below one half.
std::string idle_text(double idle);

// The finding a node makes (its text, function, caller, pid, tid), as findings() makes it.
finding finding_of(const node_view& n, const std::vector<node_view>& nodes);

}  // namespace perfdm::pc
