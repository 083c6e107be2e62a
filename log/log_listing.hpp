// `perfdm log FILE`: prints a perfdm log (docs/LOG-FORMAT.md) as `#` header lines and one
// tab-separated row per value, or as JSON Lines; a Darshan log (known by its magic number,
// whatever its name) as darshan-parser prints it (darshan/darshan_text.hpp), or as CSV
// tables. cli/log_command.cpp wraps it in a subcommand.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "log/log_print.hpp"

namespace perfdm {

struct log_command_options {
  std::string file;                  // FILE: the log, NAME or NAME.partial
  bool json = false;                 // --json: JSON Lines
  std::vector<std::string> modules;  // --module NAME (repeatable): only these modules
  bool show_partial = false;         // --show-partial (--show-incomplete): also print modules
                                     // marked partial
  // Darshan logs only:
  bool total = false;    // --total: darshan-parser's totals of POSIX, MPI-IO and STDIO
  bool perf = false;     // --perf: its performance estimate
  bool file_counts = false;  // --file: its file counts
  bool base = false;     // --base: the records too when --total, --perf or --file is given
  bool dxt = false;      // --dxt: darshan-dxt-parser's output (the DXT segments)
  std::string csv_dir;   // --csv DIR: one CSV table per module into DIR instead of printing
  const log_printer_registry* registry = nullptr;  // null: default_log_printers()
};

// Prints the log to `out`. Errors go to `err` as "perfdm log: FILE: problem"; returns 0, or 1
// when the log cannot be read (rows printed before the problem was found stay printed).
int run_log_command(const log_command_options& options, std::ostream& out, std::ostream& err);

}  // namespace perfdm
