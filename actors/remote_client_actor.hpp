// The actor of a `perfdm client` process: it sends each request to the engine's published
// data manager and is the sink of the streams it opens, so that events and replies print in
// the order they arrive, as the gateway writes them.
#pragma once

#include <atomic>
#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/atom.hpp>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>

namespace perfdm {

// Stdout is written by the client actor (events, replies) and by the main thread (requests
// refused before they were sent): one line at a time, whole.
class line_printer {
 public:
  explicit line_printer(std::ostream& out) : out_(out) {}
  void line(const std::string& text) {
    std::lock_guard<std::mutex> lock(mutex_);
    out_ << text << std::endl;  // flushed: a watching client prints events as they come
  }

 private:
  std::mutex mutex_;
  std::ostream& out_;
};

// `(client_run_atom, request, target)` answers `(reply was an error, stream opened or
// no_stream)`.
using client_run_atom = caf::atom_constant<caf::atom("clrun")>;
constexpr std::uint64_t no_stream = std::numeric_limits<std::uint64_t>::max();

// Spawns the client actor for the data manager `dm`; `lost` turns true when the engine goes
// down (killed, or timed out), and every request still waiting is answered with an error.
caf::actor spawn_remote_client(caf::actor_system& sys, caf::actor dm,
                               std::shared_ptr<line_printer> out,
                               std::shared_ptr<std::atomic<bool>> lost);

}  // namespace perfdm
