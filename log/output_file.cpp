#include "log/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace perfdm {

namespace {

// `target` exists and is not a regular file (nor a link to one): it is to be written into.
bool written_into(const std::string& target) {
  struct stat st {};
  return ::stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

std::string partial_path_for(const std::string& target) {
  if (!written_into(target)) return target + ".partial";
  static std::atomic<unsigned> count{0};
  const char* dir = std::getenv("TMPDIR");
  std::string d = dir && *dir ? dir : "/tmp";
  auto slash = target.rfind('/');
  auto base = slash == std::string::npos ? target : target.substr(slash + 1);
  return d + "/perfdm." + std::to_string(::getpid()) + "." + std::to_string(count++) + "." +
         base + ".partial";
}

void put_in_place(const std::string& partial, const std::string& target) {
  if (!written_into(target)) {
    if (std::rename(partial.c_str(), target.c_str()) != 0)
      throw std::runtime_error("cannot rename " + partial + " to " + target + ": " +
                               errno_text());
    return;
  }
  const int in = ::open(partial.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) throw std::runtime_error("cannot read " + partial + ": " + errno_text());
  const int out = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
  if (out < 0) {
    const auto why = errno_text();
    ::close(in);
    throw std::runtime_error("cannot write " + target + ": " + why);
  }
  char buf[1 << 16];
  std::string failure;
  for (;;) {
    auto n = ::read(in, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) failure = "cannot read " + partial + ": " + errno_text();
    if (n <= 0) break;
    for (ssize_t done = 0; done < n && failure.empty();) {
      auto w = ::write(out, buf + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) failure = "cannot write " + target + ": " + errno_text();
      else done += w;
    }
    if (!failure.empty()) break;
  }
  ::close(in);
  if (::close(out) != 0 && failure.empty()) failure = "cannot write " + target + ": " + errno_text();
  if (!failure.empty()) throw std::runtime_error(failure);
  ::unlink(partial.c_str());
}

}  // namespace perfdm
