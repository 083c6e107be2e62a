// The bytes of a frames segment (docs/FRAMES.md §4), shared by the creator (segment), the
// reader (frame_reader) and, as numbers emitted by the code generator, the observed program.
// Shared words are accessed with the __atomic builtins, so plain integers suffice here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace perfdm::shm::format {

constexpr char magic[8] = {'P', 'E', 'R', 'F', 'D', 'M', 'F', '1'};
constexpr std::uint32_t version = 1;
constexpr std::uint32_t page = 4096;  // the header size is a multiple of this

// clock_reader: the writer copies perfdm_time from header::reader_clock_ns, which the
// reader keeps current (CLOCK_MONOTONIC ns) whenever it polls; no clock read per frame.
enum clock_kind : std::uint32_t { clock_monotonic = 0, clock_tsc = 1, clock_reader = 2 };
enum writer_state : std::uint32_t {
  writer_waiting = 0,
  writer_attached = 1,
  writer_released = 2,
  writer_mismatch = 3
};

// The first 128 bytes of the header; the layout descriptor (NUL-terminated) follows at
// descriptor_offset and the header is padded to header_size. The fields are listed once, as
// X(type, name, extent), for both sides (Tracy's one layout for client and server): struct
// header below, and the generated writer's perfdm_segment_header (shm/codegen.cpp), which
// asserts every field's offset and size against this struct's.
#define PERFDM_SEGMENT_HEADER_FIELDS(X)                                                        \
  X(char, magic, [8])                                                                          \
  X(std::uint32_t, version, )                                                                  \
  X(std::uint32_t, header_size, )      /* bytes before the first lane: a multiple of page */  \
  X(std::uint64_t, layout_hash, )                                                              \
  X(std::uint32_t, frame_size, )                                                               \
  X(std::uint32_t, lane_count, )                                                               \
  X(std::uint32_t, lane_capacity, )    /* slots per lane, a power of two */                   \
  X(std::uint32_t, clock, )            /* clock_kind of perfdm_time */                        \
  X(std::int32_t, target_pid, )                                                                \
  X(std::int32_t, creator_pid, )                                                               \
  X(std::uint32_t, writer_state, )     /* set by the writer: writer_state */                  \
  X(std::int32_t, writer_pid, )        /* set by the writer when it attaches */               \
  X(std::uint64_t, no_lane_drops, )    /* frames dropped because every lane was taken */      \
  X(std::uint32_t, descriptor_size, )  /* bytes of the descriptor, without its NUL */          \
  X(std::uint32_t, reserved0, )                                                                \
  X(std::uint64_t, transition_drops, ) /* frames dropped while another thread opened it */    \
  X(std::uint64_t, reader_clock_ns, )  /* see below */                                         \
  X(std::uint32_t, reserved, [10])

// reader_clock_ns, clock_reader only: CLOCK_MONOTONIC ns, set by the creator and by every
// poll of a reader, never decreasing; the writer's perfdm_time. Its cache line is otherwise
// written only on the writer's transitions, so it stays shared in the writers' caches
// between polls.
struct header {
#define PERFDM_SEGMENT_HEADER_FIELD(type, name, extent) type name extent;
  PERFDM_SEGMENT_HEADER_FIELDS(PERFDM_SEGMENT_HEADER_FIELD)
#undef PERFDM_SEGMENT_HEADER_FIELD
};
// The layout is the protocol (docs/FRAMES.md §4): a change to the list must not move these.
static_assert(offsetof(header, no_lane_drops) == 56, "header layout");
static_assert(offsetof(header, transition_drops) == 72, "header layout");
static_assert(offsetof(header, reader_clock_ns) == 80, "header layout");
static_assert(sizeof(header) == 128, "header layout");
constexpr std::size_t descriptor_offset = sizeof(header);  // descriptor_size bytes and a NUL

// A lane: the owner word on its own cache line, the head on the next, then the slots.
constexpr std::size_t lane_owner = 0;
constexpr std::size_t lane_head = 64;
constexpr std::size_t lane_slots = 128;
constexpr std::uint64_t writing_bit = std::uint64_t(1) << 63;  // perfdm_seq while writing

constexpr std::uint32_t max_lanes = 1024;
constexpr std::uint32_t max_capacity = 1u << 24;

constexpr std::uint64_t header_size_for(std::size_t descriptor_size) {
  return (descriptor_offset + descriptor_size + 1 + page - 1) / page * page;
}

constexpr std::uint64_t lane_stride(std::uint32_t frame_size, std::uint32_t capacity) {
  return (lane_slots + std::uint64_t(frame_size) * capacity + 63) / 64 * 64;
}

// The clock of perfdm_time on this machine (the writer uses the same rule).
constexpr std::uint32_t native_clock() {
#if defined(__x86_64__) || defined(__i386__)
  return clock_tsc;
#else
  return clock_monotonic;
#endif
}

// perfdm.<pid>.<handle as 16 hex digits>
std::string segment_name(int pid, std::uint64_t handle);

}  // namespace perfdm::shm::format
