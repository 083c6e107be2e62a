// One run of the Performance Consultant over an engine session (`perfdm search`): the
// processes watched (a launched program and its descendants as they appear, --pid, the
// daemons'), the search started, its events followed until the program ends, the watched
// processes are gone, --seconds passes or Ctrl-C comes; then what it found.
#pragma once

#include <iosfwd>
#include <optional>
#include <vector>

#include "cli/search_command.hpp"
#include "cli/xml_session.hpp"
#include "messages/process_messages.hpp"
#include "messages/search_messages.hpp"
#include "pc/finding_folding.hpp"
#include "proc/program_launcher.hpp"

namespace perfdm {

struct search_outcome {
  shg_reply graph;
  findings_reply found;
  std::vector<process_info> watched;         // what each WATCH answered: the processes searched
  std::vector<pc::searched_process> remote;  // the daemons' processes (with --publish)
  std::optional<int> exit_status;            // the launched program's
  bool ended_by_us = false;                  // the program was ended at --seconds or Ctrl-C
  bool interrupted = false;                  // Ctrl-C or SIGTERM
  bool all_gone = false;                     // every --pid process exited
  double searched = 0;  // seconds from the session's start to the search's end
  double started = 0;   // seconds from the session's start to the search's start
};

// Runs the search on `s`, with `program` (may be null) held until it is watched. Each finding
// as it settles (and with --shg each conclusion) goes to `out` unless --json; nothing when a
// WATCH or the SEARCH was refused (the reason, one sentence, on `err`).
std::optional<search_outcome> run_search(session& s, const search_command_options& o,
                                         launched_program* program, std::ostream& out,
                                         std::ostream& err);

}  // namespace perfdm
