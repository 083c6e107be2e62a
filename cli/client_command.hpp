// `perfdm client HOST:PORT REQUEST`: a client of an engine published with `perfdm engine
// --publish`, through CAF's network layer and the typed interface remote_dm_actor
// (messages/remote_interface.hpp) rather than the XML gateway. It speaks the vocabulary of
// the XML language: a request is either XML (`"<DYPER PID='DM' COMMAND='METRICS'/>"`) or the
// short form `COMMAND [ELEMENT] [NAME=VALUE ...]` (`ENABLE STREAM=0 METRIC=cpu`), built into
// that XML; the XML codec turns it into the typed request, and replies and stream events
// print as the gateway sends them.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "cli/remote_options.hpp"

namespace perfdm {

struct client_options {
  std::string address;  // HOST:PORT
  // The requests: words of the short form or XML, a lone ";" between requests. Empty: read
  // requests from standard input, one per line (blank and `#` lines skipped).
  std::vector<std::string> words;
  std::string target = "DM";    // the PID of short-form requests
  bool watch = false;           // after the requests, print stream events until SIGINT/SIGTERM
  double timeout_seconds = 60;  // connecting, and waiting for each reply
  remote_options remote;
};

// Adds the `client` subcommand to `app`, filling `options`.
CLI::App* add_client_command(CLI::App& app, client_options& options);

// Runs the requests in order, each once the previous one answered, printing every stream
// event as it arrives and every reply to `out`, one per line. `$STREAM` in a request stands
// for the ID of the last stream this client opened. Exit status: 0 when every reply was a
// success, 1 when any was an error, 2 when the engine could not be reached, refused this
// client (another interface), was lost, or did not answer in time.
int run_client_command(const client_options& options, std::istream& in, std::ostream& out,
                       std::ostream& err);

}  // namespace perfdm
