// The Performance Consultant's commands and event (docs/PROTOCOL.md "SEARCH, SHG"):
// SEARCH starts, pauses, resumes or stops the global or the current phase's search, SHG
// answers the search history graph, and every node change reaches every open stream as
// an SHGNODE event.
#pragma once

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
};
PERFDM_INSPECT(shg_node_info, x.search, x.id, x.has_parent, x.parent, x.hypothesis, x.code,
               x.machine, x.syncobject, x.file, x.state, x.active, x.value, x.threshold, x.since)

struct shg_reply {
  std::vector<shg_node_info> nodes;
};
PERFDM_INSPECT(shg_reply, x.nodes)

struct shg_node_event {
  stream_handle stream;
  shg_node_info node;
};

PERFDM_INSPECT(shg_node_event, x.stream, x.node)

}  // namespace perfdm
