#include "cli/io_preload.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "cli/io_command.hpp"

namespace perfdm {

std::string make_io_job_dir(std::string& error) {
  const char* bases[] = {std::getenv("PERFDM_IO_SEGMENT_DIR"), "/dev/shm", std::getenv("TMPDIR"),
                         "/tmp"};
  for (const char* b : bases) {
    if (b == nullptr || b[0] == '\0' || access(b, W_OK | X_OK) != 0) continue;
    std::string d = std::string(b) + "/perfdm-io.XXXXXX";
    if (mkdtemp(d.data()) != nullptr) return d;
    error = d + ": " + std::strerror(errno);
  }
  if (error.empty()) error = "no writable directory for the I/O segments (/dev/shm, $TMPDIR, /tmp)";
  return {};
}

void remove_io_job_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

io_preload::io_preload(bool enabled) {
  if (!enabled) return;
  const std::string library = io_library_path();
  if (library.empty()) {
    why_not_ = "the I/O library (libperfdm-io.so) is not installed: file I/O is sampled only";
    return;
  }
  job_dir_ = make_io_job_dir(why_not_);
  if (job_dir_.empty()) return;
  const char* preload = std::getenv("LD_PRELOAD");
  env_.push_back("LD_PRELOAD=" + library +
                 (preload != nullptr && preload[0] != '\0' ? ":" + std::string(preload) : ""));
  env_.push_back("PERFDM_IO_JOB=" + job_dir_);
}

io_preload::~io_preload() {
  if (!job_dir_.empty()) remove_io_job_dir(job_dir_);
}

}  // namespace perfdm
