// One frame ingest actor per attached process: it reads the process's frame segments, turns
// the fields that metric instances collect into samples per sampling interval (a
// frame_sampler per frame type), and sends them to the data manager in one batch per poll.
// It registers as a data source, so the data manager tells it what is collecting and the
// interval. It defines the process's resources (/Process/<name>{<pid>}/<struct>) and metrics
// (<struct>.<field>), which the data manager announces to streams. It ends when the process
// exits or is detached, after reading what was written until then.
#pragma once

#include <caf/actor.hpp>
#include <caf/event_based_actor.hpp>

#include "messages/process_messages.hpp"
#include "messages/time.hpp"
#include "shm/attach.hpp"

namespace perfdm {

struct ingest_options {
  time_ns poll_period = 10'000'000;  // 10 ms
  // An interval is sent once it ended this long ago: frames stamped before a poll but
  // committed after it still land in their own interval.
  time_ns flush_delay = 20'000'000;
  // Engine time 0 on CLOCK_MONOTONIC (the data manager's clock origin).
  std::int64_t origin_monotonic_ns = 0;
};

// `registry` receives the final frames_stats when the actor ends.
caf::behavior frame_ingest_actor(caf::stateful_actor<struct ingest_state>* self, caf::actor dm,
                                 caf::actor registry, shm::attachment attached,
                                 ingest_options options);

// The resource of a process: /Process/<name>{<pid>}.
std::string process_resource(const std::string& name, int pid);

}  // namespace perfdm
