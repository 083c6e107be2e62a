// `perfdm search --pid PID…` or `perfdm search -- CMD ARGS…`: watch running programs, or
// start one (held until it is watched, proc/program_launcher.hpp) and every descendant it
// starts, with an engine of its own (which daemons may join: --publish, --daemons); run the
// Performance Consultant's search; print each finding as it settles, and at the end the findings
// ranked (cli/search_report.hpp), the search history graph with --shg, or all of it as JSON.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

#include "cli/engine_publisher.hpp"
#include "cli/profile_export.hpp"

namespace perfdm {

struct search_command_options {
  std::vector<int> pids;             // --pid, repeatable
  std::vector<std::string> command;  // after --: the program to start
  double seconds = 30;               // how long to search
  std::string phase = "global";      // global | current
  bool json = false;
  bool shg = false;          // print the whole search history graph too
  bool io = true;            // preload the I/O library into the program it starts (--no-io)
  std::string output;        // -o: the report goes here instead of standard output
  double checktime_ms = 10;  // mean ms between stack samples
  // Tunables (SEARCH's attributes); a negative value leaves the default.
  double sufficient_time = -1;
  double confidence = -1;
  double cpu_threshold = -1;
  double sync_threshold = -1;
  double io_threshold = -1;
  double small_io_bytes = -1;
  double cost_budget = -1;
  std::string log;                 // write the session's log (with the SHG) here at the end
  std::string record;              // record the session (engine --record's format)
  profile_export_options profile;  // --folded, --pprof, --view: the run's call paths
  // --publish: daemons and relays connect to the search's engine, and the search covers
  // their processes too; --daemons: how many to wait for before it starts.
  publish_options publish;
  int daemons = 0;
  double daemons_wait = 30;  // seconds at most
};

CLI::App* add_search_command(CLI::App& app, search_command_options& options);

// With --pid: 0 when the search ran (whatever it found); 1 when WATCH or SEARCH was refused
// (the reason on `err`). With a command: the program's exit code (128 + signal when a signal
// ended it; 0 when the search ended it at --seconds; 130 after Ctrl-C); 127 when it cannot
// be started (126 when it is not executable).
int run_search_command(const search_command_options& options, std::ostream& out, std::ostream& err);

}  // namespace perfdm
