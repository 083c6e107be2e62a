// One frame ingest actor per attached process: it reads the process's frame segments, turns
// the fields that metric instances collect into samples per sampling interval (a
// frame_sample_builder per frame type), and sends them to the data manager in one batch per poll.
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
  // The longest wait between two polls: a lane of C frames absorbs a burst of C frames per
  // period from an idle writer (4096 frames per 2 ms: 2 M frames/s) before it must be read.
  time_ns poll_period = 2'000'000;
  // The longest wait between two polls when a frame type is stamped with the reader's clock
  // (`perfdm gen --clock reader`): its frames land at most this much (and the poll's own
  // lateness) early. 1 ms is 0.5 % of the smallest bucket width in use by default, B1's
  // base width of 0.2 s (the sampling interval is a bucket width, S-rules, and only grows by
  // folding), so at most that share of the frames lands one bucket early.
  time_ns reader_clock_period = 1'000'000;
  // An interval is sent once it ended this long ago: frames stamped before a poll but
  // committed after it still land in their own interval.
  time_ns flush_delay = 20'000'000;
  // Engine time 0 on CLOCK_MONOTONIC (the data manager's clock origin).
  std::int64_t origin_monotonic_ns = 0;
};

// Asks a new ingest actor to define its resources and metrics and start reading; it answers
// ok_reply once the data manager knows them (or the data manager's error).
using ingest_start_atom = caf::atom_constant<caf::atom("ingstart")>;

// Spawns the ingest actor of one attached process; `parent` (the process registry) monitors
// it and receives its final frames_stats when it ends. Throws shm_error when a segment cannot
// be read.
caf::actor spawn_frame_ingest(caf::event_based_actor* parent, caf::actor dm,
                              shm::attachment attached, ingest_options options);

// The resource of a process: /Process/<name>{<pid>}.
std::string process_resource(const std::string& name, int pid);

}  // namespace perfdm
