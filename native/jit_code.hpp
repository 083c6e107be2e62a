// Frames in code a runtime compiled while the program runs (JIT: V8's JavaScript, CPython's
// perf trampolines, the JVM's methods). Such code lives in executable memory no ELF file
// describes, so libdw has no name for it (and may even count it in a module whose mappings
// surround it: node maps its own text twice, far apart). Plain C++.
//
// A pc is JIT code when it lies in an executable mapping of /proc/PID/maps that no file
// backs: anonymous (no path, `[anon:…]`) or a memfd (`/memfd:…`). Such a frame is named
// - from the process's perf map (perf_map.hpp), /tmp/perf-<pid>.map as the process sees it
//   (its pid in its own namespace, under its own root: /proc/PID/root/tmp/…);
// - else `[jit <runtime>]`, the runtime being the executable's file name (`[jit node]`), so
//   that the report can say which flag gives names (docs/NATIVE.md §8).
// Its module is the script the name points to (`fib.js`: /Code/fib.js/fib), else the
// runtime's executable.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "native/perf_map.hpp"
#include "native/stack_sampler.hpp"

namespace perfdm::native {

// [start, end) of every executable mapping no file backs, from /proc/PID/maps' text, sorted.
std::vector<std::pair<std::uint64_t, std::uint64_t>> jit_code_ranges(std::string_view maps);

// A perf map's name as a frame's function, file and line, where the name carries them:
// - V8 (node): `JS:*fib /tmp/x.js:1:13` is fib in /tmp/x.js, line 1. The tier mark (`~`
//   interpreted, `^` baseline, `+` Maglev, `*` optimised) and the older `LazyCompile:` prefix
//   are dropped: every tier of a function is one function. `JS:~ /tmp/x.js:1:1` (a script's
//   top level) is `(top level)`.
// - CPython (-X perf): `py::fib:/tmp/x.py` is fib in /tmp/x.py.
// - anything else (`Builtin:…`, the JVM's, .NET's): the name as it is.
struct jit_frame_name {
  std::string function, file;
  int line = 0;
};
jit_frame_name jit_frame_name_of(const std::string& map_name);

// The name of a JIT frame no perf map names: "[jit node]".
std::string unnamed_jit_function(const std::string& runtime);

class jit_code {
 public:
  // For process `pid`: its perf map's path, start time and executable.
  explicit jit_code(int pid);

  // The process's mappings changed: `maps` is /proc/PID/maps' text now.
  void update(std::string_view maps);

  // A new stack sample: the perf map is looked at again (when it has grown) at its next lookup.
  void refresh();

  // A frame at `pc` when `pc` is JIT code (module, function, file, line; not the pc), nullopt
  // when it is not.
  std::optional<stack_frame> frame(std::uint64_t pc);

  const perf_map& map() const { return map_; }
  const std::string& runtime() const { return runtime_; }

 private:
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges_;
  std::string executable_;  // its path ("/usr/bin/node"), "" when unknown
  std::string runtime_;     // its file name ("node")
  perf_map map_;
};

}  // namespace perfdm::native
