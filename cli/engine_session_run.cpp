#include "cli/engine_session_run.hpp"

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <fstream>
#include <iostream>

#include "cli/engine_controller.hpp"
#include "cli/engine_listener.hpp"
#include "cli/readable_lines.hpp"
#include "cli/stop_signals.hpp"
#include "messages/native_messages.hpp"
#include "messages/xml_codec.hpp"

namespace perfdm {

void add_session_settings(CLI::App& command, session_settings& settings) {
  command
      .add_option("--base-width", settings.base_width_s,
                  "the base bucket width in seconds (B1: 0.2); smaller folds sooner; replay "
                  "of a recording takes the recording's unless given")
      ->check(CLI::Range(1e-6, 3600.0));
  command.add_option("--log-memory", settings.log_memory_mib,
                     "MiB the log's modules may use together (a module past it is partial)");
  command
      .add_option("--log-compression", settings.log_compression,
                  "how the log's regions are compressed: zlib (default) or zstd")
      ->check(CLI::IsMember({"zlib", "zstd"}));
}

session_options make_session_options(const session_settings& settings,
                                     const std::string& command_line) {
  session_options o;
  o.command_line = command_line;
  o.log_memory_bytes = settings.log_memory_mib << 20;
  o.log_compression_type = parse_log_compression(settings.log_compression);
  o.engine.base_width = to_ns(settings.base_width_s);
  return o;
}

int open_recording(const std::string& path, std::ofstream& file, session_options& o) {
  if (path.empty()) return 0;
  file.open(path);
  if (!file) {
    std::cerr << "perfdm: cannot write the recording " << path << '\n';
    return 1;
  }
  o.record = &file;
  return 0;
}

std::string joined_command_line(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) out += (i ? " " : "") + std::string(argv[i]);
  return out;
}

int run_engine_session(std::istream& in, const session_options& options,
                       const engine_run_options& o) {
  session s(options);
  auto print = [&](const session_line& l) {
    std::cout << (o.readable ? readable(l) : l.xml) << '\n';
  };
  for (int pid : o.watch) {
    auto request = print_request("DM", caf::make_message(watch_request{pid}));
    if (o.readable && o.echo) std::cout << "> " << request << '\n';
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
      if (!input_open || stop_requested()) {
        if (pending.empty() || stop_requested()) return false;
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
  engine_listener listener;
  if (!o.listen.empty() &&
      !listener.start(s, o.listen, options.default_log, std::cerr, open_connections))
    return 1;
  engine_http dashboard;
  if (!dashboard.start(s, o.http, options.default_log, open_connections, std::cerr)) return 1;
  engine_publisher publisher;
  if (!publisher.start(s, o.publish, options.default_log, std::cerr)) return 1;
  engine_controller controller;
  if (!o.controller_address.empty() &&
      !controller.start(s, o.controller_address, options.default_log, std::cerr))
    return 1;
  std::string line;
  while (!stop_requested() && next_line(line)) {
    if (o.readable && !line.empty() && line[0] == '#') {
      std::cout << line << '\n';
      continue;
    }
    if (o.readable && o.echo && !line.empty()) std::cout << "> " << line << '\n';
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
  if (o.log_path.empty()) return 0;
  try {
    auto bytes = s.write_log_file(o.log_path);
    std::cerr << "perfdm: wrote the log " << o.log_path << " (" << bytes << " bytes)\n";
  } catch (const std::exception& e) {
    std::cerr << "perfdm: cannot write the log " << o.log_path << ": " << e.what() << '\n';
    return 1;
  }
  return 0;
}

}  // namespace perfdm
