// The data manager: owns the handle tables (metrics, resources, foci, metric instances,
// streams), routes requests and samples by handle, decides when time bases fold, and runs
// each request to completion (every event it causes is sent) before it replies.
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <memory>

#include "actors/native_source_actor.hpp"
#include "actors/performance_stream_actor.hpp"
#include "dm/histogram.hpp"
#include "messages/request_recorder.hpp"

namespace perfdm {

struct engine_options {
  // C1: false = virtual time (the latest sample end); true = also the engine's clock.
  bool live_clock = false;
  std::size_t stream_batch = default_stream_batch;
  // B1's base bucket width (0.2 s); a smaller one makes folds come sooner, e.g. in a demo.
  time_ns base_width = base_bucket_width;
  // The native modules of watched processes (CHECKTIME, budget, detailing); the clock origin
  // is the data manager's.
  native_options native;
  // --record: every request the data manager processes is written here (docs/PROTOCOL.md §6).
  std::shared_ptr<request_recorder> recorder;
};

// Spawns the data manager together with its phase manager and sampling-interval
// controller. Requests are the structs of messages/dm_messages.hpp.
caf::actor spawn_data_manager(caf::actor_system& sys, const engine_options& options = {});

}  // namespace perfdm
