#include "cli/demo_command.hpp"

#include <fstream>

#include "cli/engine_session_run.hpp"
#include "cli/installed_files.hpp"

namespace perfdm {

CLI::App* add_demo_command(CLI::App& app, demo_command_options& o) {
  o.scenario = installed_data_file(PERFDM_DEMO_SCENARIO);
  auto* demo = app.add_subcommand("demo", "Replay the bundled scenario, printing it readably");
  demo->add_option("--scenario", o.scenario, "the scenario to replay")->check(CLI::ExistingFile);
  demo->add_option("--log", o.log, "write the log of the demo session to this path");
  return demo;
}

int run_demo_command(const demo_command_options& options, const std::string& command_line) {
  auto o = make_session_options(session_settings{}, command_line);
  std::ifstream in(options.scenario);
  engine_run_options run;
  run.readable = run.echo = true;
  run.log_path = options.log;
  return run_engine_session(in, o, run);
}

}  // namespace perfdm
