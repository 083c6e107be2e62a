// Observed processes: attaching frames to a running program, detaching, listing the
// processes the engine watches, and the frame statistics each keeps (the log's frames module).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "messages/inspect_macros.hpp"

namespace perfdm {

// ATTACH: write a handle into every generated frame type of the running process PID (or
// only those of SCHEMA, a schema file, which must match) and ingest its frames.
struct attach_request {
  std::int32_t pid = 0;
  std::string schema;  // empty: every frame type the executable has
  bool force = false;  // take over a process another perfdm left attached
  // The segments' geometry; 0: the default (16 lanes of 4096 frames). More capacity rides
  // out longer bursts between reads.
  std::uint32_t lanes = 0;
  std::uint32_t capacity = 0;  // frames per lane, a power of two
};
PERFDM_INSPECT(attach_request, x.pid, x.schema, x.force, x.lanes, x.capacity)
// DETACH: the process stops writing frames; what it wrote until then is ingested.
struct detach_request {
  std::int32_t pid = 0;
};
PERFDM_INSPECT(detach_request, x.pid)
struct list_processes {};

struct process_info {
  std::int32_t pid = 0;
  std::string name;                 // /proc/PID/comm
  std::string executable;           // /proc/PID/exe
  std::string resource;             // /Process/<name>{<pid>}
  std::vector<std::string> frames;  // the frame types attached
  bool active = true;               // false once the process exited, or was detached and unwatched
  bool watched = false;             // the native modules observe it (WATCH)
};
PERFDM_INSPECT(process_info, x.pid, x.name, x.executable, x.resource, x.frames, x.active,
               x.watched)
PERFDM_INSPECT_EMPTY(list_processes)
struct process_list {
  std::vector<process_info> processes;
};
PERFDM_INSPECT(process_list, x.processes)
// WHO's reply: the same processes, printed the way DyPer answered WHO.
struct who_reply {
  std::vector<process_info> processes;
};
PERFDM_INSPECT(who_reply, x.processes)

// The summary of one numeric field over every frame read.
struct field_summary {
  std::string name;
  std::uint64_t count = 0;
  double min = 0, max = 0, sum = 0;
};
PERFDM_INSPECT(field_summary, x.name, x.count, x.min, x.max, x.sum)

// One frame type of one process, as read so far.
struct frame_type_stats {
  std::int32_t pid = 0;
  std::string process;      // the process resource
  std::string frame_type;   // the struct name
  std::uint64_t frames = 0; // read
  std::uint64_t lost = 0;   // overwritten before they were read
  std::uint64_t torn = 0;   // begun but never committed (the writer died mid-frame)
  std::uint64_t late = 0;   // stamped inside an interval already sent (kept in the next)
  std::uint64_t no_lane_drops = 0;  // dropped by the writer: more threads than lanes
  std::vector<field_summary> fields;
};
PERFDM_INSPECT(frame_type_stats, x.pid, x.process, x.frame_type, x.frames, x.lost, x.torn,
               x.late, x.no_lane_drops, x.fields)
struct frames_stats_query {};
struct frames_stats {
  std::vector<frame_type_stats> frame_types;
};
PERFDM_INSPECT(frames_stats, x.frame_types)

PERFDM_INSPECT_EMPTY(frames_stats_query)

}  // namespace perfdm
