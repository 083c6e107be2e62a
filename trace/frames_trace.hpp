// `perfdm read SEGMENT --trace-event OUT.json`: the frames of a segment as a Chrome trace, one
// counter track per numeric field (<struct>.<field>) in the writer's process, an event per
// frame at the frame's time. Text fields and the frame's own sequence and time are left out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>

#include "shm/layout.hpp"
#include "trace/trace_event_writer.hpp"

namespace perfdm {

class frames_trace {
 public:
  // `pid`: the writer's process (0 if unknown: the trace then uses 1).
  frames_trace(std::ostream& out, const shm::frame_layout& layout, long long pid,
               const std::string& segment);
  void frame(const std::byte* frame, std::int64_t time_ns);
  // Closes the trace; the counts go into its metadata.
  void finish(std::uint64_t read, std::uint64_t lost, std::uint64_t torn);
  std::uint64_t frames() const { return frames_; }

 private:
  trace_event_writer writer_;
  const shm::frame_layout& layout_;
  long long pid_;
  std::string segment_;
  std::uint64_t frames_ = 0;
};

}  // namespace perfdm
