// `perfdm engine`: an engine reading requests from standard input and answering on standard
// output with the live scheduler; with --listen, --http, --publish or --controller it also
// serves those front ends until SIGINT/SIGTERM; its log is written at the end.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/engine_session_run.hpp"

namespace perfdm {

struct engine_command_options {
  session_settings settings;
  std::string record;  // --record OUT
  bool live_clock = false;
  std::vector<int> watch_pids;  // --pid
  double checktime_ms = 10;
  bool readable = false;
  std::string log;  // "" : perfdm-DATE-TIME-PID.log
  std::string listen;
  publish_options publish;
  std::string controller_address;
  http_options http;
};

CLI::App* add_engine_command(CLI::App& app, engine_command_options& options);

int run_engine_command(engine_command_options options, const std::string& command_line);

}  // namespace perfdm
