// The per-process commands of DyPer and the DYPATCH requests, as plain C++: the state one
// process keeps (settings, code classes, threads, agents, details, frame models) and one
// function that answers a command from it and from /proc. The two commands that need the
// engine (INSTRUMENT attaches or detaches frames, REPORT reads what is collected) return a
// follow-up that the process registry carries out.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "dyper/process_command_error.hpp"
#include "messages/agent_classes_reply.hpp"
#include "messages/agent_report_monitor.hpp"
#include "messages/agent_settings_replies.hpp"
#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/process_command_messages.hpp"
#include "messages/process_messages.hpp"

namespace perfdm {

// Code resources (shared objects and functions) are classified by their most specific
// (longest) matching prefix; PACKAGE entries name prefixes, CLASS entries whole names
// (code_class, messages/agent_classes_reply.hpp).

struct process_command_state {
  process_command_state();
  std::map<std::string, std::string> variables;  // SET/GET, canonical text
  std::vector<code_class> classes;               // the defaults until CLASSES changes them
  std::map<std::string, bool> threads;           // USETHREAD: thread id -> used
  std::vector<std::string> agents;               // AGENT
  std::vector<detail_setting> details;           // SETDETAIL
  std::map<std::string, std::string> models;     // DYPATCH MODEL: name -> schema text
  std::string directory;                         // DYPATCH DIRECTORY
  std::int64_t overhead_ms = 0;  // what observing the process cost it (PING's PONG), ms
};

// SETDETAIL's settings, as its argument gives them; throws process_command_error.
std::vector<detail_setting> parse_detail_settings(const std::string& argument);

// What detailing an item collects: one metric at one focus (a resource name).
struct detail_target {
  std::string metric;
  std::string focus;
};

// The metrics and foci an ITEM of SETDETAIL names for the process `info`, among the metrics
// defined (`metrics`): a frame type (`work`: every field of it, at /Process/n{pid}/work), a
// frame field's metric (`work.latency_us`) or the field alone (`latency_us`), or, for a
// watched process, one of its /proc metrics (`proc.rss`, at the process). Empty when it
// names nothing.
std::vector<detail_target> detail_targets(const std::string& item, const process_info& info,
                                          const std::vector<metric_info>& metrics);

// DyPer's short agent names (CPU, THREADS, TIMING, MEMORY, IO, REACTION), as CLEAR and
// SETDETAIL give them in their AGENT attribute.
bool is_dyper_agent_name(const std::string& name);

// The type of a code resource's name ("NORMAL" when nothing matches).
std::string classify(const std::vector<code_class>& classes, const std::string& name);

struct process_command_outcome {
  enum follow_up_kind { none, attach, detach, report, showstack };
  follow_up_kind follow_up = none;
  std::string body;  // the reply's XML
};

// Answers `c` for the process `info`; throws process_command_error.
process_command_outcome run_process_command(process_command_state& state, const process_info& info,
                                            const process_command& c);

// REPORT's perfdm parts, beside DyPer's (dyper/dyper_report.hpp): the MONITOR attributes
// PROCESS and ACTIVE, and the sections METRICS (the metric instances of `status` whose focus
// names the process resource) and FRAMES (the process's frame counts).
void add_process_report_parts(agent_report_monitor& report, const process_info& info,
                              const std::vector<frame_type_stats>& frames,
                              const status_info& status);

// The current time in milliseconds since the epoch.
std::int64_t epoch_now_ms();

}  // namespace perfdm
