#include "cli/log_command.hpp"

#include "cli/darshan_log_options.hpp"
#include "log/log_modules.hpp"
#include "trace/log_trace.hpp"

namespace perfdm {

CLI::App* add_log_command(CLI::App& app, log_command_line_options& o) {
  auto* log = app.add_subcommand(
      "log", "Print a perfdm log: # header lines, then one tab-separated row per value "
             "(module, record id, counter, value, name); or a Darshan log, as darshan-parser");
  log->add_option("FILE", o.listing.file, "the log (NAME, or NAME.partial after a crash)")
      ->required();
  log->add_flag("--json", o.listing.json, "print JSON Lines instead");
  log->add_option("--module", o.listing.modules,
                  "print only this module (repeatable); posix, stdio, mpiio, heatmap, dxt_posix, "
                  "dxt_mpiio of a perfdm io log in darshan-parser's layout")
      ->allow_extra_args(false);
  log->add_flag("--show-partial", o.listing.show_partial,
                "also print modules marked partial (they ran out of memory)");
  log->add_option("--trace-event", o.trace_event,
                  "write the Data Manager's histograms and phases as a Chrome trace (JSON, for "
                  "Perfetto and chrome://tracing) to this file instead of printing");
  add_profile_export_options(log, o.profile);  // --folded, --pprof, --view (docs/FLAME.md)
  add_darshan_log_options(log, o.listing);      // darshan-parser's options, --csv
  return log;
}

int run_log_command_line(const log_command_line_options& o, std::ostream& out,
                         std::ostream& err) {
  add_log_module_printers(default_log_printers());
  if (!o.trace_event.empty()) return run_log_trace_command(o.listing.file, o.trace_event, err);
  if (o.profile.wanted()) return run_log_profile_export(o.listing.file, o.profile, err);
  return run_log_command(o.listing, out, err);
}

}  // namespace perfdm
