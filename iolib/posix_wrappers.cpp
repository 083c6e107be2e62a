// The POSIX calls Darshan 3.5.0's POSIX module wraps (darshan-runtime/lib/darshan-posix.c),
// counted by its rules (iocounters/posix_file.hpp). Failed calls are not counted, nor calls on
// descriptors the library did not see opened.
#include <fcntl.h>
#include <stdarg.h>
#include <unistd.h>

#include "iolib/counting.hpp"

using namespace perfdm::io;
using namespace perfdm::io::lib;

namespace {

// The mode argument of an open-type call: present with O_CREAT or O_TMPFILE. Darshan records
// it as POSIX_MODE only with O_CREAT.
inline bool has_mode(int flags) {
  return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
}

template <class Call>
int dup_call(int oldfd, Call&& call) {
  if (!ready()) return call();
  const std::uint64_t t1 = read_ticks();
  const int fd = call();
  const std::uint64_t t2 = read_ticks();
  if (fd >= 0 && in_library == 0) count_dup(fd, oldfd, t1, t2);
  return fd;
}

template <class Call>
int stat_fd_call(int fd, const struct stat* buf, Call&& call, bool darshan_sees = true) {
  const std::int32_t record = counted_fd(fd, darshan_sees);
  if (record == 0) return call();
  const std::uint64_t t1 = read_ticks();
  const int r = call();
  const std::uint64_t t2 = read_ticks();
  if (r == 0 && S_ISREG(buf->st_mode)) {
    update_posix(record, [&](posix_file& f) { posix_stat(f, t1, t2); });
  }
  return r;
}

template <class Call>
int stat_path_call(int dirfd, const char* path, const mode_t* mode, Call&& call,
                   bool darshan_sees = true) {
  if (!counting_names(darshan_sees)) return call();
  const std::uint64_t t1 = read_ticks();
  const int r = call();
  const std::uint64_t t2 = read_ticks();
  if (r == 0 && S_ISREG(*mode)) count_stat_path(dirfd, path, t1, t2);
  return r;
}

template <class Call>
off64_t seek_call(int fd, Call&& call) {
  const std::int32_t record = counted_fd(fd, true);
  if (record == 0) return call();
  const std::uint64_t t1 = read_ticks();
  const off64_t r = call();
  const std::uint64_t t2 = read_ticks();
  if (r >= 0) update_posix(record, [&](posix_file& f) { posix_seek(f, r, t1, t2); });
  return r;
}

template <class Call>
int sync_call(int fd, bool data_only, Call&& call) {
  const std::int32_t record = counted_fd(fd, true);
  if (record == 0) return call();
  const std::uint64_t t1 = read_ticks();
  const int r = call();
  const std::uint64_t t2 = read_ticks();
  if (r >= 0) update_posix(record, [&](posix_file& f) { posix_sync(f, data_only, t1, t2); });
  return r;
}

template <class Call>
int mkstemp_call(char* templ, Call&& call) {
  return open_by_name(AT_FDCWD, templ, 0, true, call);
}

}  // namespace

PERFDM_IO_WRAP(int, open, (const char* path, int flags, ...)) {
  mode_t mode = 0;
  if (has_mode(flags)) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, mode_t);
    va_end(ap);
  }
  return open_by_name(AT_FDCWD, path, (flags & O_CREAT) ? mode : 0, true,
                      [&] { return real::open()(path, flags, mode); });
}

PERFDM_IO_WRAP(int, open64, (const char* path, int flags, ...)) {
  mode_t mode = 0;
  if (has_mode(flags)) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, mode_t);
    va_end(ap);
  }
  return open_by_name(AT_FDCWD, path, (flags & O_CREAT) ? mode : 0, true,
                      [&] { return real::open64()(path, flags, mode); });
}

PERFDM_IO_WRAP(int, __open_2, (const char* path, int flags)) {
  return open_by_name(AT_FDCWD, path, 0, true, [&] { return real::__open_2()(path, flags); });
}

PERFDM_IO_WRAP(int, openat, (int dirfd, const char* path, int flags, ...)) {
  mode_t mode = 0;
  if (has_mode(flags)) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, mode_t);
    va_end(ap);
  }
  return open_by_name(dirfd, path, (flags & O_CREAT) ? mode : 0, true,
                      [&] { return real::openat()(dirfd, path, flags, mode); });
}

PERFDM_IO_WRAP(int, openat64, (int dirfd, const char* path, int flags, ...)) {
  mode_t mode = 0;
  if (has_mode(flags)) {
    va_list ap;
    va_start(ap, flags);
    mode = va_arg(ap, mode_t);
    va_end(ap);
  }
  return open_by_name(dirfd, path, (flags & O_CREAT) ? mode : 0, true,
                      [&] { return real::openat64()(dirfd, path, flags, mode); });
}

PERFDM_IO_WRAP(int, creat, (const char* path, mode_t mode)) {
  return open_by_name(AT_FDCWD, path, mode, true, [&] { return real::creat()(path, mode); });
}

PERFDM_IO_WRAP(int, creat64, (const char* path, mode_t mode)) {
  return open_by_name(AT_FDCWD, path, mode, true, [&] { return real::creat64()(path, mode); });
}

PERFDM_IO_WRAP(int, mkstemp, (char* templ)) {
  return mkstemp_call(templ, [&] { return real::mkstemp()(templ); });
}

PERFDM_IO_WRAP(int, mkostemp, (char* templ, int flags)) {
  return mkstemp_call(templ, [&] { return real::mkostemp()(templ, flags); });
}

PERFDM_IO_WRAP(int, mkstemps, (char* templ, int suffix)) {
  return mkstemp_call(templ, [&] { return real::mkstemps()(templ, suffix); });
}

PERFDM_IO_WRAP(int, mkostemps, (char* templ, int suffix, int flags)) {
  return mkstemp_call(templ, [&] { return real::mkostemps()(templ, suffix, flags); });
}

PERFDM_IO_WRAP(int, dup, (int oldfd)) {
  return dup_call(oldfd, [&] { return real::dup()(oldfd); });
}

PERFDM_IO_WRAP(int, dup2, (int oldfd, int newfd)) {
  return dup_call(oldfd, [&] { return real::dup2()(oldfd, newfd); });
}

PERFDM_IO_WRAP(int, dup3, (int oldfd, int newfd, int flags)) {
  return dup_call(oldfd, [&] { return real::dup3()(oldfd, newfd, flags); });
}

// fcntl's third argument may be absent; like Darshan (and glibc), it is always passed on.
// F_DUPFD and F_DUPFD_CLOEXEC are dups.
template <class Fcntl>
int fcntl_call(Fcntl* fcntl, int fd, int cmd, void* arg) {
  if (cmd != F_DUPFD && cmd != F_DUPFD_CLOEXEC) return fcntl(fd, cmd, arg);
  return dup_call(fd, [&] { return fcntl(fd, cmd, arg); });
}

PERFDM_IO_WRAP(int, fcntl, (int fd, int cmd, ...)) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  return fcntl_call(real::fcntl(), fd, cmd, arg);
}

PERFDM_IO_WRAP(int, fcntl64, (int fd, int cmd, ...)) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  return fcntl_call(real::fcntl64(), fd, cmd, arg);
}

// fileno of a stream the STDIO module counts: the POSIX record of the stream's name
// (POSIX_FILENOS).
PERFDM_IO_WRAP(int, fileno, (FILE * fp)) {
  const std::int32_t stream = counted_stream(fp, true);
  if (stream == 0) return real::fileno()(fp);
  const std::uint64_t t1 = read_ticks();
  const int fd = real::fileno()(fp);
  const std::uint64_t t2 = read_ticks();
  if (fd >= 0) {
    library_guard guard;
    const std::int32_t record = posix_record(stdio_name(stream - 1));
    set_fd_record(fd, record);
    if (record != 0) {
      update_posix(record, [&](posix_file& f) { posix_open(f, 0, false, POSIX_FILENOS, t1, t2); });
    }
  }
  return fd;
}

PERFDM_IO_WRAP(ssize_t, read, (int fd, void* buf, size_t n)) {
  return access_call(fd, true, -1, mem_aligned(buf), true,
                     [&] { return real::read()(fd, buf, n); });
}

PERFDM_IO_WRAP(ssize_t, write, (int fd, const void* buf, size_t n)) {
  return access_call(fd, false, -1, mem_aligned(buf), true,
                     [&] { return real::write()(fd, buf, n); });
}

// pread, pwrite and their 64-bit names: an explicit offset.
#define PERFDM_IO_POSITIONED_CALLS(X)  \
  X(pread, true, void*, off_t)         \
  X(pwrite, false, const void*, off_t) \
  X(pread64, true, void*, off64_t)     \
  X(pwrite64, false, const void*, off64_t)
#define PERFDM_IO_POSITIONED_WRAP(name, is_read, buffer, offset)              \
  PERFDM_IO_WRAP(ssize_t, name, (int fd, buffer buf, size_t n, offset off)) { \
    return access_call(fd, is_read, off, mem_aligned(buf), true,              \
                       [&] { return real::name()(fd, buf, n, off); });        \
  }
PERFDM_IO_POSITIONED_CALLS(PERFDM_IO_POSITIONED_WRAP)

PERFDM_IO_WRAP(ssize_t, readv, (int fd, const struct iovec* iov, int count)) {
  return access_call(fd, true, -1, iov_aligned(iov, count), true,
                     [&] { return real::readv()(fd, iov, count); });
}

PERFDM_IO_WRAP(ssize_t, writev, (int fd, const struct iovec* iov, int count)) {
  return access_call(fd, false, -1, iov_aligned(iov, count), true,
                     [&] { return real::writev()(fd, iov, count); });
}

// preadv, pwritev (and 64), then their v2 forms with flags: an explicit offset; a buffer
// misaligned in any element makes the call misaligned.
#define PERFDM_IO_VECTOR_CALLS(X) \
  X(preadv, true, off_t)          \
  X(preadv64, true, off64_t)      \
  X(pwritev, false, off_t)        \
  X(pwritev64, false, off64_t)
#define PERFDM_IO_VECTOR_WRAP(name, is_read, offset)                                        \
  PERFDM_IO_WRAP(ssize_t, name, (int fd, const struct iovec* iov, int count, offset off)) { \
    return access_call(fd, is_read, off, iov_aligned(iov, count), true,                     \
                       [&] { return real::name()(fd, iov, count, off); });                  \
  }
PERFDM_IO_VECTOR_CALLS(PERFDM_IO_VECTOR_WRAP)

#define PERFDM_IO_VECTOR2_CALLS(X) \
  X(preadv2, true, off_t)          \
  X(preadv64v2, true, off64_t)     \
  X(pwritev2, false, off_t)        \
  X(pwritev64v2, false, off64_t)
#define PERFDM_IO_VECTOR2_WRAP(name, is_read, offset)                                   \
  PERFDM_IO_WRAP(ssize_t, name,                                                         \
                 (int fd, const struct iovec* iov, int count, offset off, int flags)) { \
    return access_call(fd, is_read, off, iov_aligned(iov, count), true,                 \
                       [&] { return real::name()(fd, iov, count, off, flags); });       \
  }
PERFDM_IO_VECTOR2_CALLS(PERFDM_IO_VECTOR2_WRAP)

PERFDM_IO_WRAP(off_t, lseek, (int fd, off_t off, int whence)) {
  return off_t(seek_call(fd, [&] { return off64_t(real::lseek()(fd, off, whence)); }));
}

PERFDM_IO_WRAP(off64_t, lseek64, (int fd, off64_t off, int whence)) {
  return seek_call(fd, [&] { return real::lseek64()(fd, off, whence); });
}

// The stat calls programs built before glibc 2.33 make (Darshan's only stat wrappers).
PERFDM_IO_WRAP(int, __xstat, (int ver, const char* path, struct stat* buf)) {
  return stat_path_call(AT_FDCWD, path, &buf->st_mode,
                        [&] { return real::__xstat()(ver, path, buf); });
}

PERFDM_IO_WRAP(int, __xstat64, (int ver, const char* path, struct stat64* buf)) {
  return stat_path_call(AT_FDCWD, path, &buf->st_mode,
                        [&] { return real::__xstat64()(ver, path, buf); });
}

PERFDM_IO_WRAP(int, __lxstat, (int ver, const char* path, struct stat* buf)) {
  return stat_path_call(AT_FDCWD, path, &buf->st_mode,
                        [&] { return real::__lxstat()(ver, path, buf); });
}

PERFDM_IO_WRAP(int, __lxstat64, (int ver, const char* path, struct stat64* buf)) {
  return stat_path_call(AT_FDCWD, path, &buf->st_mode,
                        [&] { return real::__lxstat64()(ver, path, buf); });
}

PERFDM_IO_WRAP(int, __fxstat, (int ver, int fd, struct stat* buf)) {
  return stat_fd_call(fd, buf, [&] { return real::__fxstat()(ver, fd, buf); });
}

PERFDM_IO_WRAP(int, __fxstat64, (int ver, int fd, struct stat64* buf)) {
  return stat_fd_call(fd, reinterpret_cast<struct stat*>(buf),
                      [&] { return real::__fxstat64()(ver, fd, buf); });
}

PERFDM_IO_WRAP(int, fsync, (int fd)) {
  return sync_call(fd, false, [&] { return real::fsync()(fd); });
}

PERFDM_IO_WRAP(int, fdatasync, (int fd)) {
  return sync_call(fd, true, [&] { return real::fdatasync()(fd); });
}

// Counted whatever close returns, as Darshan does.
PERFDM_IO_WRAP(int, close, (int fd)) {
  const std::int32_t record = fd_record_at_close(fd);
  if (record == 0) return real::close()(fd);
  const std::uint64_t t1 = read_ticks();
  const int r = real::close()(fd);
  const std::uint64_t t2 = read_ticks();
  update_posix(record, [&](posix_file& f) { posix_close(f, t1, t2); });
  set_fd_record(fd, 0);
  return r;
}

PERFDM_IO_WRAP(int, rename, (const char* oldpath, const char* newpath)) {
  if (!counting_names(true)) return real::rename()(oldpath, newpath);
  const std::uint64_t t1 = read_ticks();
  const int r = real::rename()(oldpath, newpath);
  const std::uint64_t t2 = read_ticks();
  if (r == 0) count_rename(AT_FDCWD, oldpath, AT_FDCWD, newpath, t1, t2);
  return r;
}
