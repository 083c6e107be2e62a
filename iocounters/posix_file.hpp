// A file's POSIX record as the preloaded library keeps it while the program runs, and the
// rules that update it: Darshan's POSIX module (darshan-runtime/lib/darshan-posix.c, the
// POSIX_RECORD_* macros), with every counter of its record in its order, plus perfdm's own
// counters for calls Darshan does not see. Times are raw clock ticks (io_clock.hpp): the
// timestamps absolute, the times durations; a reader converts them to Darshan's seconds.
// The struct is plain data in a shared segment; callers hold its lock around an update.
#pragma once

#include <cstdint>

#include "darshan/darshan_buckets.hpp"
#include "darshan/darshan_counters.hpp"
#include "iocounters/common_values.hpp"
#include "iocounters/record_lock.hpp"
#include "log/log_io_records.hpp"

namespace perfdm::io {

using namespace perfdm::darshan;

enum io_type : std::int32_t { io_none = 0, io_read = 1, io_write = 2 };

// Darshan's DARSHAN_TIMER_INC_NO_OVERLAP: concurrent calls on one record are not counted
// twice. As coded there, a call that ends inside an interval already counted subtracts.
inline void add_time_no_overlap(std::int64_t& timer, std::uint64_t t1, std::uint64_t t2,
                                std::uint64_t& last) {
  if (t1 == 0 || t2 == 0) return;
  if (t1 > last) {
    timer += std::int64_t(t2 - t1);
  } else {
    timer += std::int64_t(t2) - std::int64_t(last);
  }
  if (t2 > last) last = t2;
}

// Earliest non-zero start, latest call's end.
inline void stamp(std::int64_t& start, std::int64_t& end, std::uint64_t t1, std::uint64_t t2) {
  if (start == 0 || start > std::int64_t(t1)) start = std::int64_t(t1);
  end = std::int64_t(t2);
}

inline void bucket_inc(std::int64_t* buckets, std::int64_t bytes) {
  buckets[size_bucket(bytes)] += 1;
}

// Where a module keeps a read's or write's timestamps, longest call (and its size) and time.
struct access_time_fields {
  int read_start, read_end, write_start, write_end, max_read_time, max_write_time, max_read_size,
      max_write_size, read_time, write_time;
};
inline constexpr access_time_fields posix_access_times{POSIX_F_READ_START_TIMESTAMP,
                                                       POSIX_F_READ_END_TIMESTAMP,
                                                       POSIX_F_WRITE_START_TIMESTAMP,
                                                       POSIX_F_WRITE_END_TIMESTAMP,
                                                       POSIX_F_MAX_READ_TIME,
                                                       POSIX_F_MAX_WRITE_TIME,
                                                       POSIX_MAX_READ_TIME_SIZE,
                                                       POSIX_MAX_WRITE_TIME_SIZE,
                                                       POSIX_F_READ_TIME,
                                                       POSIX_F_WRITE_TIME};

// The timing part of Darshan's read and write rules (POSIX_RECORD_READ, MPIIO_RECORD_READ...):
// the start and end stamps, the longest call with its size (a strictly longer one replaces it),
// the time without overlap.
inline void time_access(std::int64_t* c, std::int64_t* ft, const access_time_fields& k,
                        bool is_read, std::int64_t bytes, std::uint64_t t1, std::uint64_t t2,
                        std::uint64_t& last_read_end, std::uint64_t& last_write_end) {
  if (is_read) {
    stamp(ft[k.read_start], ft[k.read_end], t1, t2);
  } else {
    stamp(ft[k.write_start], ft[k.write_end], t1, t2);
  }
  const std::int64_t elapsed = std::int64_t(t2 - t1);
  std::int64_t& max_time = ft[is_read ? k.max_read_time : k.max_write_time];
  if (max_time < elapsed) {
    max_time = elapsed;
    c[is_read ? k.max_read_size : k.max_write_size] = bytes;
  }
  if (is_read) {
    add_time_no_overlap(ft[k.read_time], t1, t2, last_read_end);
  } else {
    add_time_no_overlap(ft[k.write_time], t1, t2, last_write_end);
  }
}

// Flags of a record.
enum record_flags : std::uint32_t {
  // A record the process did not open itself: copied into a forked child's segment (its
  // counts are the child's), or a file it held open when the library started. Left out of
  // the log when nothing was counted in it.
  record_inherited = 1,
};

struct posix_file {
  record_lock lock;
  std::uint32_t flags;
  std::uint64_t id;           // Darshan's record id of the cleaned path
  std::uint64_t name_offset;  // of the name in the segment's name area
  std::int32_t mount;         // index in the segment's mount table, -1 when none matched
  std::int32_t reserved;
  std::int64_t counters[POSIX_NUM_INDICES];
  std::int64_t fticks[POSIX_F_NUM_INDICES];  // POSIX_F_*: ticks (see above)
  std::int64_t extra[POSIX_EXTRA_NUM_INDICES];
  // Darshan's hidden per-record state (per file, not per descriptor).
  std::int64_t offset;
  std::int64_t last_byte_read;
  std::int64_t last_byte_written;
  std::uint64_t last_meta_end;
  std::uint64_t last_read_end;
  std::uint64_t last_write_end;
  std::int32_t last_io_type;
  std::int32_t reserved2;
  common_values access;
  common_values stride;
};

// The rest of a POSIX record's common values (common_values.hpp), kept apart from the record.
struct posix_file_more {
  common_values_more access;
  common_values_more stride;
};

// A new record: alignments as Darshan sets them at creation; POSIX_MMAPS -1 when mmap is not
// counted (Darshan's preload library never counts it). `more`: where its common values past
// the fourth go.
inline void posix_init(posix_file& f, std::uint64_t id, std::uint64_t name_offset,
                       std::int32_t mount, std::int64_t mem_alignment, std::int64_t file_alignment,
                       bool counts_mmap, posix_file_more* more) {
  f.id = id;
  f.access.more = &more->access;
  f.stride.more = &more->stride;
  f.name_offset = name_offset;
  f.mount = mount;
  f.counters[POSIX_MEM_ALIGNMENT] = mem_alignment;
  f.counters[POSIX_FILE_ALIGNMENT] = file_alignment;
  if (!counts_mmap) f.counters[POSIX_MMAPS] = -1;
}

// An open-type call. `by_path`: open/creat/openat/mkstemp (resets the offset model);
// otherwise dup, dup2, fcntl(F_DUPFD) or fileno, counted in `also` (POSIX_DUPS,
// POSIX_FILENOS). `mode` non-zero sets POSIX_MODE.
inline void posix_open(posix_file& f, std::int64_t mode, bool by_path, int also, std::uint64_t t1,
                       std::uint64_t t2) {
  if (mode != 0) f.counters[POSIX_MODE] = mode;
  if (by_path) {
    f.offset = 0;
    f.last_byte_written = 0;
    f.last_byte_read = 0;
  }
  f.counters[POSIX_OPENS] += 1;
  if (also >= 0) f.counters[also] += 1;
  stamp(f.fticks[POSIX_F_OPEN_START_TIMESTAMP], f.fticks[POSIX_F_OPEN_END_TIMESTAMP], t1, t2);
  add_time_no_overlap(f.fticks[POSIX_F_META_TIME], t1, t2, f.last_meta_end);
}

// A read (`is_read`) or write of `bytes` (>= 0) at `offset`, or at the record's own offset
// when `offset` < 0 (read, write, readv, writev). Returns the offset used.
inline std::int64_t posix_access(posix_file& f, bool is_read, std::int64_t offset,
                                 std::int64_t bytes, bool aligned, std::uint64_t t1,
                                 std::uint64_t t2) {
  const std::int64_t at = offset < 0 ? f.offset : offset;
  std::int64_t& last_byte = is_read ? f.last_byte_read : f.last_byte_written;
  std::int64_t* c = f.counters;
  if (at > last_byte) c[is_read ? POSIX_SEQ_READS : POSIX_SEQ_WRITES] += 1;
  if (at == last_byte + 1) c[is_read ? POSIX_CONSEC_READS : POSIX_CONSEC_WRITES] += 1;
  const std::int64_t stride = (at > 0 && at > last_byte && last_byte != 0) ? at - last_byte - 1 : 0;
  last_byte = at + bytes - 1;
  f.offset = at + bytes;
  std::int64_t& max_byte = c[is_read ? POSIX_MAX_BYTE_READ : POSIX_MAX_BYTE_WRITTEN];
  if (max_byte < at + bytes - 1) max_byte = at + bytes - 1;
  c[is_read ? POSIX_BYTES_READ : POSIX_BYTES_WRITTEN] += bytes;
  c[is_read ? POSIX_READS : POSIX_WRITES] += 1;
  bucket_inc(&c[is_read ? POSIX_SIZE_READ_0_100 : POSIX_SIZE_WRITE_0_100], bytes);
  if (const std::int64_t n = f.access.add(bytes)) {
    place_common_value(&c[POSIX_ACCESS1_ACCESS], &c[POSIX_ACCESS1_COUNT], bytes, n);
  }
  if (const std::int64_t n = f.stride.add(stride)) {
    place_common_value(&c[POSIX_STRIDE1_STRIDE], &c[POSIX_STRIDE1_COUNT], stride, n);
  }
  if (!aligned) c[POSIX_MEM_NOT_ALIGNED] += 1;
  const std::int64_t file_alignment = c[POSIX_FILE_ALIGNMENT];
  if (file_alignment > 0 && at % file_alignment != 0) c[POSIX_FILE_NOT_ALIGNED] += 1;
  if (f.last_io_type == (is_read ? io_write : io_read)) c[POSIX_RW_SWITCHES] += 1;
  f.last_io_type = is_read ? io_read : io_write;
  time_access(c, f.fticks, posix_access_times, is_read, bytes, t1, t2, f.last_read_end,
              f.last_write_end);
  return at;
}

inline void posix_seek(posix_file& f, std::int64_t new_offset, std::uint64_t t1, std::uint64_t t2) {
  f.offset = new_offset;
  add_time_no_overlap(f.fticks[POSIX_F_META_TIME], t1, t2, f.last_meta_end);
  f.counters[POSIX_SEEKS] += 1;
}

inline void posix_stat(posix_file& f, std::uint64_t t1, std::uint64_t t2) {
  f.counters[POSIX_STATS] += 1;
  add_time_no_overlap(f.fticks[POSIX_F_META_TIME], t1, t2, f.last_meta_end);
}

// fsync (`data_only` false) or fdatasync: their time counts as write time.
inline void posix_sync(posix_file& f, bool data_only, std::uint64_t t1, std::uint64_t t2) {
  add_time_no_overlap(f.fticks[POSIX_F_WRITE_TIME], t1, t2, f.last_write_end);
  f.counters[data_only ? POSIX_FDSYNCS : POSIX_FSYNCS] += 1;
}

inline void posix_close(posix_file& f, std::uint64_t t1, std::uint64_t t2) {
  f.last_byte_written = 0;
  f.last_byte_read = 0;
  stamp(f.fticks[POSIX_F_CLOSE_START_TIMESTAMP], f.fticks[POSIX_F_CLOSE_END_TIMESTAMP], t1, t2);
  add_time_no_overlap(f.fticks[POSIX_F_META_TIME], t1, t2, f.last_meta_end);
}

inline void posix_rename_source(posix_file& f, std::uint64_t t1, std::uint64_t t2) {
  f.counters[POSIX_RENAME_SOURCES] += 1;
  add_time_no_overlap(f.fticks[POSIX_F_META_TIME], t1, t2, f.last_meta_end);
}

inline void posix_rename_target(posix_file& f, std::uint64_t source_id) {
  f.counters[POSIX_RENAME_TARGETS] += 1;
  if (f.counters[POSIX_RENAMED_FROM] == 0) f.counters[POSIX_RENAMED_FROM] = std::int64_t(source_id);
}

inline void posix_mmap(posix_file& f) {
  if (f.counters[POSIX_MMAPS] < 0) f.counters[POSIX_MMAPS] = 0;
  f.counters[POSIX_MMAPS] += 1;
}

// truncate/ftruncate, unlink, mkdir: perfdm's counters; their time is metadata time.
inline void posix_meta_extra(posix_file& f, posix_extra_counter which, std::uint64_t t1,
                             std::uint64_t t2) {
  f.extra[which] += 1;
  add_time_no_overlap(f.fticks[POSIX_F_META_TIME], t1, t2, f.last_meta_end);
}

}  // namespace perfdm::io
