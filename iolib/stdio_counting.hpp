// The shapes of the stdio wrappers (Darshan's STDIO_RECORD_* rules): each takes the stream,
// whether Darshan wraps the call (PERFDM_IO_DARSHAN_ONLY counts only those), and the real call.
#pragma once

#include <string.h>

#include "iolib/counting.hpp"

namespace perfdm::io::lib {

// After fopen/freopen of `path` returned `fp` (a freopen'ed `old` stream is forgotten first).
void count_fopen(FILE* fp, const char* path, std::uint64_t t1, std::uint64_t t2);
// After fdopen of `fd` returned `fp`: the STDIO record of the descriptor's POSIX record's name.
void count_fdopen(FILE* fp, int fd, std::uint64_t t1, std::uint64_t t2);

template <class Call>
FILE* open_stream(const char* path, FILE* old, bool darshan_sees, Call&& call) {
  if (!counting_names(darshan_sees)) return call();
  if (old != nullptr) forget_stream(old);
  const std::uint64_t t1 = read_ticks();
  FILE* fp = call();
  const std::uint64_t t2 = read_ticks();
  if (fp != nullptr && path != nullptr) count_fopen(fp, path, t1, t2);
  return fp;
}

// fwrite-like: size x items written.
template <class Call>
size_t write_items(FILE* fp, size_t size, bool darshan_sees, Call&& call) {
  const std::int32_t record = counted_stream(fp, darshan_sees);
  if (record == 0) return call();
  const std::uint64_t t1 = read_ticks();
  const size_t r = call();
  const std::uint64_t t2 = read_ticks();
  if (r > 0) count_stdio_write(record, std::int64_t(size * r), false, t1, t2);
  return r;
}

template <class Call>
size_t read_items(FILE* fp, size_t size, bool darshan_sees, Call&& call) {
  const std::int32_t record = counted_stream(fp, darshan_sees);
  if (record == 0) return call();
  const std::uint64_t t1 = read_ticks();
  const size_t r = call();
  const std::uint64_t t2 = read_ticks();
  if (r > 0) count_stdio_read(record, std::int64_t(size * r), t1, t2);
  return r;
}

// fputc-like: one byte unless EOF.
template <class Call>
int put_char(FILE* fp, bool darshan_sees, Call&& call) {
  const std::int32_t record = counted_stream(fp, darshan_sees);
  if (record == 0) return call();
  const std::uint64_t t1 = read_ticks();
  const int r = call();
  const std::uint64_t t2 = read_ticks();
  if (r != EOF) count_stdio_write(record, 1, false, t1, t2);
  return r;
}

template <class Call>
int get_char(FILE* fp, bool darshan_sees, Call&& call) {
  const std::int32_t record = counted_stream(fp, darshan_sees);
  if (record == 0) return call();
  const std::uint64_t t1 = read_ticks();
  const int r = call();
  const std::uint64_t t2 = read_ticks();
  if (r != EOF) count_stdio_read(record, 1, t1, t2);
  return r;
}

// fputs-like: strlen(s) (plus `extra`: puts adds the newline) when it succeeded.
template <class Call>
int put_string(FILE* fp, const char* s, bool darshan_sees, Call&& call, std::int64_t extra = 0) {
  const std::int32_t record = counted_stream(fp, darshan_sees);
  if (record == 0) return call();
  const std::uint64_t t1 = read_ticks();
  const int r = call();
  const std::uint64_t t2 = read_ticks();
  if (r != EOF && r > 0) count_stdio_write(record, std::int64_t(strlen(s)) + extra, false, t1, t2);
  return r;
}

// printf-like: the bytes printf returns.
template <class Call>
int print_call(FILE* fp, bool darshan_sees, Call&& call) {
  const std::int32_t record = counted_stream(fp, darshan_sees);
  if (record == 0) return call();
  const std::uint64_t t1 = read_ticks();
  const int r = call();
  const std::uint64_t t2 = read_ticks();
  if (r > 0) count_stdio_write(record, r, false, t1, t2);
  return r;
}

// fgets-like: strlen of the result.
template <class Call>
char* get_string(FILE* fp, bool darshan_sees, Call&& call) {
  const std::int32_t record = counted_stream(fp, darshan_sees);
  if (record == 0) return call();
  const std::uint64_t t1 = read_ticks();
  char* r = call();
  const std::uint64_t t2 = read_ticks();
  if (r != nullptr) count_stdio_read(record, std::int64_t(strlen(r)), t1, t2);
  return r;
}

// getline-like: the bytes read, when any.
template <class Call>
ssize_t get_line(FILE* fp, bool darshan_sees, Call&& call) {
  const std::int32_t record = counted_stream(fp, darshan_sees);
  if (record == 0) return call();
  const std::uint64_t t1 = read_ticks();
  const ssize_t r = call();
  const std::uint64_t t2 = read_ticks();
  if (r > 0) count_stdio_read(record, r, t1, t2);
  return r;
}

// scanf-like: the ftell difference, when anything was converted.
template <class Call>
int scan_call(FILE* fp, bool darshan_sees, Call&& call) {
  const std::int32_t record = counted_stream(fp, darshan_sees);
  if (record == 0) return call();
  const std::uint64_t t1 = read_ticks();
  const long before = real::ftell()(fp);
  const int r = call();
  const long after = real::ftell()(fp);
  const std::uint64_t t2 = read_ticks();
  if (r != 0) count_stdio_read(record, after - before, t1, t2);
  return r;
}

// fseek-like: the offset ftell gives after a successful seek.
template <class Call>
int seek_stream(FILE* fp, Call&& call) {
  const std::int32_t record = counted_stream(fp, true);
  if (record == 0) return call();
  const std::uint64_t t1 = read_ticks();
  const int r = call();
  const std::uint64_t t2 = read_ticks();
  if (r >= 0) {
    const long at = real::ftell()(fp);
    update_stdio(record, [&](stdio_file& f) { stdio_seek(f, at, t1, t2); });
  }
  return r;
}

}  // namespace perfdm::io::lib
