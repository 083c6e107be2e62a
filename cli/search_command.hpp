// `perfdm search --pid PID`: watch a running program with an engine of its own, run the
// Performance Consultant's search on it, print one line per conclusion as the search goes,
// and at the end the search history graph (a tree, or --json).
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>

#include "cli/profile_export.hpp"

namespace perfdm {

struct search_command_options {
  int pid = 0;
  double seconds = 30;           // how long to search
  std::string phase = "global";  // global | current
  bool json = false;
  double checktime_ms = 10;  // mean ms between stack samples
  // Tunables (SEARCH's attributes); a negative value leaves the default.
  double sufficient_time = -1;
  double cpu_threshold = -1;
  double sync_threshold = -1;
  double io_threshold = -1;
  double small_io_bytes = -1;
  double cost_budget = -1;
  std::string log;     // write the session's log (with the SHG) here at the end
  std::string record;  // record the session (engine --record's format)
  profile_export_options profile;  // --folded, --pprof, --view: the run's call paths
};

CLI::App* add_search_command(CLI::App& app, search_command_options& options);

// 0 when the search ran (whatever it found); 1 when WATCH or SEARCH was refused (the reason
// on `err`).
int run_search_command(const search_command_options& options, std::ostream& out, std::ostream& err);

}  // namespace perfdm
