// POSIX calls Darshan 3.5.0 does not see on Debian 12 (docs/IO.md §3), counted unless
// PERFDM_IO_DARSHAN_ONLY is set. Which counter each feeds is in docs/IO.md §3:
//   stat, lstat, fstat, fstatat, statx (and their 64 names)  POSIX_STATS, META time
//   __open64_2, __openat_2, __openat64_2, mkstemp64           POSIX_OPENS (as open)
//   __read_chk, __pread_chk, __pread64_chk (fortified reads)  POSIX_READS (as read/pread)
//   copy_file_range, sendfile, splice                          a read of the source, a write of
//                                                              the target (bytes, offsets)
//   truncate, ftruncate                                        POSIX_TRUNCATES, META time
//   unlink, unlinkat                                           POSIX_UNLINKS, META time
//   mkdir, mkdirat                                             POSIX_MKDIRS, META time
//   renameat, renameat2                                        as rename
//   mmap of a counted file                                     POSIX_MMAPS
//   close_range                                                as close, for each counted fd
// chdir and fchdir keep the working directory relative names are cleaned with current.
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "iolib/counting.hpp"

using namespace perfdm;
using namespace perfdm::io;
using namespace perfdm::io::lib;

namespace {

constexpr bool extra = false;  // Darshan does not wrap these

// A stat of `path` relative to `dirfd`, or of `dirfd` itself (AT_EMPTY_PATH and an empty path).
template <class Call>
int stat_at(int dirfd, const char* path, int flags, const mode_t* mode, Call&& call) {
  const bool by_fd = (flags & AT_EMPTY_PATH) != 0 && path != nullptr && path[0] == '\0';
  if (by_fd) {
    const std::int32_t record = counted_fd(dirfd, extra);
    if (record == 0) return call();
    const std::uint64_t t1 = read_ticks();
    const int r = call();
    const std::uint64_t t2 = read_ticks();
    if (r == 0 && S_ISREG(*mode)) {
      update_posix(record, [&](posix_file& f) { posix_stat(f, t1, t2); });
    }
    return r;
  }
  if (!counting_names(extra)) return call();
  const std::uint64_t t1 = read_ticks();
  const int r = call();
  const std::uint64_t t2 = read_ticks();
  if (r == 0 && S_ISREG(*mode)) count_stat_path(dirfd, path, t1, t2);
  return r;
}

template <class Call>
int stat_fd(int fd, const mode_t* mode, Call&& call) {
  const std::int32_t record = counted_fd(fd, extra);
  if (record == 0) return call();
  const std::uint64_t t1 = read_ticks();
  const int r = call();
  const std::uint64_t t2 = read_ticks();
  if (r == 0 && S_ISREG(*mode)) update_posix(record, [&](posix_file& f) { posix_stat(f, t1, t2); });
  return r;
}

template <class Call>
int meta_path(int dirfd, const char* path, posix_extra_counter which, Call&& call) {
  if (!counting_names(extra)) return call();
  const std::uint64_t t1 = read_ticks();
  const int r = call();
  const std::uint64_t t2 = read_ticks();
  if (r == 0) count_meta_path(dirfd, path, which, t1, t2);
  return r;
}

template <class Call>
int meta_fd(int fd, posix_extra_counter which, Call&& call) {
  const std::int32_t record = counted_fd(fd, extra);
  if (record == 0) return call();
  const std::uint64_t t1 = read_ticks();
  const int r = call();
  const std::uint64_t t2 = read_ticks();
  if (r == 0) update_posix(record, [&](posix_file& f) { posix_meta_extra(f, which, t1, t2); });
  return r;
}

// A kernel copy between descriptors: a read of `in` and a write of `out` of the bytes moved,
// at the offsets given (their values before the call) or at the records' own offsets.
template <class Call>
ssize_t copy_call(int in, const std::int64_t* in_off, int out, const std::int64_t* out_off,
                  Call&& call) {
  const std::int32_t from = counted_fd(in, extra);
  const std::int32_t to = counted_fd(out, extra);
  if (from == 0 && to == 0) return call();
  const std::int64_t at_in = in_off != nullptr ? *in_off : -1;
  const std::int64_t at_out = out_off != nullptr ? *out_off : -1;
  const std::uint64_t t1 = read_ticks();
  const ssize_t r = call();
  const std::uint64_t t2 = read_ticks();
  if (r < 0) return r;
  if (from != 0) count_access(from, true, at_in, r, true, t1, t2);
  if (to != 0) count_access(to, false, at_out, r, true, t1, t2);
  return r;
}

template <class Call>
int rename_at(int olddirfd, const char* oldpath, int newdirfd, const char* newpath, Call&& call) {
  if (!counting_names(extra)) return call();
  const std::uint64_t t1 = read_ticks();
  const int r = call();
  const std::uint64_t t2 = read_ticks();
  if (r == 0) count_rename(olddirfd, oldpath, newdirfd, newpath, t1, t2);
  return r;
}

template <class Call>
void* map_call(int fd, int flags, off64_t offset, Call&& call) {
  if (fd < 0 || (flags & MAP_ANONYMOUS) != 0 || !ready() || g.darshan_only) return call();
  const std::int32_t record = counted_fd(fd, extra);
  void* p = call();
  if (record != 0 && p != MAP_FAILED) update_posix(record, [](posix_file& f) { posix_mmap(f); });
  note_ring_mapping(fd, offset, p);
  return p;
}

}  // namespace

PERFDM_IO_WRAP(int, __open64_2, (const char* path, int flags)) {
  return open_by_name(AT_FDCWD, path, 0, extra, [&] { return real::__open64_2()(path, flags); });
}

PERFDM_IO_WRAP(int, __openat_2, (int dirfd, const char* path, int flags)) {
  return open_by_name(dirfd, path, 0, extra,
                      [&] { return real::__openat_2()(dirfd, path, flags); });
}

PERFDM_IO_WRAP(int, __openat64_2, (int dirfd, const char* path, int flags)) {
  return open_by_name(dirfd, path, 0, extra,
                      [&] { return real::__openat64_2()(dirfd, path, flags); });
}

PERFDM_IO_WRAP(int, mkstemp64, (char* templ)) {
  return open_by_name(AT_FDCWD, templ, 0, extra, [&] { return real::mkstemp64()(templ); });
}

PERFDM_IO_WRAP(ssize_t, __read_chk, (int fd, void* buf, size_t n, size_t buflen)) {
  return access_call(fd, true, -1, mem_aligned(buf), extra,
                     [&] { return real::__read_chk()(fd, buf, n, buflen); });
}

PERFDM_IO_WRAP(ssize_t, __pread_chk, (int fd, void* buf, size_t n, off_t off, size_t buflen)) {
  return access_call(fd, true, off, mem_aligned(buf), extra,
                     [&] { return real::__pread_chk()(fd, buf, n, off, buflen); });
}

PERFDM_IO_WRAP(ssize_t, __pread64_chk, (int fd, void* buf, size_t n, off64_t off, size_t buflen)) {
  return access_call(fd, true, off, mem_aligned(buf), extra,
                     [&] { return real::__pread64_chk()(fd, buf, n, off, buflen); });
}

PERFDM_IO_WRAP(int, stat, (const char* path, struct stat* buf)) {
  return stat_at(AT_FDCWD, path, 0, &buf->st_mode, [&] { return real::stat()(path, buf); });
}

PERFDM_IO_WRAP(int, stat64, (const char* path, struct stat64* buf)) {
  return stat_at(AT_FDCWD, path, 0, &buf->st_mode, [&] { return real::stat64()(path, buf); });
}

PERFDM_IO_WRAP(int, lstat, (const char* path, struct stat* buf)) {
  return stat_at(AT_FDCWD, path, 0, &buf->st_mode, [&] { return real::lstat()(path, buf); });
}

PERFDM_IO_WRAP(int, lstat64, (const char* path, struct stat64* buf)) {
  return stat_at(AT_FDCWD, path, 0, &buf->st_mode, [&] { return real::lstat64()(path, buf); });
}

PERFDM_IO_WRAP(int, fstat, (int fd, struct stat* buf)) {
  return stat_fd(fd, &buf->st_mode, [&] { return real::fstat()(fd, buf); });
}

PERFDM_IO_WRAP(int, fstat64, (int fd, struct stat64* buf)) {
  return stat_fd(fd, &buf->st_mode, [&] { return real::fstat64()(fd, buf); });
}

PERFDM_IO_WRAP(int, fstatat, (int dirfd, const char* path, struct stat* buf, int flags)) {
  return stat_at(dirfd, path, flags, &buf->st_mode,
                 [&] { return real::fstatat()(dirfd, path, buf, flags); });
}

PERFDM_IO_WRAP(int, fstatat64, (int dirfd, const char* path, struct stat64* buf, int flags)) {
  return stat_at(dirfd, path, flags, &buf->st_mode,
                 [&] { return real::fstatat64()(dirfd, path, buf, flags); });
}

PERFDM_IO_WRAP(int, __fxstatat,
               (int ver, int dirfd, const char* path, struct stat* buf, int flags)) {
  return stat_at(dirfd, path, flags, &buf->st_mode,
                 [&] { return real::__fxstatat()(ver, dirfd, path, buf, flags); });
}

PERFDM_IO_WRAP(int, __fxstatat64,
               (int ver, int dirfd, const char* path, struct stat64* buf, int flags)) {
  return stat_at(dirfd, path, flags, &buf->st_mode,
                 [&] { return real::__fxstatat64()(ver, dirfd, path, buf, flags); });
}

// statx says the file type only when asked for it (STATX_TYPE in the answer's mask).
PERFDM_IO_WRAP(int, statx,
               (int dirfd, const char* path, int flags, unsigned mask, struct statx* buf)) {
  mode_t mode = 0;
  bool typed = false;
  const int r = stat_at(dirfd, path, flags, &mode, [&] {
    const int rc = real::statx()(dirfd, path, flags, mask, buf);
    typed = rc == 0 && (buf->stx_mask & STATX_TYPE) != 0;
    mode = typed ? mode_t(buf->stx_mode) : 0;
    return rc;
  });
  return r;
}

PERFDM_IO_WRAP(void*, mmap, (void* addr, size_t len, int prot, int flags, int fd, off_t off)) {
  return map_call(fd, flags, off, [&] { return real::mmap()(addr, len, prot, flags, fd, off); });
}

PERFDM_IO_WRAP(void*, mmap64, (void* addr, size_t len, int prot, int flags, int fd, off64_t off)) {
  return map_call(fd, flags, off, [&] { return real::mmap64()(addr, len, prot, flags, fd, off); });
}

PERFDM_IO_WRAP(int, close_range, (unsigned first, unsigned last, int flags)) {
  if (!ready() || g.darshan_only || (flags & CLOSE_RANGE_CLOEXEC) != 0) {
    return real::close_range()(first, last, flags);
  }
  const std::uint64_t t1 = read_ticks();
  const int r = real::close_range()(first, last, flags);
  const std::uint64_t t2 = read_ticks();
  if (r == 0) {
    const unsigned top = highest_fd_record();
    for (unsigned fd = first; fd <= last && fd <= top; ++fd) {
      const std::int32_t record = fd_record_at_close(int(fd));
      if (record == 0) continue;
      update_posix(record, [&](posix_file& f) { posix_close(f, t1, t2); });
      set_fd_record(int(fd), 0);
    }
  }
  return r;
}

PERFDM_IO_WRAP(int, renameat,
               (int olddirfd, const char* oldpath, int newdirfd, const char* newpath)) {
  return rename_at(olddirfd, oldpath, newdirfd, newpath,
                   [&] { return real::renameat()(olddirfd, oldpath, newdirfd, newpath); });
}

PERFDM_IO_WRAP(int, renameat2,
               (int olddirfd, const char* oldpath, int newdirfd, const char* newpath,
                unsigned flags)) {
  return rename_at(olddirfd, oldpath, newdirfd, newpath,
                   [&] { return real::renameat2()(olddirfd, oldpath, newdirfd, newpath, flags); });
}

PERFDM_IO_WRAP(int, truncate, (const char* path, off_t len)) {
  return meta_path(AT_FDCWD, path, POSIX_TRUNCATES, [&] { return real::truncate()(path, len); });
}

PERFDM_IO_WRAP(int, truncate64, (const char* path, off64_t len)) {
  return meta_path(AT_FDCWD, path, POSIX_TRUNCATES, [&] { return real::truncate64()(path, len); });
}

PERFDM_IO_WRAP(int, ftruncate, (int fd, off_t len)) {
  return meta_fd(fd, POSIX_TRUNCATES, [&] { return real::ftruncate()(fd, len); });
}

PERFDM_IO_WRAP(int, ftruncate64, (int fd, off64_t len)) {
  return meta_fd(fd, POSIX_TRUNCATES, [&] { return real::ftruncate64()(fd, len); });
}

PERFDM_IO_WRAP(int, unlink, (const char* path)) {
  return meta_path(AT_FDCWD, path, POSIX_UNLINKS, [&] { return real::unlink()(path); });
}

PERFDM_IO_WRAP(int, unlinkat, (int dirfd, const char* path, int flags)) {
  return meta_path(dirfd, path, POSIX_UNLINKS,
                   [&] { return real::unlinkat()(dirfd, path, flags); });
}

PERFDM_IO_WRAP(int, mkdir, (const char* path, mode_t mode)) {
  return meta_path(AT_FDCWD, path, POSIX_MKDIRS, [&] { return real::mkdir()(path, mode); });
}

PERFDM_IO_WRAP(int, mkdirat, (int dirfd, const char* path, mode_t mode)) {
  return meta_path(dirfd, path, POSIX_MKDIRS, [&] { return real::mkdirat()(dirfd, path, mode); });
}

PERFDM_IO_WRAP(int, chdir, (const char* path)) {
  const int r = real::chdir()(path);
  if (r == 0 && ready()) forget_working_directory();
  return r;
}

PERFDM_IO_WRAP(int, fchdir, (int fd)) {
  const int r = real::fchdir()(fd);
  if (r == 0 && ready()) forget_working_directory();
  return r;
}

PERFDM_IO_WRAP(ssize_t, copy_file_range,
               (int in, off64_t* in_off, int out, off64_t* out_off, size_t len, unsigned flags)) {
  return copy_call(in, in_off, out, out_off,
                   [&] { return real::copy_file_range()(in, in_off, out, out_off, len, flags); });
}

PERFDM_IO_WRAP(ssize_t, sendfile, (int out, int in, off_t* off, size_t n)) {
  const std::int64_t at = off != nullptr ? *off : 0;
  return copy_call(in, off != nullptr ? &at : nullptr, out, nullptr,
                   [&] { return real::sendfile()(out, in, off, n); });
}

PERFDM_IO_WRAP(ssize_t, sendfile64, (int out, int in, off64_t* off, size_t n)) {
  return copy_call(in, off, out, nullptr, [&] { return real::sendfile64()(out, in, off, n); });
}

PERFDM_IO_WRAP(ssize_t, splice,
               (int in, off64_t* in_off, int out, off64_t* out_off, size_t len, unsigned flags)) {
  return copy_call(in, in_off, out, out_off,
                   [&] { return real::splice()(in, in_off, out, out_off, len, flags); });
}
