// stdio calls Darshan 3.5.0 does not see (docs/IO.md §3), counted unless
// PERFDM_IO_DARSHAN_ONLY is set, into the same STDIO counters as their wrapped relatives
// (docs/IO.md §3):
//   puts, putchar (+ _unlocked), putc (+ _unlocked), fputc_unlocked, fputs_unlocked,
//   fwrite_unlocked                                           STDIO_WRITES, STDIO_BYTES_WRITTEN
//   getc, getchar (+ _unlocked), fgetc_unlocked, fread_unlocked, fgets_unlocked, getline,
//   getdelim, __getdelim                                      STDIO_READS, STDIO_BYTES_READ
//   the fortified forms programs built with _FORTIFY_SOURCE call: __printf_chk,
//   __fprintf_chk, __vprintf_chk, __vfprintf_chk (writes), __fread_chk,
//   __fread_unlocked_chk, __fgets_chk, __fgets_unlocked_chk (reads); __isoc99_vfscanf
// gcc compiles printf("text\n") into puts("text"), and Debian builds its programs fortified,
// so most of a Debian program's stdio goes through these names.
#include <stdarg.h>
#include <stdio.h>

#include "iolib/counting.hpp"
#include "iolib/stdio_counting.hpp"

using namespace perfdm::io;
using namespace perfdm::io::lib;

namespace {
constexpr bool extra = false;
}

PERFDM_IO_WRAP(int, puts, (const char* s)) {
  return put_string(
      stdout, s, extra, [&] { return real::puts()(s); }, 1);
}

PERFDM_IO_WRAP(int, putchar, (int c)) {
  return put_char(stdout, extra, [&] { return real::putchar()(c); });
}

PERFDM_IO_WRAP(int, putchar_unlocked, (int c)) {
  return put_char(stdout, extra, [&] { return real::putchar_unlocked()(c); });
}

PERFDM_IO_WRAP(int, putc, (int c, FILE* fp)) {
  return put_char(fp, extra, [&] { return real::putc()(c, fp); });
}

PERFDM_IO_WRAP(int, putc_unlocked, (int c, FILE* fp)) {
  return put_char(fp, extra, [&] { return real::putc_unlocked()(c, fp); });
}

PERFDM_IO_WRAP(int, fputc_unlocked, (int c, FILE* fp)) {
  return put_char(fp, extra, [&] { return real::fputc_unlocked()(c, fp); });
}

PERFDM_IO_WRAP(int, fputs_unlocked, (const char* s, FILE* fp)) {
  return put_string(fp, s, extra, [&] { return real::fputs_unlocked()(s, fp); });
}

PERFDM_IO_WRAP(size_t, fwrite_unlocked, (const void* p, size_t size, size_t n, FILE* fp)) {
  return write_items(fp, size, extra, [&] { return real::fwrite_unlocked()(p, size, n, fp); });
}

PERFDM_IO_WRAP(int, __printf_chk, (int flag, const char* format, ...)) {
  va_list ap;
  va_start(ap, format);
  const int r = print_call(stdout, extra, [&] { return real::__vprintf_chk()(flag, format, ap); });
  va_end(ap);
  return r;
}

PERFDM_IO_WRAP(int, __fprintf_chk, (FILE * fp, int flag, const char* format, ...)) {
  va_list ap;
  va_start(ap, format);
  const int r = print_call(fp, extra, [&] { return real::__vfprintf_chk()(fp, flag, format, ap); });
  va_end(ap);
  return r;
}

PERFDM_IO_WRAP(int, __vprintf_chk, (int flag, const char* format, va_list ap)) {
  return print_call(stdout, extra, [&] { return real::__vprintf_chk()(flag, format, ap); });
}

PERFDM_IO_WRAP(int, __vfprintf_chk, (FILE * fp, int flag, const char* format, va_list ap)) {
  return print_call(fp, extra, [&] { return real::__vfprintf_chk()(fp, flag, format, ap); });
}

PERFDM_IO_WRAP(int, getc, (FILE * fp)) {
  return get_char(fp, extra, [&] { return real::getc()(fp); });
}

PERFDM_IO_WRAP(int, getc_unlocked, (FILE * fp)) {
  return get_char(fp, extra, [&] { return real::getc_unlocked()(fp); });
}

PERFDM_IO_WRAP(int, fgetc_unlocked, (FILE * fp)) {
  return get_char(fp, extra, [&] { return real::fgetc_unlocked()(fp); });
}

PERFDM_IO_WRAP(int, getchar, (void)) {
  return get_char(stdin, extra, [&] { return real::getchar()(); });
}

PERFDM_IO_WRAP(int, getchar_unlocked, (void)) {
  return get_char(stdin, extra, [&] { return real::getchar_unlocked()(); });
}

PERFDM_IO_WRAP(size_t, fread_unlocked, (void* p, size_t size, size_t n, FILE* fp)) {
  return read_items(fp, size, extra, [&] { return real::fread_unlocked()(p, size, n, fp); });
}

PERFDM_IO_WRAP(size_t, __fread_chk, (void* p, size_t plen, size_t size, size_t n, FILE* fp)) {
  return read_items(fp, size, extra, [&] { return real::__fread_chk()(p, plen, size, n, fp); });
}

PERFDM_IO_WRAP(size_t, __fread_unlocked_chk,
               (void* p, size_t plen, size_t size, size_t n, FILE* fp)) {
  return read_items(fp, size, extra,
                    [&] { return real::__fread_unlocked_chk()(p, plen, size, n, fp); });
}

PERFDM_IO_WRAP(char*, fgets_unlocked, (char* s, int size, FILE* fp)) {
  return get_string(fp, extra, [&] { return real::fgets_unlocked()(s, size, fp); });
}

PERFDM_IO_WRAP(char*, __fgets_chk, (char* s, size_t slen, int size, FILE* fp)) {
  return get_string(fp, extra, [&] { return real::__fgets_chk()(s, slen, size, fp); });
}

PERFDM_IO_WRAP(char*, __fgets_unlocked_chk, (char* s, size_t slen, int size, FILE* fp)) {
  return get_string(fp, extra, [&] { return real::__fgets_unlocked_chk()(s, slen, size, fp); });
}

PERFDM_IO_WRAP(ssize_t, getline, (char** line, size_t* n, FILE* fp)) {
  return get_line(fp, extra, [&] { return real::getline()(line, n, fp); });
}

PERFDM_IO_WRAP(ssize_t, getdelim, (char** line, size_t* n, int delim, FILE* fp)) {
  return get_line(fp, extra, [&] { return real::getdelim()(line, n, delim, fp); });
}

PERFDM_IO_WRAP(ssize_t, __getdelim, (char** line, size_t* n, int delim, FILE* fp)) {
  return get_line(fp, extra, [&] { return real::__getdelim()(line, n, delim, fp); });
}

PERFDM_IO_WRAP(int, __isoc99_vfscanf, (FILE * fp, const char* format, va_list ap)) {
  return scan_call(fp, extra, [&] { return real::__isoc99_vfscanf()(fp, format, ap); });
}
