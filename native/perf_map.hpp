// Names for code a runtime compiled at run time (JIT), from the perf map it writes: the
// convention of Linux perf (tools/perf/Documentation/jit-interface.txt), written by node
// --perf-basic-prof, python -X perf, the JVM (jcmd PID Compiler.perfmap) and .NET
// (DOTNET_PerfMapEnabled). Plain C++ on one file.
//
// The file, /tmp/perf-<pid>.map, holds one entry per line: `START SIZE name`, START and SIZE
// in hex, the name the rest of the line (it may hold spaces). Real files differ from the
// text: the JVM's and Ruby's write `0x` before the numbers, so it is optional here.
//
// A map is read while the program writes it, so:
// - it is read lazily (the first lookup), and again from where the last read stopped when it
//   has grown, checked at most once per refresh() (once per stack sample) and on a miss;
// - a line not ended by a newline yet is half-written: it is left for the next read;
// - a malformed line (not two hex numbers and a name, a size of 0, a range past 2^64) names
//   nothing and is counted; the lines around it are read;
// - a runtime reuses the memory of code it freed: where entries overlap, the most recent line
//   wins (the older entry keeps only what the newer does not cover);
// - a file that shrank or was replaced (another inode) is read again from its start;
// - a file last written before the process started is stale, another process's of the same
//   pid: it names nothing (until it is written again).
// Nothing here throws: an unreadable or missing file names nothing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace perfdm::native {

struct perf_map_entry {
  std::uint64_t start = 0, size = 0;
  std::string name;
};

// One line of a perf map (without its newline); nullopt when it is malformed.
std::optional<perf_map_entry> parse_perf_map_line(std::string_view line);

class perf_map {
 public:
  // `path`: the map file. `process_start`: when the process started, in seconds since the
  // epoch (0: never stale); a file last modified more than a second before it is stale.
  perf_map(std::string path, double process_start);

  // The name of the entry that holds `pc`, nullopt when none does (after looking at the file
  // again, once per refresh(), when it has grown).
  std::optional<std::string> name(std::uint64_t pc);

  // Lets the next lookup look at the file again (the stack sampler calls it once per sample).
  void refresh() { checked_ = false; }

  // Whether the file exists and is not stale, as of the last look.
  bool found() const { return found_; }
  bool stale() const { return stale_; }
  std::size_t entries() const { return ranges_.size(); }  // address ranges named
  std::size_t malformed() const { return malformed_; }    // lines skipped, since the last start
  const std::string& path() const { return path_; }

 private:
  struct range {
    std::uint64_t end;  // exclusive
    std::string name;
  };
  void look();
  void reset();
  void add(const perf_map_entry& e);

  std::string path_;
  double process_start_;
  bool checked_ = false;
  bool found_ = false;
  bool stale_ = false;
  std::uint64_t inode_ = 0, device_ = 0;
  std::uint64_t read_to_ = 0;  // bytes consumed: up to the end of the last whole line
  std::size_t malformed_ = 0;
  std::map<std::uint64_t, range> ranges_;  // by start; never overlapping
};

}  // namespace perfdm::native
