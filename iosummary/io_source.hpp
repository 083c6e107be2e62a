// Where a job summary reads its I/O counters from: a log of Darshan's records, whichever
// program wrote it (Darshan's runtime, or perfdm's I/O library into a perfdm log). Every
// record reaches the summary as a darshan::record in Darshan's counter layout (current
// counter names through record::counter), so one summary serves both kinds of log.
// Records are streamed, one at a time; a source can be walked more than once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "darshan/darshan_log.hpp"

namespace perfdm::iosummary {

// The job, as the log's job record gives it.
struct source_job {
  std::string log_path;
  std::string log_format;       // "Darshan 3.41", "perfdm 1"
  std::string library_version;  // the runtime that wrote the log ("3.5.0"), when known
  std::string exe;              // the command line
  std::int64_t uid = 0, jobid = 0, nprocs = 1;
  double start_time = 0, end_time = 0;  // seconds since the epoch
  double run_time = 0;                  // seconds
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<darshan::mount> mounts;   // longest mount point first
};

// One module of the log.
struct source_module {
  int id = 0;                 // darshan::module_id
  std::string name;           // as darshan-parser names it
  std::uint32_t version = 0;  // record version
  std::uint64_t stored_bytes = 0;  // its data in the log (compressed)
  bool partial = false;       // the runtime ran out of memory for its records
  bool readable = true;       // this reader knows its layout
};

using record_fn =
    std::function<void(const darshan::record&, std::optional<std::string_view> name)>;

class io_source {
 public:
  virtual ~io_source() = default;
  virtual const source_job& job() const = 0;
  virtual const std::vector<source_module>& modules() const = 0;
  // Streams `module`'s records in stored order. With `with_names`, each comes with its name
  // (null when the log has none); without, name is null (a cheaper pass).
  virtual void for_each_record(int module, bool with_names, const record_fn& fn) = 0;
  // The names of `ids` the log has, in one pass when they are not all held.
  virtual std::unordered_map<std::uint64_t, std::string> names_of(
      const std::unordered_set<std::uint64_t>& ids) = 0;
  // What could not be read, and why.
  virtual std::vector<std::string> notes() const = 0;

  const source_module* find(int module) const {
    for (const auto& m : modules())
      if (m.id == module) return &m;
    return nullptr;
  }
};

// The mount a file name lies on: the longest mount point it starts with, or null.
const darshan::mount* mount_of(const std::vector<darshan::mount>& mounts, std::string_view name);

// Opens a Darshan log. Throws darshan::darshan_error when it is not one or cannot be read.
std::unique_ptr<io_source> open_darshan_source(const std::string& path);

// Opens `path` as whichever kind of log it is. Throws std::runtime_error naming the problem.
std::unique_ptr<io_source> open_io_source(const std::string& path);

}  // namespace perfdm::iosummary
