// The C library's own functions behind the wrappers, found with dlsym(RTLD_NEXT) the first
// time each is needed (so a wrapper works when it is called before the library's constructor,
// by another library's constructor or the dynamic loader's calls). One list gives each
// function's name, return type and parameters; `real::name()` returns the function.
#pragma once

#include <aio.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <cstdint>

struct iocb;      // libaio
struct io_event;  // libaio
struct io_uring;  // liburing

namespace perfdm::io::real {

using io_context = unsigned long;  // libaio's io_context_t (a pointer)

#define PERFDM_IO_REAL_CALLS(X)                                                 \
  X(open, int, (const char*, int, ...))                                         \
  X(open64, int, (const char*, int, ...))                                       \
  X(__open_2, int, (const char*, int))                                          \
  X(__open64_2, int, (const char*, int))                                        \
  X(openat, int, (int, const char*, int, ...))                                  \
  X(openat64, int, (int, const char*, int, ...))                                \
  X(__openat_2, int, (int, const char*, int))                                   \
  X(__openat64_2, int, (int, const char*, int))                                 \
  X(creat, int, (const char*, mode_t))                                          \
  X(creat64, int, (const char*, mode_t))                                        \
  X(mkstemp, int, (char*))                                                      \
  X(mkostemp, int, (char*, int))                                                \
  X(mkstemps, int, (char*, int))                                                \
  X(mkostemps, int, (char*, int, int))                                          \
  X(mkstemp64, int, (char*))                                                    \
  X(dup, int, (int))                                                            \
  X(dup2, int, (int, int))                                                      \
  X(dup3, int, (int, int, int))                                                 \
  X(fcntl, int, (int, int, ...))                                                \
  X(fcntl64, int, (int, int, ...))                                              \
  X(fileno, int, (FILE*))                                                       \
  X(read, ssize_t, (int, void*, size_t))                                        \
  X(write, ssize_t, (int, const void*, size_t))                                 \
  X(pread, ssize_t, (int, void*, size_t, off_t))                                \
  X(pwrite, ssize_t, (int, const void*, size_t, off_t))                         \
  X(pread64, ssize_t, (int, void*, size_t, off64_t))                            \
  X(pwrite64, ssize_t, (int, const void*, size_t, off64_t))                     \
  X(__read_chk, ssize_t, (int, void*, size_t, size_t))                          \
  X(__pread_chk, ssize_t, (int, void*, size_t, off_t, size_t))                  \
  X(__pread64_chk, ssize_t, (int, void*, size_t, off64_t, size_t))              \
  X(readv, ssize_t, (int, const struct iovec*, int))                            \
  X(writev, ssize_t, (int, const struct iovec*, int))                           \
  X(preadv, ssize_t, (int, const struct iovec*, int, off_t))                    \
  X(preadv64, ssize_t, (int, const struct iovec*, int, off64_t))                \
  X(preadv2, ssize_t, (int, const struct iovec*, int, off_t, int))              \
  X(preadv64v2, ssize_t, (int, const struct iovec*, int, off64_t, int))         \
  X(pwritev, ssize_t, (int, const struct iovec*, int, off_t))                   \
  X(pwritev64, ssize_t, (int, const struct iovec*, int, off64_t))               \
  X(pwritev2, ssize_t, (int, const struct iovec*, int, off_t, int))             \
  X(pwritev64v2, ssize_t, (int, const struct iovec*, int, off64_t, int))        \
  X(lseek, off_t, (int, off_t, int))                                            \
  X(lseek64, off64_t, (int, off64_t, int))                                      \
  X(__xstat, int, (int, const char*, struct stat*))                             \
  X(__xstat64, int, (int, const char*, struct stat64*))                         \
  X(__lxstat, int, (int, const char*, struct stat*))                            \
  X(__lxstat64, int, (int, const char*, struct stat64*))                        \
  X(__fxstat, int, (int, int, struct stat*))                                    \
  X(__fxstat64, int, (int, int, struct stat64*))                                \
  X(__fxstatat, int, (int, int, const char*, struct stat*, int))                \
  X(__fxstatat64, int, (int, int, const char*, struct stat64*, int))            \
  X(stat, int, (const char*, struct stat*))                                     \
  X(stat64, int, (const char*, struct stat64*))                                 \
  X(lstat, int, (const char*, struct stat*))                                    \
  X(lstat64, int, (const char*, struct stat64*))                                \
  X(fstat, int, (int, struct stat*))                                            \
  X(fstat64, int, (int, struct stat64*))                                        \
  X(fstatat, int, (int, const char*, struct stat*, int))                        \
  X(fstatat64, int, (int, const char*, struct stat64*, int))                    \
  X(statx, int, (int, const char*, int, unsigned, struct statx*))               \
  X(mmap, void*, (void*, size_t, int, int, int, off_t))                         \
  X(mmap64, void*, (void*, size_t, int, int, int, off64_t))                     \
  X(fsync, int, (int))                                                          \
  X(fdatasync, int, (int))                                                      \
  X(close, int, (int))                                                          \
  X(close_range, int, (unsigned, unsigned, int))                                \
  X(rename, int, (const char*, const char*))                                    \
  X(renameat, int, (int, const char*, int, const char*))                        \
  X(renameat2, int, (int, const char*, int, const char*, unsigned))             \
  X(truncate, int, (const char*, off_t))                                        \
  X(truncate64, int, (const char*, off64_t))                                    \
  X(ftruncate, int, (int, off_t))                                               \
  X(ftruncate64, int, (int, off64_t))                                           \
  X(unlink, int, (const char*))                                                 \
  X(unlinkat, int, (int, const char*, int))                                     \
  X(mkdir, int, (const char*, mode_t))                                          \
  X(mkdirat, int, (int, const char*, mode_t))                                   \
  X(chdir, int, (const char*))                                                  \
  X(fchdir, int, (int))                                                         \
  X(copy_file_range, ssize_t, (int, off64_t*, int, off64_t*, size_t, unsigned)) \
  X(sendfile, ssize_t, (int, int, off_t*, size_t))                              \
  X(sendfile64, ssize_t, (int, int, off64_t*, size_t))                          \
  X(splice, ssize_t, (int, off64_t*, int, off64_t*, size_t, unsigned))          \
  X(syscall, long, (long, ...))                                                 \
  X(aio_read, int, (struct aiocb*))                                             \
  X(aio_write, int, (struct aiocb*))                                            \
  X(aio_read64, int, (struct aiocb64*))                                         \
  X(aio_write64, int, (struct aiocb64*))                                        \
  X(aio_return, ssize_t, (struct aiocb*))                                       \
  X(aio_return64, ssize_t, (struct aiocb64*))                                   \
  X(lio_listio, int, (int, struct aiocb* const[], int, struct sigevent*))       \
  X(lio_listio64, int, (int, struct aiocb64* const[], int, struct sigevent*))   \
  X(io_submit, int, (io_context, long, struct iocb**))                          \
  X(io_uring_submit, int, (struct io_uring*))                                   \
  X(io_uring_submit_and_wait, int, (struct io_uring*, unsigned))                \
  X(fopen, FILE*, (const char*, const char*))                                   \
  X(fopen64, FILE*, (const char*, const char*))                                 \
  X(fdopen, FILE*, (int, const char*))                                          \
  X(freopen, FILE*, (const char*, const char*, FILE*))                          \
  X(freopen64, FILE*, (const char*, const char*, FILE*))                        \
  X(fclose, int, (FILE*))                                                       \
  X(fflush, int, (FILE*))                                                       \
  X(fwrite, size_t, (const void*, size_t, size_t, FILE*))                       \
  X(fwrite_unlocked, size_t, (const void*, size_t, size_t, FILE*))              \
  X(fputc, int, (int, FILE*))                                                   \
  X(fputc_unlocked, int, (int, FILE*))                                          \
  X(putc, int, (int, FILE*))                                                    \
  X(putc_unlocked, int, (int, FILE*))                                           \
  X(_IO_putc, int, (int, FILE*))                                                \
  X(putchar, int, (int))                                                        \
  X(putchar_unlocked, int, (int))                                               \
  X(putw, int, (int, FILE*))                                                    \
  X(fputs, int, (const char*, FILE*))                                           \
  X(fputs_unlocked, int, (const char*, FILE*))                                  \
  X(puts, int, (const char*))                                                   \
  X(vfprintf, int, (FILE*, const char*, va_list))                               \
  X(vprintf, int, (const char*, va_list))                                       \
  X(__vfprintf_chk, int, (FILE*, int, const char*, va_list))                    \
  X(__vprintf_chk, int, (int, const char*, va_list))                            \
  X(fread, size_t, (void*, size_t, size_t, FILE*))                              \
  X(fread_unlocked, size_t, (void*, size_t, size_t, FILE*))                     \
  X(__fread_chk, size_t, (void*, size_t, size_t, size_t, FILE*))                \
  X(__fread_unlocked_chk, size_t, (void*, size_t, size_t, size_t, FILE*))       \
  X(fgetc, int, (FILE*))                                                        \
  X(fgetc_unlocked, int, (FILE*))                                               \
  X(getc, int, (FILE*))                                                         \
  X(getc_unlocked, int, (FILE*))                                                \
  X(_IO_getc, int, (FILE*))                                                     \
  X(getchar, int, (void))                                                       \
  X(getchar_unlocked, int, (void))                                              \
  X(getw, int, (FILE*))                                                         \
  X(fgets, char*, (char*, int, FILE*))                                          \
  X(fgets_unlocked, char*, (char*, int, FILE*))                                 \
  X(__fgets_chk, char*, (char*, size_t, int, FILE*))                            \
  X(__fgets_unlocked_chk, char*, (char*, size_t, int, FILE*))                   \
  X(getdelim, ssize_t, (char**, size_t*, int, FILE*))                           \
  X(__getdelim, ssize_t, (char**, size_t*, int, FILE*))                         \
  X(getline, ssize_t, (char**, size_t*, FILE*))                                 \
  X(vfscanf, int, (FILE*, const char*, va_list))                                \
  X(__isoc99_vfscanf, int, (FILE*, const char*, va_list))                       \
  X(fseek, int, (FILE*, long, int))                                             \
  X(fseeko, int, (FILE*, off_t, int))                                           \
  X(fseeko64, int, (FILE*, off64_t, int))                                       \
  X(fsetpos, int, (FILE*, const fpos_t*))                                       \
  X(fsetpos64, int, (FILE*, const fpos64_t*))                                   \
  X(rewind, void, (FILE*))                                                      \
  X(ftell, long, (FILE*))                                                       \
  X(execve, int, (const char*, char* const[], char* const[]))                   \
  X(execv, int, (const char*, char* const[]))                                   \
  X(execvp, int, (const char*, char* const[]))                                  \
  X(execvpe, int, (const char*, char* const[], char* const[]))                  \
  X(fexecve, int, (int, char* const[], char* const[]))                          \
  X(_exit, void, (int))                                                         \
  X(_Exit, void, (int))

// Finds `name` in the libraries after this one (dlsym(RTLD_NEXT)); null when none has it.
void* resolve(const char* name);

#define PERFDM_IO_REAL_SLOT(name, ret, params)                       \
  using name##_type = ret(*) params;                                 \
  extern name##_type name##_slot;                                    \
  inline name##_type name() {                                        \
    name##_type f = __atomic_load_n(&name##_slot, __ATOMIC_RELAXED); \
    if (__builtin_expect(f == nullptr, 0)) {                         \
      f = reinterpret_cast<name##_type>(resolve(#name));             \
      __atomic_store_n(&name##_slot, f, __ATOMIC_RELAXED);           \
    }                                                                \
    return f;                                                        \
  }
PERFDM_IO_REAL_CALLS(PERFDM_IO_REAL_SLOT)
#undef PERFDM_IO_REAL_SLOT

}  // namespace perfdm::io::real
