// What the Performance Consultant's workloads share: how long they run (the first argument,
// in seconds, default 60), a clean end on SIGTERM or SIGINT, and naming threads so that the
// /Machine hierarchy tells them apart. Header only: each workload is one small program.
#pragma once

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace pc_workload {

inline std::atomic<bool> stop_requested{false};
inline std::chrono::steady_clock::time_point deadline;

inline void on_signal(int) {
  stop_requested.store(true);
}

// Reads the run time (argv[1], seconds, default 60), installs the signal handlers (without
// SA_RESTART, so a blocking call in the thread that takes the signal returns EINTR) and
// prints the first line every workload prints: its name and pid.
inline double start(int argc, char** argv, const char* name) {
  double seconds = argc > 1 ? std::atof(argv[1]) : 60.0;
  if (seconds <= 0) seconds = 60.0;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  deadline = std::chrono::steady_clock::now() +
             std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                 std::chrono::duration<double>(seconds));
  std::printf("%s: pid %d, running %.1f s\n", name, static_cast<int>(getpid()), seconds);
  std::fflush(stdout);
  return seconds;
}

// True until the run time is over or a signal asked to stop.
inline bool running() {
  return !stop_requested.load(std::memory_order_relaxed) &&
         std::chrono::steady_clock::now() < deadline;
}

// Thread names are at most 15 characters (the kernel's comm).
inline void name_this_thread(const std::string& name) {
  pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

// Keeps the CPU busy for about `micros` microseconds of wall time (a spin on the clock, so
// the time does not depend on the compiler's optimisation).
inline void spin_for_micros(long micros) {
  auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(micros);
  volatile unsigned sink = 0;
  while (std::chrono::steady_clock::now() < end)
    for (int i = 0; i < 64; ++i) sink = sink + static_cast<unsigned>(i);
}

}  // namespace pc_workload
