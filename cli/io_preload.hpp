// perfdm's I/O library in the programs perfdm starts: `perfdm io`'s job directory, and
// `perfdm search -- CMD` and `perfdm top -- CMD` preloading the library so that the engine
// reads every watched process's file I/O live (docs/IO.md §8; `--no-io` opts out).
#pragma once

#include <string>
#include <vector>

namespace perfdm {

// A new directory for a run's I/O segments: under $PERFDM_IO_SEGMENT_DIR, /dev/shm, $TMPDIR
// or /tmp, the first writable. "" with the reason in `error` when none is.
std::string make_io_job_dir(std::string& error);
void remove_io_job_dir(const std::string& dir);

// The library preloaded into a program perfdm watches: its environment, and the job
// directory its processes count into, removed when this ends. The processes write no log
// (none of them is the job's first process); the engine reads their segments while they run.
class io_preload {
 public:
  io_preload() = default;
  // `enabled` false (--no-io), no library, or no directory: an empty environment, and
  // `why_not` says why (empty for --no-io).
  explicit io_preload(bool enabled);
  ~io_preload();
  io_preload(const io_preload&) = delete;
  io_preload& operator=(const io_preload&) = delete;

  // "NAME=value" entries for launched_program.
  const std::vector<std::string>& environment() const { return env_; }
  const std::string& why_not() const { return why_not_; }

 private:
  std::string job_dir_;
  std::vector<std::string> env_;
  std::string why_not_;
};

}  // namespace perfdm
