// The bounded per-call trace (Darshan's DXT, darshan-runtime/lib/darshan-dxt.c), off unless
// asked for: one entry per read or write of a counted file, appended to a fixed array with
// one atomic add (no lock); when the array is full, later calls are not traced and the trace
// is marked partial. Like DXT it has no open, close, seek, stat or sync events.
#pragma once

#include <cstdint>

namespace perfdm::io {

enum trace_kind : std::uint32_t {
  trace_posix_read = 0,
  trace_posix_write = 1,
  trace_mpiio_read = 2,
  trace_mpiio_write = 3,
};

struct trace_segment {
  std::uint32_t slot;  // the record's index in its module's area
  std::uint32_t kind;  // trace_kind
  std::int64_t offset;
  std::int64_t length;
  std::uint64_t start;  // ticks
  std::uint64_t end;
  std::uint64_t thread;  // pthread_self()
};

struct trace_area {
  std::uint64_t capacity;  // entries
  std::uint64_t used;      // entries taken (may pass capacity: those were dropped)
  trace_segment entries[1];
};

// Appends an entry; false when the area is full.
inline bool trace_append(trace_area& t, const trace_segment& s) {
  const std::uint64_t i = __atomic_fetch_add(&t.used, 1, __ATOMIC_RELAXED);
  if (i >= t.capacity) return false;
  t.entries[i] = s;
  return true;
}

}  // namespace perfdm::io
