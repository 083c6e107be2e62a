// The process registry's state (actors/process_registry_actor.cpp): every process observed
// (ATTACH, WATCH) with its DyPer settings, and the helpers its command follow-ups share
// (actors/process_registry_reports.hpp: REPORT and the periodic reports;
// actors/process_registry_details.hpp: SETDETAIL).
#pragma once

#include <caf/atom.hpp>
#include <caf/stateful_actor.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "actors/native_source_actor.hpp"
#include "dyper/dyper_report.hpp"
#include "dyper/process_commands.hpp"
#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/native_messages.hpp"
#include "messages/process_command_messages.hpp"
#include "messages/process_messages.hpp"

namespace perfdm {

struct observed_process {
  process_info info;
  caf::actor ingest;                        // null once it ended
  caf::actor native;                        // the native source while watched; null once it ended
  std::optional<native_ended> native_last;  // a watched process that exited: its last profile
  std::shared_ptr<const profile::call_path_store> flame_last;  // and its call paths
  bool attached = false;                    // until DETACH, or the ingest ended
  frames_stats last;                        // what the ingest had read when it ended
  process_command_state commands;           // DyPer's per-process settings; kept across re-attaches
  bool report_scheduled = false;            // a periodic report (REPORTTIME) is due
  std::uint64_t report_generation = 0;      // SET REPORTTIME restarts the periodic reports
  bool skip_first_report = true;            // DyPer's agent skips the first report that falls due
  // DyPer's REPORT: what it keeps from one report to the next, and what building one costs.
  std::shared_ptr<dyper_report_history> history;
  double report_cost_ms = 0;  // all reports together
  std::uint64_t reports = 0;
  // SETDETAIL: the metric instances each item turned on enabled, on the registry's stream.
  std::map<std::string, std::vector<mi_handle>> detailed;

  void update_flags() {
    info.watched = static_cast<bool>(native);
    info.active = attached || info.watched;
  }
};

struct registry_state {
  std::map<std::int32_t, observed_process> processes;  // by pid; ordered for listing
  std::vector<caf::actor> subscribers;  // gateway connections: START/END announcements
  // The stream SETDETAIL enables metric instances on (opened at the first SETDETAIL). Its
  // events come here and are dropped: the data is read through REPORT, DATA, the log.
  std::optional<stream_handle> detail_stream;
  // The current phase, as the data manager announced it (native sources keep their call
  // paths by phase).
  phase_info current_phase{phase_handle{0}, "phase_0", 0, -1, 0};
  static inline const char* name = "process_registry";
};

// A refused process command: a caf::error for DYPER, a DYPATCH_REPLY with ERROR for DYPATCH.
inline caf::message refusal(const process_command& c, dm_error code, const std::string& reason) {
  if (c.dypatch)
    return caf::make_message(process_command_reply{true, error_code_name(code), reason});
  return caf::make_message(make_dm_error(code, reason));
}

inline caf::message answer(const process_command& c, std::string body) {
  return caf::make_message(process_command_reply{c.dypatch, "", std::move(body)});
}

using registry_actor = caf::stateful_actor<registry_state>*;

// (report_tick_atom, pid, generation): a periodic report of `pid` is due, unless SET
// REPORTTIME restarted them since (another generation).
using report_tick_atom = caf::atom_constant<caf::atom("rpttick")>;

}  // namespace perfdm
