#include "cli/engine_command.hpp"
#include "cli/stop_signals.hpp"

#include <unistd.h>

#include <ctime>
#include <fstream>
#include <iostream>

namespace perfdm {

namespace {

// perfdm-YYYYmmdd-HHMMSS-PID.log in the current directory.
std::string default_engine_log() {
  char stamp[32];
  auto t = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::gmtime(&t));
  return std::string("perfdm-") + stamp + "-" + std::to_string(getpid()) + ".log";
}

}  // namespace

CLI::App* add_engine_command(CLI::App& app, engine_command_options& o) {
  auto* engine = app.add_subcommand(
      "engine", "Run an engine that reads requests from standard input, one per line");
  engine->add_option("--record", o.record, "record every request received (replay format)");
  engine->add_flag("--live-clock", o.live_clock,
                   "use the engine's clock as well as sample times (C1)");
  add_session_settings(*engine, o.settings);
  engine
      ->add_option("--pid", o.watch_pids,
                   "watch this running process from the start (repeatable): /proc and stack "
                   "sampling, no instrumentation needed")
      ->check(CLI::PositiveNumber);
  engine
      ->add_option("--checktime", o.checktime_ms,
                   "mean milliseconds between stack samples of watched processes (DyPer's "
                   "CHECKTIME; the 10 % overhead budget may stretch it)")
      ->check(CLI::Range(0.1, 10000.0));
  engine->add_flag("--readable", o.readable, "print replies and events for people");
  engine->add_option("--log", o.log,
                     "the log written at shutdown, SIGINT/SIGTERM included "
                     "(default perfdm-DATE-TIME-PID.log)");
  engine->add_option("--listen", o.listen,
                     "also serve the DyPer gateway (XML over TCP) on HOST:PORT; port 0 picks "
                     "one; the engine then runs until SIGINT/SIGTERM");
  add_publish_options(*engine, o.publish);
  engine->add_option("--controller", o.controller_address,
                     "act as DyPer's agent: for every process observed (--pid, WATCH, ATTACH) "
                     "dial the socket server of DyPer's controller at HOST:PORT and answer its "
                     "commands; the engine then runs until SIGINT/SIGTERM");
  add_http_options(*engine, o.http);
  return engine;
}

int run_engine_command(engine_command_options options, const std::string& command_line) {
  auto o = make_session_options(options.settings, command_line);
  std::ofstream record;
  if (open_recording(options.record, record, o)) return 1;
  o.deterministic = false;
  o.engine.live_clock = options.live_clock;
  o.engine.native.delay.checktime_ns = to_ns(options.checktime_ms / 1000);
  if (options.log.empty()) options.log = default_engine_log();
  o.default_log = options.log;
  if (!configure_publishing(o, options.publish, std::cerr)) return 1;
  // SIGINT/SIGTERM end the reading of standard input (and the serving): the log is written.
  install_stop_signals({false, true});
  options.http.tls_cert = options.publish.remote.tls_cert;  // the same --tls-* options
  options.http.tls_key = options.publish.remote.tls_key;
  options.http.tls_ca = options.publish.remote.tls_ca;
  engine_run_options run;
  run.readable = run.echo = options.readable;
  run.log_path = options.log;
  run.listen = options.listen;
  run.watch = options.watch_pids;
  run.publish = options.publish;
  run.controller_address = options.controller_address;
  run.http = options.http;
  return run_engine_session(std::cin, o, run);
}

}  // namespace perfdm
