// perfdm: the performance data manager's command line.
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/readable.hpp"
#include "log/log_command.hpp"
#include "cli/session.hpp"

namespace {

int open_record(const std::string& path, std::ofstream& file, perfdm::session_options& o) {
  if (path.empty()) return 0;
  file.open(path);
  if (!file) {
    std::cerr << "perfdm: cannot write the recording " << path << '\n';
    return 1;
  }
  o.record = &file;
  return 0;
}

// Runs every request of `in`; prints the XML lines, or the request and a readable
// rendering of what it caused.
int run(std::istream& in, perfdm::session_options o, bool readable, bool echo) {
  perfdm::session s(o);
  std::string line;
  while (std::getline(in, line)) {
    if (readable && !line.empty() && line[0] == '#') {
      std::cout << line << '\n';
      continue;
    }
    if (readable && echo && !line.empty()) std::cout << "> " << line << '\n';
    s.run_line(line, [&](const perfdm::session_line& l) {
      std::cout << (readable ? perfdm::readable(l) : l.xml) << '\n';
    });
    std::cout.flush();
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"perfdm: a performance data manager for native programs"};
  app.require_subcommand(1);

  std::string replay_file, record_path;
  bool readable = false;
  auto* replay = app.add_subcommand(
      "replay", "Run a replay file against a fresh engine in virtual time and print every "
                "reply and stream event (deterministic)");
  replay->add_option("FILE", replay_file, "requests, one per line")->required()->check(CLI::ExistingFile);
  replay->add_flag("--readable", readable, "print the events in a readable form");
  replay->add_option("--record", record_path, "also record every request received to this file");

  std::string engine_record;
  bool live = false;
  auto* engine = app.add_subcommand(
      "engine", "Run an engine that reads requests from standard input, one per line");
  engine->add_option("--record", engine_record, "record every request received (replay format)");
  engine->add_flag("--live-clock", live, "use the engine's clock as well as sample times (C1)");

  std::string demo_file = PERFDM_DEMO_SCENARIO;
  auto* demo = app.add_subcommand("demo", "Replay the bundled scenario, printing it readably");
  demo->add_option("--scenario", demo_file, "the scenario to replay")->check(CLI::ExistingFile);

  perfdm::log_command_options log_options;
  auto* log = app.add_subcommand(
      "log", "Print a perfdm log: # header lines, then one tab-separated row per value "
             "(module, record id, counter, value, name)");
  log->add_option("FILE", log_options.file, "the log (NAME, or NAME.partial after a crash)")
      ->required();
  log->add_flag("--json", log_options.json, "print JSON Lines instead");
  log->add_option("--module", log_options.modules, "print only this module (repeatable)")
      ->allow_extra_args(false);
  log->add_flag("--show-partial", log_options.show_partial,
                "also print modules marked partial (they ran out of memory)");

  CLI11_PARSE(app, argc, argv);

  if (*log) return perfdm::run_log_command(log_options, std::cout, std::cerr);

  perfdm::session_options o;
  std::ofstream record;
  if (*replay) {
    if (open_record(record_path, record, o)) return 1;
    std::ifstream in(replay_file);
    return run(in, o, readable, readable);
  }
  if (*engine) {
    if (open_record(engine_record, record, o)) return 1;
    o.deterministic = false;
    o.engine.live_clock = live;
    return run(std::cin, o, false, false);
  }
  std::ifstream in(demo_file);
  return run(in, o, true, true);
}
