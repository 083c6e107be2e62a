// The stdio calls Darshan 3.5.0's STDIO module wraps (darshan-runtime/lib/darshan-stdio.c),
// counted by its rules (iocounters/stdio_file.hpp): bytes per call as Darshan takes them
// (size x items, 1 byte, strlen, printf's result, the ftell difference of a scanf).
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>

#include "iolib/counting.hpp"
#include "iolib/stdio_counting.hpp"

using namespace perfdm::io;
using namespace perfdm::io::lib;

PERFDM_IO_WRAP(FILE*, fopen, (const char* path, const char* mode)) {
  return open_stream(path, nullptr, true, [&] { return real::fopen()(path, mode); });
}

PERFDM_IO_WRAP(FILE*, fopen64, (const char* path, const char* mode)) {
  return open_stream(path, nullptr, true, [&] { return real::fopen64()(path, mode); });
}

PERFDM_IO_WRAP(FILE*, freopen, (const char* path, const char* mode, FILE* fp)) {
  return open_stream(path, fp, true, [&] { return real::freopen()(path, mode, fp); });
}

PERFDM_IO_WRAP(FILE*, freopen64, (const char* path, const char* mode, FILE* fp)) {
  return open_stream(path, fp, true, [&] { return real::freopen64()(path, mode, fp); });
}

// fdopen of a descriptor the POSIX module counts: the STDIO record of its name.
PERFDM_IO_WRAP(FILE*, fdopen, (int fd, const char* mode)) {
  if (!counting_names(true)) return real::fdopen()(fd, mode);
  const std::uint64_t t1 = read_ticks();
  FILE* fp = real::fdopen()(fd, mode);
  const std::uint64_t t2 = read_ticks();
  if (fp != nullptr) count_fdopen(fp, fd, t1, t2);
  return fp;
}

PERFDM_IO_WRAP(int, fflush, (FILE * fp)) {
  const std::int32_t record = counted_stream(fp, true);
  if (record == 0) return real::fflush()(fp);
  const std::uint64_t t1 = read_ticks();
  const int r = real::fflush()(fp);
  const std::uint64_t t2 = read_ticks();
  if (r >= 0) count_stdio_write(record, 0, true, t1, t2);
  return r;
}

PERFDM_IO_WRAP(int, fclose, (FILE * fp)) {
  const std::int32_t record = counted_stream(fp, true);
  if (record == 0) return real::fclose()(fp);
  forget_stream(fp);
  const std::uint64_t t1 = read_ticks();
  const int r = real::fclose()(fp);
  const std::uint64_t t2 = read_ticks();
  update_stdio(record, [&](stdio_file& f) { stdio_close(f, t1, t2); });
  return r;
}

PERFDM_IO_WRAP(size_t, fwrite, (const void* p, size_t size, size_t n, FILE* fp)) {
  return write_items(fp, size, true, [&] { return real::fwrite()(p, size, n, fp); });
}

PERFDM_IO_WRAP(int, fputc, (int c, FILE* fp)) {
  return put_char(fp, true, [&] { return real::fputc()(c, fp); });
}

PERFDM_IO_WRAP(int, _IO_putc, (int c, FILE* fp)) {
  return put_char(fp, true, [&] { return real::_IO_putc()(c, fp); });
}

PERFDM_IO_WRAP(int, putw, (int w, FILE* fp)) {
  const std::int32_t record = counted_stream(fp, true);
  if (record == 0) return real::putw()(w, fp);
  const std::uint64_t t1 = read_ticks();
  const int r = real::putw()(w, fp);
  const std::uint64_t t2 = read_ticks();
  if (r != EOF) count_stdio_write(record, sizeof(int), false, t1, t2);
  return r;
}

PERFDM_IO_WRAP(int, fputs, (const char* s, FILE* fp)) {
  return put_string(fp, s, true, [&] { return real::fputs()(s, fp); });
}

PERFDM_IO_WRAP(int, vfprintf, (FILE * fp, const char* format, va_list ap)) {
  return print_call(fp, true, [&] { return real::vfprintf()(fp, format, ap); });
}

PERFDM_IO_WRAP(int, vprintf, (const char* format, va_list ap)) {
  return print_call(stdout, true, [&] { return real::vprintf()(format, ap); });
}

PERFDM_IO_WRAP(int, fprintf, (FILE * fp, const char* format, ...)) {
  va_list ap;
  va_start(ap, format);
  const int r = print_call(fp, true, [&] { return real::vfprintf()(fp, format, ap); });
  va_end(ap);
  return r;
}

PERFDM_IO_WRAP(int, printf, (const char* format, ...)) {
  va_list ap;
  va_start(ap, format);
  const int r = print_call(stdout, true, [&] { return real::vprintf()(format, ap); });
  va_end(ap);
  return r;
}

PERFDM_IO_WRAP(size_t, fread, (void* p, size_t size, size_t n, FILE* fp)) {
  return read_items(fp, size, true, [&] { return real::fread()(p, size, n, fp); });
}

PERFDM_IO_WRAP(int, fgetc, (FILE * fp)) {
  return get_char(fp, true, [&] { return real::fgetc()(fp); });
}

PERFDM_IO_WRAP(int, _IO_getc, (FILE * fp)) {
  return get_char(fp, true, [&] { return real::_IO_getc()(fp); });
}

PERFDM_IO_WRAP(int, getw, (FILE * fp)) {
  const std::int32_t record = counted_stream(fp, true);
  if (record == 0) return real::getw()(fp);
  const std::uint64_t t1 = read_ticks();
  const int r = real::getw()(fp);
  const std::uint64_t t2 = read_ticks();
  if (r != EOF || ferror(fp) == 0) count_stdio_read(record, sizeof(int), t1, t2);
  return r;
}

// fscanf is __isoc99_fscanf in C99 programs (the one Darshan wraps); each keeps its own
// conversion rules.
PERFDM_IO_WRAP(int, __isoc99_fscanf, (FILE * fp, const char* format, ...)) {
  va_list ap;
  va_start(ap, format);
  const int r = scan_call(fp, true, [&] { return real::__isoc99_vfscanf()(fp, format, ap); });
  va_end(ap);
  return r;
}

PERFDM_IO_WRAP(int, fscanf, (FILE * fp, const char* format, ...)) {
  va_list ap;
  va_start(ap, format);
  const int r = scan_call(fp, false, [&] { return real::vfscanf()(fp, format, ap); });
  va_end(ap);
  return r;
}

PERFDM_IO_WRAP(int, vfscanf, (FILE * fp, const char* format, va_list ap)) {
  return scan_call(fp, true, [&] { return real::vfscanf()(fp, format, ap); });
}

PERFDM_IO_WRAP(char*, fgets, (char* s, int size, FILE* fp)) {
  return get_string(fp, true, [&] { return real::fgets()(s, size, fp); });
}

PERFDM_IO_WRAP(int, fseek, (FILE * fp, long off, int whence)) {
  return seek_stream(fp, [&] { return real::fseek()(fp, off, whence); });
}

PERFDM_IO_WRAP(int, fseeko, (FILE * fp, off_t off, int whence)) {
  return seek_stream(fp, [&] { return real::fseeko()(fp, off, whence); });
}

PERFDM_IO_WRAP(int, fseeko64, (FILE * fp, off64_t off, int whence)) {
  return seek_stream(fp, [&] { return real::fseeko64()(fp, off, whence); });
}

PERFDM_IO_WRAP(int, fsetpos, (FILE * fp, const fpos_t* pos)) {
  return seek_stream(fp, [&] { return real::fsetpos()(fp, pos); });
}

PERFDM_IO_WRAP(int, fsetpos64, (FILE * fp, const fpos64_t* pos)) {
  return seek_stream(fp, [&] { return real::fsetpos64()(fp, pos); });
}

PERFDM_IO_WRAP(void, rewind, (FILE * fp)) {
  const std::int32_t record = counted_stream(fp, true);
  if (record == 0) return real::rewind()(fp);
  const std::uint64_t t1 = read_ticks();
  real::rewind()(fp);
  const std::uint64_t t2 = read_ticks();
  update_stdio(record, [&](stdio_file& f) { stdio_seek(f, 0, t1, t2); });
}
