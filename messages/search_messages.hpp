// The Performance Consultant's commands and event (docs/PROTOCOL.md "SEARCH, SHG"):
// SEARCH starts, pauses, resumes or stops the global or the current phase's search, SHG
// answers the search history graph, and every node change reaches every open stream as
// an SHGNODE event.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "messages/dm_types.hpp"
#include "messages/handles.hpp"
#include "messages/inspect_macros.hpp"

namespace perfdm {

enum class search_action : std::uint8_t { start, pause, resume, stop };

// SEARCH: `tunables` holds the attributes given, by upper-case name (CPU_THRESHOLD, …).
struct search_request {
  phase_type phase = phase_type::global;
  search_action action = search_action::start;
  std::map<std::string, double> tunables;
  bool follow = false;  // START CURRENT: start a search for every later phase too
};
PERFDM_INSPECT(search_request, x.phase, x.action, x.tunables, x.follow)

// A search as SEARCH answers it.
struct search_info {
  std::uint64_t id = 0;
  phase_type phase = phase_type::global;
  phase_handle phase_id;  // the phase a CURRENT search belongs to (0 for GLOBAL)
  std::string state;      // running, paused, ended
  std::uint64_t nodes = 0;
  bool cost_limited = false;  // admission paused: the measured cost is over the budget
};
PERFDM_INSPECT(search_info, x.id, x.phase, x.phase_id, x.state, x.nodes, x.cost_limited)

// SHG: every search's nodes, or one search's (`has_search`).
struct shg_request {
  bool has_search = false;
  std::uint64_t search = 0;
};
PERFDM_INSPECT(shg_request, x.has_search, x.search)

struct shg_node_info {
  std::uint64_t search = 0;
  std::uint64_t id = 0;
  bool has_parent = false;
  std::uint64_t parent = 0;
  std::string hypothesis;
  std::string code;
  std::string machine;
  std::string syncobject;
  std::string file;  // /File…; "" (as from older code) stands for the root
  std::string state;  // never, unknown, true, false
  bool active = false;
  double value = 0;
  double threshold = 0;
  double since = -1;  // seconds after the search started it became true; -1: never
  // From the evidence (pc/search_graph.hpp shg_node): SCORE, THREADS (NaN: not known),
  // BLAMED, IDLE.
  double score = std::nan("");
  double threads = std::nan("");
  double blamed = 0;
  double idle = 0;
};
PERFDM_INSPECT(shg_node_info, x.search, x.id, x.has_parent, x.parent, x.hypothesis, x.code,
               x.machine, x.syncobject, x.file, x.state, x.active, x.value, x.threshold, x.since,
               x.score, x.threads, x.blamed, x.idle)

struct shg_reply {
  std::vector<shg_node_info> nodes;
};
PERFDM_INSPECT(shg_reply, x.nodes)

// FINDINGS: the searches' findings (pc/findings.hpp), ranked; every search's, or one's.
struct findings_request {
  bool has_search = false;
  std::uint64_t search = 0;
};
PERFDM_INSPECT(findings_request, x.has_search, x.search)

struct finding_info {
  std::uint64_t rank = 0;  // 1 = the first
  std::uint64_t search = 0;
  std::uint64_t node = 0;
  std::string hypothesis;
  std::string code;
  std::string machine;
  std::string syncobject;
  std::string file;
  double value = 0;
  double threshold = 0;
  double since = -1;
  double score = std::nan("");  // what a fix would save (pc/findings.hpp), NaN: not known
  std::int32_t pid = 0;
  std::int32_t tid = 0;
  std::string function;  // "lzma_code (liblzma.so.5)"
  std::string text;      // the line perfdm search prints
};
PERFDM_INSPECT(finding_info, x.rank, x.search, x.node, x.hypothesis, x.code, x.machine,
               x.syncobject, x.file, x.value, x.threshold, x.since, x.score, x.pid, x.tid,
               x.function, x.text)

struct findings_reply {
  std::vector<finding_info> findings;
};
PERFDM_INSPECT(findings_reply, x.findings)

struct shg_node_event {
  stream_handle stream;
  shg_node_info node;
};

PERFDM_INSPECT(shg_node_event, x.stream, x.node)

}  // namespace perfdm
