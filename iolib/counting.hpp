// What the wrappers do around the real call: decide whether to count it (the library is ready,
// the thread is not inside the library, the descriptor or stream has a record, and with
// PERFDM_IO_DARSHAN_ONLY the call is one Darshan wraps), read the clock before and after, and
// apply the counting rules (iocounters/) to the record under its lock, then to the heatmap
// and the trace. Every wrapper's definition goes through PERFDM_IO_WRAP, which exports the C
// symbol without clashing with the C library's declarations.
#pragma once

#include <pthread.h>

#include <cstdint>

#include "iocounters/heatmap_bins.hpp"
#include "iocounters/io_clock.hpp"
#include "iocounters/posix_file.hpp"
#include "iocounters/stdio_file.hpp"
#include "iocounters/trace_segments.hpp"
#include "iolib/file_registry.hpp"
#include "iolib/library_state.hpp"
#include "iolib/real_calls.hpp"

// Defines the exported C function NAME (the symbol the program's calls bind to) as a C++
// function perfdm_io_NAME, so that the C library's own declaration of NAME does not conflict.
#define PERFDM_IO_WRAP(ret, name, params)                                                       \
  extern "C" __attribute__((visibility("default"))) ret perfdm_io_##name params __asm__(#name); \
  ret perfdm_io_##name params

namespace perfdm::io::lib {

// Whether a call that names a file (open, stat, fopen...) is counted: the library started
// (starting it on the first call), the thread is not inside the library, and the call is
// one Darshan sees or perfdm counts more than Darshan.
inline bool counting_names(bool darshan_sees) {
  if (__builtin_expect(!ready(), 0) && !start()) return false;
  if (in_library != 0) {
    count_uncounted();
    return false;
  }
  return darshan_sees || !g.darshan_only;
}

// The record of descriptor `fd` as it is closed (0: not counted). An inherited descriptor no
// call used is forgotten without one: a file the process never touched takes no room.
inline std::int32_t fd_record_at_close(int fd) {
  if (fd_pending(fd)) {
    set_fd_record(fd, 0);
    return 0;
  }
  return fd_record(fd);
}

// A read or write of `bytes` on POSIX record `record` (index + 1) at `offset` (< 0: the
// record's own offset).
inline void count_access(std::int32_t record, bool is_read, std::int64_t offset, std::int64_t bytes,
                         bool aligned, std::uint64_t t1, std::uint64_t t2) {
  library_guard guard;
  posix_file& f = posix_at(record - 1);
  f.lock.lock();
  const std::int64_t at = posix_access(f, is_read, offset, bytes, aligned, t1, t2);
  f.lock.unlock();
  heatmap_add(g.heatmaps[heatmap_posix], is_read, bytes, t1, t2);
  if (g.trace != nullptr &&
      !trace_append(*g.trace,
                    {std::uint32_t(record - 1),
                     is_read ? std::uint32_t(trace_posix_read) : std::uint32_t(trace_posix_write),
                     at, bytes, t1, t2, std::uint64_t(pthread_self())})) {
    mark_partial(darshan::DXT_POSIX_MOD);
  }
}

// Runs `update(record&)` on a record under its lock.
template <class Record, class Update>
inline void update_locked(Record& f, Update&& update) {
  library_guard guard;
  f.lock.lock();
  update(f);
  f.lock.unlock();
}

// The same on POSIX or STDIO record `record` (index + 1).
template <class Update>
inline void update_posix(std::int32_t record, Update&& update) {
  update_locked(posix_at(record - 1), update);
}
template <class Update>
inline void update_stdio(std::int32_t record, Update&& update) {
  update_locked(stdio_at(record - 1), update);
}

inline void count_stdio_read(std::int32_t record, std::int64_t bytes, std::uint64_t t1,
                             std::uint64_t t2) {
  update_stdio(record, [&](stdio_file& f) { stdio_read(f, bytes, t1, t2); });
  heatmap_add(g.heatmaps[heatmap_stdio], true, bytes, t1, t2);
}

inline void count_stdio_write(std::int32_t record, std::int64_t bytes, bool flush, std::uint64_t t1,
                              std::uint64_t t2) {
  update_stdio(record, [&](stdio_file& f) { stdio_write(f, bytes, flush, t1, t2); });
  heatmap_add(g.heatmaps[heatmap_stdio], false, bytes, t1, t2);
}

// The stream's record when the call is counted (starting the library on the first call).
inline std::int32_t counted_stream(FILE* fp, bool darshan_sees) {
  if (__builtin_expect(!ready(), 0) && !start()) return 0;
  if (!darshan_sees && g.darshan_only) return 0;
  return stream_record_of(fp);
}

// The descriptor's record when the call is counted.
inline std::int32_t counted_fd(int fd, bool darshan_sees) {
  if (!darshan_sees && g.darshan_only) return 0;
  return fd_record(fd);
}

// A read or write call on a descriptor, timed and counted when it returned >= 0.
template <class Call>
ssize_t access_call(int fd, bool is_read, std::int64_t offset, bool aligned, bool darshan_sees,
                    Call&& call) {
  const std::int32_t record = counted_fd(fd, darshan_sees);
  if (record == 0) return call();
  const std::uint64_t t1 = read_ticks();
  const ssize_t r = call();
  const std::uint64_t t2 = read_ticks();
  if (r >= 0) count_access(record, is_read, offset, r, aligned, t1, t2);
  return r;
}

// After an open-type call by name that returned `fd`: the file's record (created when
// needed), the descriptor pointed at it (or forgotten when the file is not counted).
void count_open(int fd, int dirfd, const char* path, std::int64_t mode, std::uint64_t t1,
                std::uint64_t t2);

// An open-type call by name (open, openat, creat, mkstemp...), timed and counted.
template <class Call>
int open_by_name(int dirfd, const char* path, std::int64_t mode, bool darshan_sees, Call&& call) {
  if (!counting_names(darshan_sees)) return call();
  const std::uint64_t t1 = read_ticks();
  const int fd = call();
  const std::uint64_t t2 = read_ticks();
  if (fd >= 0) count_open(fd, dirfd, path, mode, t1, t2);
  return fd;
}
// After dup/dup2/dup3/fcntl(F_DUPFD): `newfd` shares `oldfd`'s record (POSIX_DUPS).
void count_dup(int newfd, int oldfd, std::uint64_t t1, std::uint64_t t2);
// A stat-type call that succeeded on a regular file named `path` (relative to `dirfd`).
void count_stat_path(int dirfd, const char* path, std::uint64_t t1, std::uint64_t t2);
// A metadata call of perfdm's own counters (truncate, unlink, mkdir) on `path`.
void count_meta_path(int dirfd, const char* path, posix_extra_counter which, std::uint64_t t1,
                     std::uint64_t t2);
// rename's rule: only a source with a record counts, then the target (created when needed).
void count_rename(int olddirfd, const char* oldpath, int newdirfd, const char* newpath,
                  std::uint64_t t1, std::uint64_t t2);

// mmap of an io_uring ring set up through syscall(): where its submission queue is.
void note_ring_mapping(int fd, off64_t offset, void* at);

inline bool iov_aligned(const struct iovec* iov, int count) {
  for (int i = 0; i < count; ++i)
    if (!mem_aligned(iov[i].iov_base)) return false;
  return true;
}

}  // namespace perfdm::io::lib
