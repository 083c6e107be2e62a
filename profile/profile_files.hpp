// Call paths with counts written as the files other profilers read (docs/FLAME.md §4):
// - folded stacks, one `root;…;leaf COUNT` line per call path (flamegraph.pl, inferno,
//   speedscope): the counts of one path summed over the states, phases and processes given;
// - pprof's profile.proto, gzipped (go tool pprof, Pyroscope, Parca): one sample per (path,
//   state, phase, process) with the labels `state`, `phase` and `pid`; sample type
//   `samples/count`; a location per distinct frame, its function named as the frame's
//   function and its mapping as the frame's module. The schema is the one Debian's
//   golang-github-google-pprof-dev installs, compiled at build time.
// Plain C++ (protobuf and zlib).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace perfdm::profile {

struct counted_stack {
  std::string path;   // frames root first, joined by ';' (each frame `function (module)`)
  std::string state;  // running, lock, io, sleep, other
  std::uint64_t phase = 0;
  std::int32_t pid = 0;
  std::uint64_t count = 0;
};

// Folded lines, sorted by path; a path without frames is `[unknown]`. Returns the sum of the
// counts written.
std::uint64_t write_folded(const std::vector<counted_stack>& stacks, std::ostream& out);

// The serialized (not yet gzipped) profile.proto message.
std::string pprof_bytes(const std::vector<counted_stack>& stacks, std::int64_t time_nanos = 0);

// Writes pprof_bytes gzipped to `file`; throws std::runtime_error when it cannot.
void write_pprof_file(const std::vector<counted_stack>& stacks, const std::string& file,
                      std::int64_t time_nanos = 0);

// `function (module)` -> {function, module}; a frame without " (…)" is all function.
std::pair<std::string, std::string> split_frame(const std::string& frame);

}  // namespace perfdm::profile
