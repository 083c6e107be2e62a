// SIGINT and SIGTERM as a request to stop, the same for every subcommand that runs until told:
// the handler only sets a flag (and, where asked, closes standard input or ends the process
// on a second signal), and the subcommand's loop looks at it. Installed without SA_RESTART,
// so a signal interrupts a blocking read or wait instead of resuming it.
#pragma once

namespace perfdm {

struct stop_signal_options {
  // A second signal ends the process at once (exit status 1): a daemon or relay whose orderly
  // stop hangs can still be stopped from the terminal.
  bool second_ends_at_once = false;
  // Standard input is closed: a read in progress, and any read still to come, ends at once
  // (a signal just before the read cannot leave it waiting for input).
  bool close_standard_input = false;
};

void install_stop_signals(const stop_signal_options& options = {});

// A stop was asked for (SIGINT or SIGTERM arrived since install_stop_signals).
bool stop_requested();

// Blocks until a stop is asked for, with no window in which a signal could be missed.
void wait_for_stop_signal();

}  // namespace perfdm
