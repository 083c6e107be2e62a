// What `perfdm engine`, `perfdm replay` and `perfdm demo` share: a session that runs every
// request line of an input, printing replies and stream events, with the front ends the engine
// serves beside it (TCP gateway, dashboard, remote actors, DyPer's controller), and its log
// written at the end.
#pragma once

#include <fstream>
#include <istream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/engine_http.hpp"
#include "cli/engine_publisher.hpp"
#include "cli/xml_session.hpp"

namespace perfdm {

struct engine_run_options {
  bool readable = false;  // print for people
  bool echo = false;      // with readable: print each request before what it caused
  std::string log_path;   // the log written at the end ("": none)
  std::string listen;     // also serve the DyPer gateway on HOST:PORT
  std::vector<int> watch;  // processes to WATCH before the first request (engine --pid)
  publish_options publish;
  std::string controller_address;
  http_options http;
};

// The engine's settings that `engine` and `replay` both take.
struct session_settings {
  double base_width_s = 0.2;        // --base-width (B1)
  std::size_t log_memory_mib = 64;  // --log-memory
  std::string log_compression = "zlib";  // --log-compression zlib|zstd
};
void add_session_settings(CLI::App& command, session_settings& settings);
// The session's options from those settings; `command_line` goes in the log's job record.
session_options make_session_options(const session_settings& settings,
                                     const std::string& command_line);

// Runs every request of `in`; with any front end it then serves until SIGINT/SIGTERM. 0, or
// 1 when a front end cannot start or the log cannot be written.
int run_engine_session(std::istream& in, const session_options& session,
                       const engine_run_options& o);

// Opens `path` as the session's recording (`o.record`); "" records nothing. 1 when it cannot
// be written (said on standard error), else 0.
int open_recording(const std::string& path, std::ofstream& file, session_options& o);

// The command line as one string, for the log's job record.
std::string joined_command_line(int argc, char** argv);

}  // namespace perfdm
