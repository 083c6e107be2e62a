#include "cli/bounded_exit.hpp"

#include <caf/actor_clock.hpp>
#include <caf/actor_registry.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <thread>

namespace perfdm {

bool settle_actor_system(caf::actor_system& sys, std::chrono::milliseconds patience) {
  auto until = std::chrono::steady_clock::now() + patience;
  while (sys.registry().running() > 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const bool settled = sys.registry().running() == 0;
  // No actor that could still set a timer needs one: the pending ones only hold references.
  // (If some actor still runs, its timers go too; the watchdog then bounds the exit.)
  sys.clock().cancel_all();
  return settled;
}

void exit_within(std::chrono::milliseconds after, int status) {
  std::thread([after, status] {
    std::this_thread::sleep_for(after);
    // No stdio here: the main thread may hold a stream's lock while it is stuck (in exit()
    // flushing, say), and the point is to end regardless. What was printed is out already.
    std::_Exit(status);
  }).detach();
}

void leave_now(int status) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(status);
}

}  // namespace perfdm
