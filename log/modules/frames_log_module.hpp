// The frames module of the self-describing log: per process and frame type, the frames read,
// lost (overwritten before they were read), torn (begun, never committed), late and dropped
// for want of a lane, and a summary (count, min, max, sum) of every numeric field. Records of
// the same process and frame type from several engines reduce into one (sums; min of the
// minima, max of the maxima).
#pragma once

#include <cstdint>

#include "log/log_core.hpp"
#include "log/log_counter_list.hpp"
#include "log/log_modules.hpp"
#include "messages/process_messages.hpp"

// The counters of a record, in record order, and how merged logs reduce them: sums, but the
// pid is one value.
#define PERFDM_FRAMES_LOG_COUNTERS(X) \
  X(pid, max)                         \
  X(frames, sum)                      \
  X(lost, sum)                        \
  X(torn, sum)                        \
  X(late, sum)                        \
  X(no_lane_drops, sum)
// Then per numeric field F, `field.F.` and these; minima and maxima stay minima and maxima.
#define PERFDM_FRAMES_LOG_FIELD_COUNTERS(X) \
  X(count, sum)                             \
  X(min, min)                               \
  X(max, max)                               \
  X(sum, sum)

namespace perfdm {

PERFDM_LOG_COUNTER_LIST(frames_log_counters, PERFDM_FRAMES_LOG_COUNTERS)

PERFDM_LOG_COUNTER_LIST(frames_log_field_counters, PERFDM_FRAMES_LOG_FIELD_COUNTERS)

void add_frames_module(log_core& core, const frames_stats& stats, std::size_t requested_bytes);

// Makes `perfdm log` print the module.
void register_frames_log_printer();

}  // namespace perfdm
