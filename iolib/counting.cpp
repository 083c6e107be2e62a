#include "iolib/counting.hpp"

#include <fcntl.h>
#include <limits.h>

#include "darshan/darshan_record_id.hpp"

namespace perfdm::io::lib {

namespace {

// A cleaned name fits here or is not counted (Darshan's own limit is PATH_MAX).
constexpr std::size_t name_buffer = 2 * PATH_MAX;

}  // namespace

void count_open(int fd, int dirfd, const char* path, std::int64_t mode, std::uint64_t t1,
                std::uint64_t t2) {
  library_guard guard;
  char name[name_buffer];
  std::int32_t record = 0;
  if (path != nullptr && clean_name(dirfd, path, name, sizeof name)) record = posix_record(name);
  set_fd_record(fd, record);
  if (record == 0) return;
  posix_file& f = posix_at(record - 1);
  f.lock.lock();
  posix_open(f, mode, true, -1, t1, t2);
  f.lock.unlock();
}

void count_dup(int newfd, int oldfd, std::uint64_t t1, std::uint64_t t2) {
  const std::int32_t record = fd_record(oldfd);
  set_fd_record(newfd, record);
  if (record == 0) return;
  update_posix(record, [&](posix_file& f) { posix_open(f, 0, false, POSIX_DUPS, t1, t2); });
}

void count_stat_path(int dirfd, const char* path, std::uint64_t t1, std::uint64_t t2) {
  library_guard guard;
  char name[name_buffer];
  if (path == nullptr || !clean_name(dirfd, path, name, sizeof name)) return;
  const std::int32_t record = posix_record(name);
  if (record == 0) return;
  posix_file& f = posix_at(record - 1);
  f.lock.lock();
  posix_stat(f, t1, t2);
  f.lock.unlock();
}

void count_meta_path(int dirfd, const char* path, posix_extra_counter which, std::uint64_t t1,
                     std::uint64_t t2) {
  library_guard guard;
  char name[name_buffer];
  if (path == nullptr || !clean_name(dirfd, path, name, sizeof name)) return;
  const std::int32_t record = posix_record(name);
  if (record == 0) return;
  posix_file& f = posix_at(record - 1);
  f.lock.lock();
  posix_meta_extra(f, which, t1, t2);
  f.lock.unlock();
}

void count_rename(int olddirfd, const char* oldpath, int newdirfd, const char* newpath,
                  std::uint64_t t1, std::uint64_t t2) {
  library_guard guard;
  char from[name_buffer], to[name_buffer];
  if (!clean_name(olddirfd, oldpath, from, sizeof from)) return;
  const std::int32_t source = posix_record(from, false);
  if (source == 0) return;
  posix_file& s = posix_at(source - 1);
  s.lock.lock();
  posix_rename_source(s, t1, t2);
  s.lock.unlock();
  if (!clean_name(newdirfd, newpath, to, sizeof to)) return;
  const std::int32_t target = posix_record(to);
  if (target == 0) return;
  posix_file& t = posix_at(target - 1);
  t.lock.lock();
  posix_rename_target(t, darshan::record_id(from));
  t.lock.unlock();
}

}  // namespace perfdm::io::lib
