// A thread's stack of a running program, sampled until it is the one a test waits for (a
// spinning function innermost, a JIT frame): tests of the stack sampler's names.
#pragma once

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "native/native_error.hpp"
#include "native/stack_sampler.hpp"

namespace sampled_stack {

// Samples `pid` every 20 ms, at most 10 s, until `want(frames)` holds for the stack of one of
// its threads (innermost first; the main thread, or any with `any_thread`); those frames.
// Fails the test, with the innermost frames seen, when it never does.
template <typename F>
std::vector<perfdm::native::stack_frame> stack_until(int pid, F&& want, bool any_thread = false) {
  std::string seen;
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  // A program just started may still be in its exec (its maps unreadable: ENOEXEC).
  std::unique_ptr<perfdm::native::stack_sampler> sampler;
  while (!sampler && std::chrono::steady_clock::now() < end) {
    try {
      sampler = std::make_unique<perfdm::native::stack_sampler>(pid);
    } catch (const perfdm::native::native_error& e) {
      seen = e.what();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  while (sampler && std::chrono::steady_clock::now() < end) {
    for (auto& t : sampler->sample().threads)
      if ((any_thread || t.tid == pid) && !t.frames.empty()) {
        if (want(t.frames)) return t.frames;
        seen += t.frames.front().function + " (" + t.frames.front().module + ")\n";
      }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  FAIL("not the stack waited for in 10 s; innermost frames seen:\n" << seen);
  return {};
}

}  // namespace sampled_stack
