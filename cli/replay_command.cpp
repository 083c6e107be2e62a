#include "cli/replay_command.hpp"

#include <fstream>
#include <optional>
#include <regex>

namespace perfdm {

namespace {

// A recording (engine --record) begins by saying the base width it was made with, so that
// its replay folds where the engine folded; the first lines of `file` are enough.
std::optional<double> recorded_base_width(const std::string& file) {
  static const std::regex header("^# t=0 engine: base width ([^ ]+) s");
  std::ifstream in(file);
  std::string line;
  for (int i = 0; i < 8 && std::getline(in, line); ++i) {
    std::smatch m;
    if (std::regex_search(line, m, header)) try {
        return std::stod(m[1].str());
      } catch (const std::exception&) {
        return std::nullopt;
      }
  }
  return std::nullopt;
}

}  // namespace

CLI::App* add_replay_command(CLI::App& app, replay_command_options& o) {
  auto* replay = app.add_subcommand(
      "replay", "Run a replay file against a fresh engine in virtual time and print every "
                "reply and stream event (deterministic)");
  replay->add_option("FILE", o.file, "requests, one per line")
      ->required()
      ->check(CLI::ExistingFile);
  replay->add_flag("--readable", o.readable, "print the events in a readable form");
  replay->add_option("--record", o.record, "also record every request received to this file");
  replay->add_option("--log", o.log, "write the log of the replayed session to this path");
  add_session_settings(*replay, o.settings);
  replay->callback([replay, &o] { o.base_width_given = replay->count("--base-width") > 0; });
  return replay;
}

int run_replay_command(const replay_command_options& options, const std::string& command_line) {
  auto o = make_session_options(options.settings, command_line);
  std::ofstream record;
  if (open_recording(options.record, record, o)) return 1;
  if (!options.base_width_given)
    if (auto width = recorded_base_width(options.file); width && *width >= 1e-6 && *width <= 3600)
      o.engine.base_width = to_ns(*width);
  std::ifstream in(options.file);
  engine_run_options run;
  run.readable = run.echo = options.readable;
  run.log_path = options.log;
  return run_engine_session(in, o, run);
}

}  // namespace perfdm
