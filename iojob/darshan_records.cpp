#include "iojob/darshan_records.hpp"

#include <cstring>

#include "darshan/darshan_record_id.hpp"

namespace perfdm::io {

namespace {

bool is_timestamp_posix(int i) {
  return i >= POSIX_F_OPEN_START_TIMESTAMP && i <= POSIX_F_CLOSE_END_TIMESTAMP;
}

bool is_timestamp_stdio(int i) {
  return i >= STDIO_F_OPEN_START_TIMESTAMP && i <= STDIO_F_READ_END_TIMESTAMP;
}

}  // namespace

posix_record to_record(const posix_file& f, std::int64_t rank, const time_base& t) {
  posix_record r{};
  r.id = f.id;
  r.rank = rank;
  std::memcpy(r.counters, f.counters, sizeof r.counters);
  for (int i = 0; i < POSIX_F_NUM_INDICES; ++i) {
    r.fcounters[i] = is_timestamp_posix(i) ? t.timestamp(f.fticks[i]) : t.duration(f.fticks[i]);
  }
  std::memcpy(r.extra, f.extra, sizeof r.extra);
  return r;
}

stdio_record to_record(const stdio_file& f, std::int64_t rank, const time_base& t) {
  stdio_record r{};
  r.id = f.id;
  r.rank = rank;
  std::memcpy(r.counters, f.counters, sizeof r.counters);
  for (int i = 0; i < STDIO_F_NUM_INDICES; ++i) {
    r.fcounters[i] = is_timestamp_stdio(i) ? t.timestamp(f.fticks[i]) : t.duration(f.fticks[i]);
  }
  return r;
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
  static const std::uint64_t ids[] = {darshan::record_id("<STDIN>"),
                                      darshan::record_id("<STDOUT>"),
                                      darshan::record_id("<STDERR>")};
  if (r.id != ids[0] && r.id != ids[1] && r.id != ids[2]) return false;
  return r.counters[STDIO_WRITES] == 0 && r.counters[STDIO_READS] == 0;
}

}  // namespace perfdm::io
