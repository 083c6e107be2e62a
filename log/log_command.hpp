// `perfdm log FILE`: prints a perfdm log (docs/LOG-FORMAT.md) as `#` header lines and one
// tab-separated row per value, or as JSON Lines. cli/main.cpp wraps it in a subcommand.
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
  bool show_partial = false;         // --show-partial: also print modules marked partial
  const log_printer_registry* registry = nullptr;  // null: default_log_printers()
};

// Prints the log to `out`. Errors go to `err` as "perfdm log: FILE: problem"; returns 0, or 1
// when the log cannot be read (rows printed before the problem was found stay printed).
int run_log_command(const log_command_options& options, std::ostream& out, std::ostream& err);

}  // namespace perfdm
