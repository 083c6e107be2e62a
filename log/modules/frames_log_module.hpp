// The frames module of the self-describing log: per process and frame type, the frames read,
// lost (overwritten before they were read), torn (begun, never committed), late and dropped
// for want of a lane, and a summary (count, min, max, sum) of every numeric field. Records of
// the same process and frame type from several engines reduce into one (sums; min of the
// minima, max of the maxima).
#pragma once

#include <cstdint>

#include "log/log_core.hpp"
#include "messages/process_messages.hpp"

namespace perfdm {

inline constexpr std::uint32_t frames_log_module_id = 17;
inline constexpr std::uint32_t frames_log_module_version = 1;
inline constexpr const char* frames_log_module_name = "frames";

void add_frames_module(log_core& core, const frames_stats& stats, std::size_t requested_bytes);

// Makes `perfdm log` print the module.
void register_frames_log_printer();

}  // namespace perfdm
