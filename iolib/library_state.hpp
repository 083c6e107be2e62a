// The preloaded library's state, shared by every wrapper: where this process's segment is
// mapped, which descriptors and streams belong to which record, and the per-thread guard.
// Every global here is constant-initialized (plain data, zero until start-up fills it): a
// wrapper may run before the library's own constructor, when another library's constructor
// does I/O. Hidden inside the library (only the wrapped C functions are exported).
#pragma once

#include <stdio.h>

#include <cstdint>

#include "iocounters/io_segment.hpp"

namespace perfdm::io::lib {

enum run_state : int { state_unset = 0, state_starting = 1, state_ready = 2, state_off = 3 };

// What every call reads; set once at start-up (and in a forked child, before it runs on).
struct library_globals {
  int state;  // run_state, atomic
  segment_header* header;
  unsigned char* posix_base;
  unsigned char* stdio_base;
  unsigned char* mpiio_base;
  unsigned char* posix_more_base;
  unsigned char* mpiio_more_base;
  heatmap_bins* heatmaps;
  trace_area* trace;             // null unless the trace is on
  std::uint64_t alignment_mask;  // mem_alignment - 1 when it is a power of two
  std::int64_t mem_alignment;
  bool alignment_pow2;
  bool darshan_only;  // count only the calls Darshan sees
  std::int32_t pid;   // the process the segment belongs to
};
extern library_globals g;

// Descriptor -> POSIX record index + 1 (0: not counted). Descriptors past the table are not
// counted.
inline constexpr unsigned max_fds = 1u << 20;
extern std::int32_t fd_records[max_fds];

// Stream -> STDIO record, found through the stream's descriptor (FILE::_fileno), so a lookup
// is one load and a compare: the entry's owner must be the stream itself.
struct stream_record {
  FILE* owner;
  std::int32_t slot;  // record index + 1
  std::int32_t reserved;
};
inline constexpr unsigned max_stream_fds = 1u << 16;
extern stream_record stream_records[max_stream_fds];

// Non-zero while this thread runs the library's own code: a wrapper entered then (from a signal
// handler, or from the library's own I/O) calls through without counting.
extern thread_local int in_library __attribute__((tls_model("initial-exec")));
// Non-zero while the library does I/O of its own (start-up, writing the log): those calls are
// neither counted nor reported as uncounted.
extern thread_local int library_io __attribute__((tls_model("initial-exec")));

struct library_guard {
  library_guard() { ++in_library; }
  ~library_guard() { --in_library; }
  library_guard(const library_guard&) = delete;
  library_guard& operator=(const library_guard&) = delete;
};

struct library_io_guard {
  library_io_guard() {
    ++in_library;
    ++library_io;
  }
  ~library_io_guard() {
    --library_io;
    --in_library;
  }
  library_io_guard(const library_io_guard&) = delete;
  library_io_guard& operator=(const library_io_guard&) = delete;
};

inline bool ready() {
  return __atomic_load_n(&g.state, __ATOMIC_ACQUIRE) == state_ready;
}
// Starts the library if nothing has yet (the first call of a process); false when it is off or
// starting on another thread.
bool start();

inline posix_file& posix_at(std::int32_t index) {
  return *reinterpret_cast<posix_file*>(g.posix_base + std::size_t(index) * posix_slot_size);
}
inline stdio_file& stdio_at(std::int32_t index) {
  return *reinterpret_cast<stdio_file*>(g.stdio_base + std::size_t(index) * stdio_slot_size);
}

inline mpiio_file& mpiio_at(std::int32_t index) {
  return *reinterpret_cast<mpiio_file*>(g.mpiio_base + std::size_t(index) * mpiio_slot_size);
}

// Where a record's common values past the fourth go.
inline posix_file_more* posix_more_at(std::int32_t index) {
  return reinterpret_cast<posix_file_more*>(g.posix_more_base) + index;
}
inline common_values_more* mpiio_more_at(std::int32_t index) {
  return reinterpret_cast<common_values_more*>(g.mpiio_more_base) + index;
}

// A call made while the thread was inside the library (a signal handler's) is not counted:
// the segment says how many.
inline void count_uncounted() {
  if (library_io == 0 && g.header != nullptr) {
    __atomic_fetch_add(&g.header->uncounted, 1, __ATOMIC_RELAXED);
  }
}

// A descriptor's entry before its first use: a regular file the process held open as the
// library started (iolib/inherited_files.hpp), its record made at its first call.
inline constexpr std::int32_t fd_inherited = -1;

// Makes the record of inherited descriptor `fd`; its index + 1, or 0 when it is not counted.
std::int32_t adopt_inherited_file(int fd);

// Whether `fd` is an inherited descriptor no call used yet (close and dup leave it so).
inline bool fd_pending(int fd) {
  return static_cast<unsigned>(fd) < max_fds &&
         __atomic_load_n(&fd_records[fd], __ATOMIC_RELAXED) == fd_inherited;
}

// The POSIX record of a descriptor (index + 1), or 0 when it is not counted or the thread is
// inside the library.
inline std::int32_t fd_record(int fd) {
  if (static_cast<unsigned>(fd) >= max_fds) return 0;
  const std::int32_t r = __atomic_load_n(&fd_records[fd], __ATOMIC_RELAXED);
  if (r == 0) return 0;
  if (__builtin_expect(in_library != 0, 0)) {
    count_uncounted();
    return 0;
  }
  if (__builtin_expect(r == fd_inherited, 0)) return adopt_inherited_file(fd);
  return r;
}

// The STDIO record of a stream (index + 1), or 0.
inline std::int32_t stream_record_of(FILE* fp) {
  if (fp == nullptr) return 0;
  const unsigned fd = static_cast<unsigned>(fp->_fileno);
  if (fd >= max_stream_fds) return 0;
  if (__atomic_load_n(&stream_records[fd].owner, __ATOMIC_ACQUIRE) != fp) return 0;
  const std::int32_t r = __atomic_load_n(&stream_records[fd].slot, __ATOMIC_RELAXED);
  if (r != 0 && __builtin_expect(in_library != 0, 0)) {
    count_uncounted();
    return 0;
  }
  return r;
}

inline bool mem_aligned(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  if (g.alignment_pow2) return (a & g.alignment_mask) == 0;
  return g.mem_alignment <= 0 || a % std::uint64_t(g.mem_alignment) == 0;
}

// Marks module `module_id` (Darshan's id) partial.
inline void mark_partial(int module_id) {
  __atomic_fetch_or(&g.header->partial, std::uint64_t(1) << module_id, __ATOMIC_RELAXED);
}

}  // namespace perfdm::io::lib
