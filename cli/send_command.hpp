// `perfdm send HOST:PORT [XML]`: a command-line client of the DyPer gateway.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>

namespace perfdm {

struct send_options {
  std::string address;  // HOST:PORT
  std::string request;  // one request; empty: read requests from standard input, one per line
  bool watch = false;   // after the requests, print stream events until SIGINT/SIGTERM
  double timeout_seconds = 60;  // how long to wait for a reply (0: forever)
};

// Adds the `send` subcommand to `app`, filling `options`.
CLI::App* add_send_command(CLI::App& app, send_options& options);

// Sends the request (or each line of `in`: blank and `#` lines skipped), waiting for each
// reply before the next, and prints to `out` every stream event and reply, one per line,
// without trailers. Exit status: 0 when every reply was a success, 1 when any was an error,
// 2 when the engine could not be reached, closed the connection or did not answer in time.
int run_send_command(const send_options& options, std::istream& in, std::ostream& out,
                     std::ostream& err);

}  // namespace perfdm
