// A stream's STDIO record as the preloaded library keeps it while the program runs, and the
// rules that update it: Darshan's STDIO module (darshan-runtime/lib/darshan-stdio.c): a shadow
// offset for the highest byte touched, flushes apart from writes, no histograms. Times are raw
// clock ticks, as in posix_file.hpp.
#pragma once

#include <cstdint>

#include "darshan/darshan_counters.hpp"
#include "iocounters/posix_file.hpp"
#include "iocounters/record_lock.hpp"

namespace perfdm::io {

struct stdio_file {
  record_lock lock;
  std::uint32_t flags;
  std::uint64_t id;
  std::uint64_t name_offset;
  std::int32_t mount;
  std::int32_t reserved;
  std::int64_t counters[STDIO_NUM_INDICES];
  std::int64_t fticks[STDIO_F_NUM_INDICES];
  std::int64_t offset;
  std::uint64_t last_meta_end;
  std::uint64_t last_read_end;
  std::uint64_t last_write_end;
};

inline void stdio_init(stdio_file& f, std::uint64_t id, std::uint64_t name_offset,
                       std::int32_t mount) {
  f.id = id;
  f.name_offset = name_offset;
  f.mount = mount;
}

// fopen, freopen (`by_path`: resets the shadow offset) or fdopen (`also` STDIO_FDOPENS).
inline void stdio_open(stdio_file& f, bool by_path, int also, std::uint64_t t1, std::uint64_t t2) {
  if (by_path) f.offset = 0;
  f.counters[STDIO_OPENS] += 1;
  if (also >= 0) f.counters[also] += 1;
  stamp(f.fticks[STDIO_F_OPEN_START_TIMESTAMP], f.fticks[STDIO_F_OPEN_END_TIMESTAMP], t1, t2);
  add_time_no_overlap(f.fticks[STDIO_F_META_TIME], t1, t2, f.last_meta_end);
}

inline void stdio_read(stdio_file& f, std::int64_t bytes, std::uint64_t t1, std::uint64_t t2) {
  const std::int64_t at = f.offset;
  f.offset = at + bytes;
  if (f.counters[STDIO_MAX_BYTE_READ] < at + bytes - 1)
    f.counters[STDIO_MAX_BYTE_READ] = at + bytes - 1;
  f.counters[STDIO_BYTES_READ] += bytes;
  f.counters[STDIO_READS] += 1;
  stamp(f.fticks[STDIO_F_READ_START_TIMESTAMP], f.fticks[STDIO_F_READ_END_TIMESTAMP], t1, t2);
  add_time_no_overlap(f.fticks[STDIO_F_READ_TIME], t1, t2, f.last_read_end);
}

// A write of `bytes`, or a flush (`flush`: STDIO_FLUSHES instead of STDIO_WRITES, 0 bytes).
inline void stdio_write(stdio_file& f, std::int64_t bytes, bool flush, std::uint64_t t1,
                        std::uint64_t t2) {
  const std::int64_t at = f.offset;
  f.offset = at + bytes;
  if (f.counters[STDIO_MAX_BYTE_WRITTEN] < at + bytes - 1) {
    f.counters[STDIO_MAX_BYTE_WRITTEN] = at + bytes - 1;
  }
  f.counters[STDIO_BYTES_WRITTEN] += bytes;
  f.counters[flush ? STDIO_FLUSHES : STDIO_WRITES] += 1;
  stamp(f.fticks[STDIO_F_WRITE_START_TIMESTAMP], f.fticks[STDIO_F_WRITE_END_TIMESTAMP], t1, t2);
  add_time_no_overlap(f.fticks[STDIO_F_WRITE_TIME], t1, t2, f.last_write_end);
}

// fseek & co. (the offset ftell gives after it) and rewind (0).
inline void stdio_seek(stdio_file& f, std::int64_t new_offset, std::uint64_t t1, std::uint64_t t2) {
  f.offset = new_offset;
  add_time_no_overlap(f.fticks[STDIO_F_META_TIME], t1, t2, f.last_meta_end);
  f.counters[STDIO_SEEKS] += 1;
}

inline void stdio_close(stdio_file& f, std::uint64_t t1, std::uint64_t t2) {
  stamp(f.fticks[STDIO_F_CLOSE_START_TIMESTAMP], f.fticks[STDIO_F_CLOSE_END_TIMESTAMP], t1, t2);
  add_time_no_overlap(f.fticks[STDIO_F_META_TIME], t1, t2, f.last_meta_end);
}

}  // namespace perfdm::io
