// `perfdm log FILE`: prints a perfdm log (log/log_listing.hpp), or writes its histograms and
// phases as a Chrome trace (--trace-event), or its call paths as folded stacks or a pprof
// profile (--folded, --pprof).
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>

#include "cli/profile_export.hpp"
#include "log/log_listing.hpp"

namespace perfdm {

struct log_command_line_options {
  log_command_options listing;
  std::string trace_event;          // --trace-event OUT.json
  profile_export_options profile;   // --folded, --pprof, --view
};

CLI::App* add_log_command(CLI::App& app, log_command_line_options& options);

int run_log_command_line(const log_command_line_options& options, std::ostream& out,
                         std::ostream& err);

}  // namespace perfdm
