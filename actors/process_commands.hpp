// The per-process commands of DyPer and the DYPATCH requests, as plain C++: the state one
// process keeps (settings, code classes, threads, agents, details, frame models) and one
// function that answers a command from it and from /proc. The two commands that need the
// engine (INSTRUMENT attaches or detaches frames, REPORT reads what is collected) return a
// follow-up that the process registry carries out.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/process_commands.hpp"
#include "messages/process_messages.hpp"

namespace perfdm {

// A command refused: its DM error code and why.
struct process_command_error : std::runtime_error {
  process_command_error(dm_error code, const std::string& reason)
      : std::runtime_error(reason), code(code) {}
  dm_error code;
};

// Code resources (shared objects and functions) are classified by their most specific
// (longest) matching prefix; PACKAGE entries name prefixes, CLASS entries whole names.
struct code_class {
  bool package = true;  // PACKAGE (a prefix) or CLASS (one name)
  std::string name;
  std::string type;  // NORMAL, SYSTEM, IO or SYSTEM_IO
};

struct detail_setting {
  std::string item;
  std::string agent;
  bool value = false;
};

struct process_command_state {
  process_command_state();
  std::map<std::string, std::string> variables;  // SET/GET, canonical text
  std::vector<code_class> classes;               // the defaults until CLASSES changes them
  std::map<std::string, bool> threads;           // USETHREAD: thread id -> used
  std::vector<std::string> agents;               // AGENT
  std::vector<detail_setting> details;           // SETDETAIL
  std::map<std::string, std::string> models;     // DYPATCH MODEL: name -> schema text
  std::string directory;                         // DYPATCH DIRECTORY
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

// REPORT's body: the metric instances of `status` whose focus names the process resource,
// and the process's frame counts.
// `sections`: the native sections (CPU, I/O, threads; native_report_sections), already XML.
std::string process_report(const process_info& info, const std::vector<frame_type_stats>& frames,
                           const status_info& status, const std::string& sections = {});

// The current time in milliseconds since the epoch.
std::int64_t epoch_now_ms();

}  // namespace perfdm
