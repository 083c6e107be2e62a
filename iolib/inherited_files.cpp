#include "iolib/inherited_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "iolib/counting.hpp"
#include "iolib/real_calls.hpp"

namespace perfdm::io::lib {

namespace {

// Points `fd` at the record of the regular file it reads or writes, if counted.
void adopt(int fd) {
  struct stat st;
  if (real::fstat()(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;  // pipes, terminals, devices
  char link[40];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  char path[PATH_MAX];
  const ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0 || path[0] != '/') return;
  path[n] = '\0';
  constexpr const char* deleted = " (deleted)";  // the name no longer leads to it
  const std::size_t len = std::size_t(n), tail = std::strlen(deleted);
  if (len > tail && std::strcmp(path + len - tail, deleted) == 0) return;
  const std::int32_t record = posix_record(path);
  if (record == 0) return;
  set_fd_record(fd, record);
  update_posix(record, [](posix_file& f) { f.flags |= record_inherited; });
  // An appending descriptor writes at the end, wherever its offset is.
  const int flags = real::fcntl()(fd, F_GETFL);
  const off_t at = flags != -1 && (flags & O_APPEND) ? st.st_size : real::lseek()(fd, 0, SEEK_CUR);
  if (at > 0) update_posix(record, [&](posix_file& f) { f.offset = at; });
}

}  // namespace

void adopt_inherited_files() {
  if (g.darshan_only) return;
  library_guard guard;
  DIR* d = opendir("/proc/self/fd");
  if (d == nullptr) return;
  const int own = dirfd(d);
  while (const dirent* e = readdir(d)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || fd == own || fd < 0 || fd >= long(max_fds)) continue;
    adopt(int(fd));
  }
  closedir(d);
}

}  // namespace perfdm::io::lib
