// The options `perfdm log` takes for Darshan logs (darshan-parser's --total, --perf, --file,
// --base, --show-incomplete; --dxt for darshan-dxt-parser's output; --csv DIR).
#pragma once

#include <CLI/CLI.hpp>

#include "log/log_listing.hpp"

namespace perfdm {

void add_darshan_log_options(CLI::App* log, log_command_options& o);

}  // namespace perfdm
