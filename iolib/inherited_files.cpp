#include "iolib/inherited_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "iolib/counting.hpp"
#include "iolib/real_calls.hpp"

namespace perfdm::io::lib {

void mark_inherited_files() {
  if (g.darshan_only) return;
  DIR* d = opendir("/proc/self/fd");
  if (d == nullptr) return;
  const int own = dirfd(d);
  while (const dirent* e = readdir(d)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || fd == own || fd < 0 || fd >= long(max_fds)) continue;
    struct stat st;
    // Pipes, terminals, sockets and devices carry no file's data.
    if (real::fstat()(int(fd), &st) == 0 && S_ISREG(st.st_mode) && fd_records[fd] == 0)
      set_fd_record(int(fd), fd_inherited);
  }
  closedir(d);
}

std::int32_t adopt_inherited_file(int fd) {
  library_guard guard;
  std::int32_t record = 0;
  struct stat st;
  char path[PATH_MAX];
  if (real::fstat()(fd, &st) == 0 && S_ISREG(st.st_mode) && descriptor_name(fd, path))
    record = posix_record(path);
  if (record != 0) {
    // An appending descriptor writes at the end, wherever its offset is.
    const int flags = real::fcntl()(fd, F_GETFL);
    const off_t at =
        flags != -1 && (flags & O_APPEND) ? st.st_size : real::lseek()(fd, 0, SEEK_CUR);
    update_posix(record, [&](posix_file& f) {
      f.flags |= record_inherited;
      if (at > 0) f.offset = at;
    });
  }
  set_fd_record(fd, record);
  return record;
}

}  // namespace perfdm::io::lib
