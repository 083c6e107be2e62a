// A file's MPI-IO record as the preloaded library keeps it while an MPI program runs, and the
// rules that update it: Darshan's MPIIO module (darshan-runtime/lib/darshan-mpiio.c, the
// MPIIO_RECORD_* macros). An operation's size is count x the datatype's size (the view and
// noncontiguity are ignored, as Darshan ignores them); there is no offset model at this layer.
// Times are raw clock ticks, as in posix_file.hpp; callers hold the record's lock.
#pragma once

#include <cstdint>

#include "iocounters/posix_file.hpp"

namespace perfdm::io {

inline constexpr access_time_fields mpiio_access_times{MPIIO_F_READ_START_TIMESTAMP,
                                                       MPIIO_F_READ_END_TIMESTAMP,
                                                       MPIIO_F_WRITE_START_TIMESTAMP,
                                                       MPIIO_F_WRITE_END_TIMESTAMP,
                                                       MPIIO_F_MAX_READ_TIME,
                                                       MPIIO_F_MAX_WRITE_TIME,
                                                       MPIIO_MAX_READ_TIME_SIZE,
                                                       MPIIO_MAX_WRITE_TIME_SIZE,
                                                       MPIIO_F_READ_TIME,
                                                       MPIIO_F_WRITE_TIME};

struct mpiio_file {
  record_lock lock;
  std::uint32_t flags;
  std::uint64_t id;
  std::uint64_t name_offset;
  std::int32_t mount;
  std::int32_t last_io_type;
  std::int64_t counters[MPIIO_NUM_INDICES];
  std::int64_t fticks[MPIIO_F_NUM_INDICES];
  std::uint64_t last_meta_end;
  std::uint64_t last_read_end;
  std::uint64_t last_write_end;
  common_values access;
};

// `more`: where the record's common values past the fourth go (common_values.hpp).
inline void mpiio_init(mpiio_file& f, std::uint64_t id, std::uint64_t name_offset,
                       std::int32_t mount, common_values_more* more) {
  f.id = id;
  f.access.more = more;
  f.name_offset = name_offset;
  f.mount = mount;
}

// MPI_File_open: collective when the communicator has more than one process; `hints` when
// an info object was passed.
inline void mpiio_open(mpiio_file& f, int amode, int comm_size, bool hints, std::uint64_t t1,
                       std::uint64_t t2) {
  f.counters[MPIIO_MODE] = amode;
  f.counters[comm_size == 1 ? MPIIO_INDEP_OPENS : MPIIO_COLL_OPENS] += 1;
  if (hints) f.counters[MPIIO_HINTS] += 1;
  stamp(f.fticks[MPIIO_F_OPEN_START_TIMESTAMP], f.fticks[MPIIO_F_OPEN_END_TIMESTAMP], t1, t2);
  add_time_no_overlap(f.fticks[MPIIO_F_META_TIME], t1, t2, f.last_meta_end);
}

// A read or write of `bytes` counted in `kind` (MPIIO_INDEP_READS, MPIIO_COLL_WRITES, ...).
inline void mpiio_access(mpiio_file& f, bool is_read, int kind, std::int64_t bytes,
                         std::uint64_t t1, std::uint64_t t2) {
  std::int64_t* c = f.counters;
  bucket_inc(&c[is_read ? MPIIO_SIZE_READ_AGG_0_100 : MPIIO_SIZE_WRITE_AGG_0_100], bytes);
  if (const std::int64_t n = f.access.add(bytes)) {
    place_common_value(&c[MPIIO_ACCESS1_ACCESS], &c[MPIIO_ACCESS1_COUNT], bytes, n);
  }
  c[is_read ? MPIIO_BYTES_READ : MPIIO_BYTES_WRITTEN] += bytes;
  c[kind] += 1;
  if (f.last_io_type == (is_read ? io_write : io_read)) c[MPIIO_RW_SWITCHES] += 1;
  f.last_io_type = is_read ? io_read : io_write;
  time_access(c, f.fticks, mpiio_access_times, is_read, bytes, t1, t2, f.last_read_end,
              f.last_write_end);
}

// MPI_File_sync: its time is write time.
inline void mpiio_sync(mpiio_file& f, std::uint64_t t1, std::uint64_t t2) {
  f.counters[MPIIO_SYNCS] += 1;
  add_time_no_overlap(f.fticks[MPIIO_F_WRITE_TIME], t1, t2, f.last_write_end);
}

// MPI_File_set_view: only a view with hints costs metadata time (Darshan's rule).
inline void mpiio_set_view(mpiio_file& f, bool hints, std::uint64_t t1, std::uint64_t t2) {
  f.counters[MPIIO_VIEWS] += 1;
  if (!hints) return;
  f.counters[MPIIO_HINTS] += 1;
  add_time_no_overlap(f.fticks[MPIIO_F_META_TIME], t1, t2, f.last_meta_end);
}

inline void mpiio_close(mpiio_file& f, std::uint64_t t1, std::uint64_t t2) {
  stamp(f.fticks[MPIIO_F_CLOSE_START_TIMESTAMP], f.fticks[MPIIO_F_CLOSE_END_TIMESTAMP], t1, t2);
  add_time_no_overlap(f.fticks[MPIIO_F_META_TIME], t1, t2, f.last_meta_end);
}

}  // namespace perfdm::io
