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
  if (record != 0)
    update_posix(record, [&](posix_file& f) { posix_open(f, mode, true, -1, t1, t2); });
}

void count_dup(int newfd, int oldfd, std::uint64_t t1, std::uint64_t t2) {
  if (fd_pending(oldfd)) {  // still unused: the copy is too (a shell saving its output)
    set_fd_record(newfd, fd_inherited);
    return;
  }
  const std::int32_t record = fd_record(oldfd);
  set_fd_record(newfd, record);
  if (record == 0) return;
  update_posix(record, [&](posix_file& f) { posix_open(f, 0, false, POSIX_DUPS, t1, t2); });
}

namespace {

// Runs `update` on the POSIX record of `path` (relative to `dirfd`), created when needed.
template <class Update>
void on_path_record(int dirfd, const char* path, Update&& update) {
  library_guard guard;
  char name[name_buffer];
  if (path == nullptr || !clean_name(dirfd, path, name, sizeof name)) return;
  const std::int32_t record = posix_record(name);
  if (record != 0) update_posix(record, update);
}

}  // namespace

void count_stat_path(int dirfd, const char* path, std::uint64_t t1, std::uint64_t t2) {
  on_path_record(dirfd, path, [&](posix_file& f) { posix_stat(f, t1, t2); });
}

void count_meta_path(int dirfd, const char* path, posix_extra_counter which, std::uint64_t t1,
                     std::uint64_t t2) {
  on_path_record(dirfd, path, [&](posix_file& f) { posix_meta_extra(f, which, t1, t2); });
}

void count_rename(int olddirfd, const char* oldpath, int newdirfd, const char* newpath,
                  std::uint64_t t1, std::uint64_t t2) {
  library_guard guard;
  char from[name_buffer], to[name_buffer];
  if (!clean_name(olddirfd, oldpath, from, sizeof from)) return;
  const std::int32_t source = posix_record(from, false);
  if (source == 0) return;
  update_posix(source, [&](posix_file& f) { posix_rename_source(f, t1, t2); });
  if (!clean_name(newdirfd, newpath, to, sizeof to)) return;
  const std::int32_t target = posix_record(to);
  if (target != 0) {
    update_posix(target, [&](posix_file& f) { posix_rename_target(f, darshan::record_id(from)); });
  }
}

}  // namespace perfdm::io::lib
