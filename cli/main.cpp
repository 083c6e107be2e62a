// perfdm: the performance data manager's command line.
#include <cerrno>
#include <csignal>
#include <ctime>
#include <fstream>
#include <iostream>
#include <optional>
#include <regex>
#include <vector>

#include <poll.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "cli/daemon_command.hpp"
#include "cli/darshan_log_options.hpp"
#include "cli/relay_command.hpp"
#include "cli/frames_commands.hpp"
#include "cli/engine_controller.hpp"
#include "cli/engine_listener.hpp"
#include "cli/engine_http.hpp"
#include "cli/client_command.hpp"
#include "cli/engine_publisher.hpp"
#include "cli/readable_lines.hpp"
#include "cli/send_command.hpp"
#include "cli/search_command.hpp"
#include "cli/top_command.hpp"
#include "cli/profile_export.hpp"
#include "log/log_command.hpp"
#include "log/log_modules.hpp"
#include "trace/log_trace.hpp"
#include "cli/xml_session.hpp"
#include "cli/installed_files.hpp"

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

// Set by SIGINT/SIGTERM: the engine stops reading, writes its log and exits.
volatile std::sig_atomic_t stop_requested = 0;

// Closing standard input ends a read in progress and any read still to come, so a signal
// that lands just before the read cannot leave the engine waiting for input.
void on_stop_signal(int) {
  stop_requested = 1;
  close(STDIN_FILENO);
}

// Without SA_RESTART a signal interrupts the blocking read of standard input.
void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

// With --listen the engine serves until SIGINT/SIGTERM, whether or not standard input ends.
void wait_for_stop_signal() {
  sigset_t stop, old;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigprocmask(SIG_BLOCK, &stop, &old);
  while (!stop_requested) sigsuspend(&old);  // atomically unblocks and waits: no lost signal
  sigprocmask(SIG_SETMASK, &old, nullptr);
}

// Runs every request of `in`; prints the XML lines, or the request and a readable
// rendering of what it caused. Writes the session's log to `log_path` at the end, if given.
// `listen`: also serve the DyPer gateway on this HOST:PORT. `watch`: processes to WATCH
// before the first request (engine --pid), each answered like a request of its own.
int run(std::istream& in, perfdm::session_options o, bool readable, bool echo,
        const std::string& log_path, const std::string& listen = {},
        const std::vector<int>& watch = {}, const perfdm::publish_options& publish = {},
        const std::string& controller_address = {}, const perfdm::http_options& http = {}) {
  perfdm::session s(o);
  auto print = [&](const perfdm::session_line& l) {
    std::cout << (readable ? perfdm::readable(l) : l.xml) << '\n';
  };
  for (int pid : watch) {
    auto request = "<DYPER PID='DM' COMMAND='WATCH'><PROCESS PID='" + std::to_string(pid) +
                   "'/></DYPER>";
    if (readable && echo) std::cout << "> " << request << '\n';
    s.run_line(request, print);
    std::cout.flush();
  }
  // Standard input is read with read(2), not std::cin: between requests the engine waits
  // in poll() and prints the stream events that arrive meanwhile (a live engine's data
  // sources send samples at any time), and poll() cannot see what a stream buffered.
  std::string pending;
  bool input_open = true;
  auto next_line = [&](std::string& line) {
    if (&in != &std::cin) return static_cast<bool>(std::getline(in, line));
    for (;;) {
      if (auto nl = pending.find('\n'); nl != std::string::npos) {
        line = pending.substr(0, nl);
        pending.erase(0, nl + 1);
        return true;
      }
      if (!input_open || stop_requested) {
        if (pending.empty() || stop_requested) return false;
        line.swap(pending);  // a last line without a newline
        pending.clear();
        return true;
      }
      pollfd p{STDIN_FILENO, POLLIN, 0};
      if (poll(&p, 1, 100) == 0) {
        s.drain_events(print);
        std::cout.flush();
        continue;
      }
      char buf[65536];
      ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
      if (n > 0)
        pending.append(buf, static_cast<std::size_t>(n));
      else if (n == 0 || errno != EINTR)
        input_open = false;
    }
  };
  auto open_connections = std::make_shared<std::atomic<std::int64_t>>(0);
  perfdm::engine_listener listener;
  if (!listen.empty() && !listener.start(s, listen, o.default_log, std::cerr, open_connections))
    return 1;
  perfdm::engine_http dashboard;
  if (!dashboard.start(s, http, o.default_log, open_connections, std::cerr)) return 1;
  perfdm::engine_publisher publisher;
  if (!publisher.start(s, publish, o.default_log, std::cerr)) return 1;
  perfdm::engine_controller controller;
  if (!controller_address.empty() &&
      !controller.start(s, controller_address, o.default_log, std::cerr))
    return 1;
  std::string line;
  while (!stop_requested && next_line(line)) {
    if (readable && !line.empty() && line[0] == '#') {
      std::cout << line << '\n';
      continue;
    }
    if (readable && echo && !line.empty()) std::cout << "> " << line << '\n';
    s.run_line(line, print);
    std::cout.flush();
  }
  if (listener.running() || publisher.running() || controller.running() || dashboard.running()) {
    wait_for_stop_signal();
    dashboard.stop();
    listener.stop();
    publisher.stop();
    controller.stop();
  }
  if (log_path.empty()) return 0;
  try {
    auto bytes = s.write_log_file(log_path);
    std::cerr << "perfdm: wrote the log " << log_path << " (" << bytes << " bytes)\n";
  } catch (const std::exception& e) {
    std::cerr << "perfdm: cannot write the log " << log_path << ": " << e.what() << '\n';
    return 1;
  }
  return 0;
}

std::string joined(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) out += (i ? " " : "") + std::string(argv[i]);
  return out;
}

// perfdm-YYYYmmdd-HHMMSS-PID.log in the current directory.
std::string default_engine_log() {
  char stamp[32];
  auto t = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::gmtime(&t));
  return std::string("perfdm-") + stamp + "-" + std::to_string(getpid()) + ".log";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"perfdm: a performance data manager for native programs", "perfdm"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("perfdm ") + PERFDM_VERSION);

  std::string replay_file, record_path;
  bool readable = false;
  auto* replay = app.add_subcommand(
      "replay", "Run a replay file against a fresh engine in virtual time and print every "
                "reply and stream event (deterministic)");
  replay->add_option("FILE", replay_file, "requests, one per line")->required()->check(CLI::ExistingFile);
  replay->add_flag("--readable", readable, "print the events in a readable form");
  replay->add_option("--record", record_path, "also record every request received to this file");
  std::string replay_log;
  replay->add_option("--log", replay_log, "write the log of the replayed session to this path");
  std::size_t log_memory_mib = 64;
  replay->add_option("--log-memory", log_memory_mib,
                     "MiB the log's modules may use together (a module past it is partial)");

  double base_width = 0.2;
  std::string engine_record;
  bool live = false;
  auto* engine = app.add_subcommand(
      "engine", "Run an engine that reads requests from standard input, one per line");
  engine->add_option("--record", engine_record, "record every request received (replay format)");
  engine->add_flag("--live-clock", live, "use the engine's clock as well as sample times (C1)");
  for (auto* sub : {replay, engine})
    sub->add_option("--base-width", base_width,
                    "the base bucket width in seconds (B1: 0.2); smaller folds sooner; replay "
                    "of a recording takes the recording's unless given")
        ->check(CLI::Range(1e-6, 3600.0));
  std::vector<int> watch_pids;
  engine->add_option("--pid", watch_pids,
                     "watch this running process from the start (repeatable): /proc and stack "
                     "sampling, no instrumentation needed")
      ->check(CLI::PositiveNumber);
  double checktime_ms = 10;
  engine->add_option("--checktime", checktime_ms,
                     "mean milliseconds between stack samples of watched processes (DyPer's "
                     "CHECKTIME; the 10 % overhead budget may stretch it)")
      ->check(CLI::Range(0.1, 10000.0));
  bool engine_readable = false;
  engine->add_flag("--readable", engine_readable, "print replies and events for people");
  std::string engine_log;
  engine->add_option("--log", engine_log,
                     "the log written at shutdown, SIGINT/SIGTERM included "
                     "(default perfdm-DATE-TIME-PID.log)");
  engine->add_option("--log-memory", log_memory_mib,
                     "MiB the log's modules may use together (a module past it is partial)");
  std::string engine_listen;
  engine->add_option("--listen", engine_listen,
                     "also serve the DyPer gateway (XML over TCP) on HOST:PORT; port 0 picks "
                     "one; the engine then runs until SIGINT/SIGTERM");
  perfdm::publish_options engine_publish;
  perfdm::add_publish_options(*engine, engine_publish);
  std::string engine_controller_address;
  engine->add_option("--controller", engine_controller_address,
                     "act as DyPer's agent: for every process observed (--pid, WATCH, ATTACH) "
                     "dial the socket server of DyPer's controller at HOST:PORT and answer its "
                     "commands; the engine then runs until SIGINT/SIGTERM");
  perfdm::http_options engine_http;
  perfdm::add_http_options(*engine, engine_http);

  std::string log_compression = "zlib";
  for (auto* sub : {replay, engine})
    sub->add_option("--log-compression", log_compression,
                    "how the log's regions are compressed: zlib (default) or zstd")
        ->check(CLI::IsMember({"zlib", "zstd"}));

  std::string demo_file = perfdm::installed_data_file(PERFDM_DEMO_SCENARIO);
  auto* demo = app.add_subcommand("demo", "Replay the bundled scenario, printing it readably");
  demo->add_option("--scenario", demo_file, "the scenario to replay")->check(CLI::ExistingFile);
  std::string demo_log;
  demo->add_option("--log", demo_log, "write the log of the demo session to this path");

  perfdm::log_command_options log_options;
  auto* log = app.add_subcommand(
      "log", "Print a perfdm log: # header lines, then one tab-separated row per value "
             "(module, record id, counter, value, name); or a Darshan log, as darshan-parser");
  log->add_option("FILE", log_options.file, "the log (NAME, or NAME.partial after a crash)")
      ->required();
  log->add_flag("--json", log_options.json, "print JSON Lines instead");
  log->add_option("--module", log_options.modules, "print only this module (repeatable)")
      ->allow_extra_args(false);
  log->add_flag("--show-partial", log_options.show_partial,
                "also print modules marked partial (they ran out of memory)");
  std::string log_trace_event;
  log->add_option("--trace-event", log_trace_event,
                  "write the Data Manager's histograms and phases as a Chrome trace (JSON, for "
                  "Perfetto and chrome://tracing) to this file instead of printing");
  perfdm::profile_export_options log_profile;  // --folded, --pprof, --view (docs/FLAME.md)
  perfdm::add_profile_export_options(log, log_profile);
  perfdm::add_darshan_log_options(log, log_options);

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

  CLI11_PARSE(app, argc, argv);
  if (const int rc = perfdm::run_frames_commands(); rc >= 0) return rc;

  if (*send) return perfdm::run_send_command(send_options, std::cin, std::cout, std::cerr);
  if (*client) return perfdm::run_client_command(client_options, std::cin, std::cout, std::cerr);
  if (*daemon) return perfdm::run_daemon_command(daemon_options, std::cout, std::cerr);
  if (*relay) return perfdm::run_relay_command(relay_options, std::cout, std::cerr);
  if (*search) return perfdm::run_search_command(search_options, std::cout, std::cerr);
  if (*top) return perfdm::run_top_command(top_options, std::cout, std::cerr);

  perfdm::add_log_module_printers(perfdm::default_log_printers());
  if (*log && !log_trace_event.empty())
    return perfdm::run_log_trace_command(log_options.file, log_trace_event, std::cerr);
  if (*log && log_profile.wanted())
    return perfdm::run_log_profile_export(log_options.file, log_profile, std::cerr);
  if (*log) return perfdm::run_log_command(log_options, std::cout, std::cerr);

  perfdm::session_options o;
  o.command_line = joined(argc, argv);
  o.log_memory_bytes = log_memory_mib << 20;
  o.log_compression_type = perfdm::parse_log_compression(log_compression);
  o.engine.base_width = perfdm::to_ns(base_width);
  std::ofstream record;
  if (*replay) {
    if (open_record(record_path, record, o)) return 1;
    if (replay->count("--base-width") == 0)
      if (auto width = recorded_base_width(replay_file); width && *width >= 1e-6 && *width <= 3600)
        o.engine.base_width = perfdm::to_ns(*width);
    std::ifstream in(replay_file);
    return run(in, o, readable, readable, replay_log);
  }
  if (*engine) {
    if (open_record(engine_record, record, o)) return 1;
    o.deterministic = false;
    o.engine.live_clock = live;
    o.engine.native.delay.checktime_ns = perfdm::to_ns(checktime_ms / 1000);
    if (engine_log.empty()) engine_log = default_engine_log();
    o.default_log = engine_log;
    if (!perfdm::configure_publishing(o, engine_publish, std::cerr)) return 1;
    install_stop_handlers();
    engine_http.tls_cert = engine_publish.remote.tls_cert;  // the same --tls-* options
    engine_http.tls_key = engine_publish.remote.tls_key;
    engine_http.tls_ca = engine_publish.remote.tls_ca;
    return run(std::cin, o, engine_readable, engine_readable, engine_log, engine_listen,
               watch_pids, engine_publish, engine_controller_address, engine_http);
  }
  std::ifstream in(demo_file);
  return run(in, o, true, true, demo_log);
}
