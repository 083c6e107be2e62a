// `perfdm top --pid P…` or `perfdm top -- CMD ARGS…`: a full-screen terminal view, refreshed
// every second, of the hottest functions on-CPU and off-CPU, each thread's state, and the
// Performance Consultant's findings (it runs a search unless --no-search). The screen is
// top/top_view.hpp; ncurses draws it.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

namespace perfdm {

struct top_command_options {
  std::vector<int> pids;
  std::vector<std::string> command;
  double seconds = 0;  // 0: until q
  bool search = true;
  bool io = true;  // preload the I/O library into the program it starts (--no-io)
  double checktime_ms = 10;
};

CLI::App* add_top_command(CLI::App& app, top_command_options& options);

// 0 after q (or --seconds); a started program's exit code when it ended by itself and the
// view was then quit; 1 when a process cannot be watched; 127/126 when CMD cannot start.
int run_top_command(const top_command_options& options, std::ostream& out, std::ostream& err);

}  // namespace perfdm
