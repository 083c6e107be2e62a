// `perfdm report LOG... -o report.html`: a job's I/O summary and what to fix, as one
// self-contained HTML page (ioreport/), from a Darshan log or a perfdm log of I/O counters;
// over several logs, one page of the jobs' rows and trends.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

namespace perfdm {

struct report_command_options {
  std::vector<std::string> logs;
  std::string output = "report.html";
  std::string json;           // --json FILE: the page's data too
  std::size_t max_files = 200000;  // files held at once per module (more: more passes)
};

CLI::App* add_report_command(CLI::App& app, report_command_options& options);

int run_report_command(const report_command_options& options, std::ostream& out, std::ostream& err);

}  // namespace perfdm
