// `perfdm replay FILE`: runs the requests of FILE against a fresh engine in virtual time and
// prints every reply and stream event; the same file always prints the same bytes.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "cli/engine_session_run.hpp"

namespace perfdm {

struct replay_command_options {
  session_settings settings;
  std::string file;
  bool readable = false;
  std::string record;  // --record OUT
  std::string log;     // --log PATH
  bool base_width_given = false;  // set from the command line after parsing
};

CLI::App* add_replay_command(CLI::App& app, replay_command_options& options);

int run_replay_command(const replay_command_options& options, const std::string& command_line);

}  // namespace perfdm
