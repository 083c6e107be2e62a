#include "cli/darshan_log_options.hpp"

namespace perfdm {

void add_darshan_log_options(CLI::App* log, log_command_options& o) {
  log->add_flag("--show-incomplete", o.show_partial,
                "the same as --show-partial (darshan-parser's name)");
  log->add_flag(
      "--total", o.total,
      "Darshan or perfdm io log: the totals of POSIX, MPI-IO and STDIO, as darshan-parser --total");
  log->add_flag(
      "--perf", o.perf,
      "Darshan or perfdm io log: bytes and the slowest rank's I/O time, as darshan-parser --perf");
  log->add_flag(
      "--file", o.file_counts,
      "Darshan or perfdm io log: files by kind (read-only, shared...), as darshan-parser --file");
  log->add_flag("--base", o.base, "Darshan log: the records too, with --total, --perf or --file");
  log->add_flag("--dxt", o.dxt, "Darshan log: the DXT traces, as darshan-dxt-parser prints them");
  log->add_option("--csv", o.csv_dir,
                  "Darshan log: write one CSV table per module into this directory (pandas "
                  "reads them as PyDarshan's to_df() frames)");
}

}  // namespace perfdm
