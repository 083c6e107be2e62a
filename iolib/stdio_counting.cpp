#include "iolib/stdio_counting.hpp"

#include <fcntl.h>
#include <limits.h>

namespace perfdm::io::lib {

void count_fopen(FILE* fp, const char* path, std::uint64_t t1, std::uint64_t t2) {
  library_guard guard;
  char name[2 * PATH_MAX];
  std::int32_t record = 0;
  if (clean_name(AT_FDCWD, path, name, sizeof name)) record = stdio_record(name);
  if (record == 0) {
    forget_stream(fp);
    return;
  }
  set_stream_record(fp, record);
  update_stdio(record, [&](stdio_file& f) { stdio_open(f, true, -1, t1, t2); });
}

void count_fdopen(FILE* fp, int fd, std::uint64_t t1, std::uint64_t t2) {
  library_guard guard;
  std::int32_t posix = static_cast<unsigned>(fd) < max_fds ? fd_records[fd] : 0;
  if (posix == fd_inherited) posix = adopt_inherited_file(fd);
  if (posix == 0) return;
  const std::int32_t record = stdio_record(posix_name(posix - 1));
  if (record == 0) return;
  set_stream_record(fp, record);
  update_stdio(record, [&](stdio_file& f) { stdio_open(f, false, STDIO_FDOPENS, t1, t2); });
}

}  // namespace perfdm::io::lib
