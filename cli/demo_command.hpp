// `perfdm demo`: replays the bundled scenario readably (two phases, folds, persistence,
// archived data).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace perfdm {

struct demo_command_options {
  std::string scenario;  // default: the installed (or source tree's) examples/demo.replay
  std::string log;
};

CLI::App* add_demo_command(CLI::App& app, demo_command_options& options);

int run_demo_command(const demo_command_options& options, const std::string& command_line);

}  // namespace perfdm
