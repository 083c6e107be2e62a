#include "iojob/darshan_records.hpp"

#include <cstring>

#include "darshan/darshan_record_id.hpp"

namespace perfdm::io {

namespace {

// Counters copied; real counters from ticks: timestamps (those from `first_stamp` to
// `last_stamp`) to seconds since the process's time 0, the others (times) to seconds.
template <class Record, class File>
Record convert(const File& f, std::int64_t rank, const time_base& t, int first_stamp,
               int last_stamp) {
  Record r{};
  r.id = f.id;
  r.rank = rank;
  std::memcpy(r.counters, f.counters, sizeof r.counters);
  constexpr int n = sizeof r.fcounters / sizeof r.fcounters[0];
  for (int i = 0; i < n; ++i) {
    const bool stamp = i >= first_stamp && i <= last_stamp;
    r.fcounters[i] = stamp ? t.timestamp(f.fticks[i]) : t.duration(f.fticks[i]);
  }
  return r;
}

}  // namespace

posix_record to_record(const posix_file& f, std::int64_t rank, const time_base& t) {
  posix_record r =
      convert<posix_record>(f, rank, t, POSIX_F_OPEN_START_TIMESTAMP, POSIX_F_CLOSE_END_TIMESTAMP);
  std::memcpy(r.extra, f.extra, sizeof r.extra);
  return r;
}

stdio_record to_record(const stdio_file& f, std::int64_t rank, const time_base& t) {
  return convert<stdio_record>(f, rank, t, STDIO_F_OPEN_START_TIMESTAMP,
                               STDIO_F_READ_END_TIMESTAMP);
}

mpiio_record to_record(const mpiio_file& f, std::int64_t rank, const time_base& t) {
  return convert<mpiio_record>(f, rank, t, MPIIO_F_OPEN_START_TIMESTAMP,
                               MPIIO_F_CLOSE_END_TIMESTAMP);
}

bool used_in_child(const posix_file& f) {
  if ((f.flags & record_inherited) == 0) return true;
  for (int i = POSIX_OPENS; i <= POSIX_RENAME_TARGETS; ++i) {
    if (i != POSIX_MMAPS && f.counters[i] != 0) return true;
  }
  if (f.counters[POSIX_MMAPS] > 0) return true;
  for (const auto e : f.extra)
    if (e != 0) return true;
  for (const auto t : f.fticks)
    if (t != 0) return true;
  return false;
}

bool used_in_child(const stdio_file& f) {
  if ((f.flags & record_inherited) == 0) return true;
  for (int i = STDIO_FDOPENS; i <= STDIO_BYTES_READ; ++i)
    if (f.counters[i] != 0) return true;
  for (const auto t : f.fticks)
    if (t != 0) return true;
  return false;
}

bool unused_standard_stream(const stdio_record& r) {
  static const std::uint64_t ids[] = {darshan::record_id("<STDIN>"), darshan::record_id("<STDOUT>"),
                                      darshan::record_id("<STDERR>")};
  if (r.id != ids[0] && r.id != ids[1] && r.id != ids[2]) return false;
  return r.counters[STDIO_WRITES] == 0 && r.counters[STDIO_READS] == 0;
}

}  // namespace perfdm::io
