#include "cli/stop_signals.hpp"

#include <signal.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>

namespace perfdm {

namespace {

volatile std::sig_atomic_t stop_flag = 0;
volatile std::sig_atomic_t second_ends = 0;
volatile std::sig_atomic_t close_input = 0;

void on_stop_signal(int) {
  if (stop_flag && second_ends) std::_Exit(1);
  stop_flag = 1;
  if (close_input) close(STDIN_FILENO);
}

}  // namespace

void install_stop_signals(const stop_signal_options& options) {
  second_ends = options.second_ends_at_once;
  close_input = options.close_standard_input;
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool stop_requested() {
  return stop_flag != 0;
}

void wait_for_stop_signal() {
  sigset_t stop, old;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigprocmask(SIG_BLOCK, &stop, &old);
  while (!stop_flag) sigsuspend(&old);  // atomically unblocks and waits: no lost signal
  sigprocmask(SIG_SETMASK, &old, nullptr);
}

}  // namespace perfdm
