// perfdm: the performance data manager's command line. Each subcommand lives in a file of its
// own (cli/<name>_command.*): its options, and the call into the folders that do the work.
#include <algorithm>
#include <functional>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/client_command.hpp"
#include "cli/daemon_command.hpp"
#include "cli/demo_command.hpp"
#include "cli/engine_command.hpp"
#include "cli/engine_session_run.hpp"
#include "cli/frames_commands.hpp"
#include "cli/io_command.hpp"
#include "cli/log_command.hpp"
#include "cli/nearest_command.hpp"
#include "cli/relay_command.hpp"
#include "cli/replay_command.hpp"
#include "cli/report_command.hpp"
#include "cli/search_command.hpp"
#include "cli/send_command.hpp"
#include "cli/top_command.hpp"

int main(int argc, char** argv) {
  CLI::App app{"perfdm: a performance data manager for native programs", "perfdm"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("perfdm ") + PERFDM_VERSION);
  // A mistake on the command line is one line: what CLI11 found, and where help is.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "perfdm: " + std::string(e.what()) + " (--help lists the options)\n";
  });

  perfdm::replay_command_options replay_options;
  auto* replay = perfdm::add_replay_command(app, replay_options);
  perfdm::engine_command_options engine_options;
  auto* engine = perfdm::add_engine_command(app, engine_options);
  perfdm::demo_command_options demo_options;
  auto* demo = perfdm::add_demo_command(app, demo_options);
  perfdm::log_command_line_options log_options;
  auto* log = perfdm::add_log_command(app, log_options);
  perfdm::report_command_options report_options;
  auto* report = perfdm::add_report_command(app, report_options);
  perfdm::add_frames_commands(app);
  perfdm::send_options send_options;
  auto* send = perfdm::add_send_command(app, send_options);
  perfdm::client_options client_options;
  auto* client = perfdm::add_client_command(app, client_options);
  perfdm::daemon_options daemon_options;
  auto* daemon = perfdm::add_daemon_command(app, daemon_options);
  perfdm::relay_command_options relay_options;
  auto* relay = perfdm::add_relay_command(app, relay_options);
  perfdm::search_command_options search_options;
  auto* search = perfdm::add_search_command(app, search_options);
  perfdm::top_command_options top_options;
  auto* top = perfdm::add_top_command(app, top_options);
  perfdm::io_command_options io_options;
  auto* io = perfdm::add_io_command(app, io_options);

  // A first word that names no subcommand is a typing mistake to name, not CLI11's "A
  // subcommand is required".
  std::vector<std::string> known;
  const std::function<bool(const CLI::App*)> every = [](const CLI::App*) { return true; };
  for (const auto* sub : std::as_const(app).get_subcommands(every)) known.push_back(sub->get_name());
  if (argc > 1 && argv[1][0] != '-' &&
      std::find(known.begin(), known.end(), argv[1]) == known.end()) {
    std::cerr << "perfdm: unknown command '" << argv[1] << "'";
    if (auto near = perfdm::nearest_word(argv[1], known)) {
      std::cerr << "; did you mean '" << *near << "'?\n";
    } else {
      std::cerr << "; the commands are";
      for (std::size_t i = 0; i < known.size(); ++i) std::cerr << (i ? ", " : " ") << known[i];
      std::cerr << "\n";
    }
    return 1;
  }
  CLI11_PARSE(app, argc, argv);
  const auto command_line = perfdm::joined_command_line(argc, argv);
  if (const int rc = perfdm::run_frames_commands(); rc >= 0) return rc;
  if (*send) return perfdm::run_send_command(send_options, std::cin, std::cout, std::cerr);
  if (*client) return perfdm::run_client_command(client_options, std::cin, std::cout, std::cerr);
  if (*daemon) return perfdm::run_daemon_command(daemon_options, std::cout, std::cerr);
  if (*relay) return perfdm::run_relay_command(relay_options, std::cout, std::cerr);
  if (*search) return perfdm::run_search_command(search_options, std::cout, std::cerr);
  if (*top) return perfdm::run_top_command(top_options, std::cout, std::cerr);
  if (*io) return perfdm::run_io_command(io_options, std::cout, std::cerr);
  if (*report) return perfdm::run_report_command(report_options, std::cout, std::cerr);
  if (*log) return perfdm::run_log_command_line(log_options, std::cout, std::cerr);
  if (*replay) return perfdm::run_replay_command(replay_options, command_line);
  if (*engine) return perfdm::run_engine_command(engine_options, command_line);
  if (*demo) return perfdm::run_demo_command(demo_options, command_line);
  return 1;
}
