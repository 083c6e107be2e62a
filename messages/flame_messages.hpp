// FLAMEGRAPH and TIMELINE (docs/FLAME.md): a watched process's call paths with their counts,
// and each thread's states over time, from its stack samples (profile/call_path_store.hpp).
// Both are process commands (`<DYPER PID='pid' COMMAND='FLAMEGRAPH'>`); the registry turns
// them into these requests for the process's native source, and answers them from what the
// source left when the process exited (ENDED='true'), like PROFILE.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "messages/inspect_macros.hpp"

namespace perfdm {

struct flamegraph_request {
  std::int32_t pid = 0;
  std::string view = "cpu";  // cpu, offcpu, lock, io, sleep, other, all
  std::int32_t tid = 0;      // 0: every thread
  bool has_phase = false;    // false: the current phase
  std::uint64_t phase = 0;
  bool has_from = false, has_to = false;
  double from = 0, to = 0;   // a time range inside the phase (engine seconds)
};
PERFDM_INSPECT(flamegraph_request, x.pid, x.view, x.tid, x.has_phase, x.phase, x.has_from,
               x.has_to, x.from, x.to)

// One distinct (call path, state): frames root first, joined by ';'.
struct flame_path_entry {
  std::string path;
  std::string state;  // running, lock, io, sleep, other
  std::uint64_t count = 0;
};
PERFDM_INSPECT(flame_path_entry, x.path, x.state, x.count)

// `<FLAMEGRAPH PID VIEW PHASE FROM TO SAMPLES TOTAL [TRUNCATED] [ENDED]><PATH COUNT STATE>
// a;b;c</PATH>…</FLAMEGRAPH>`.
struct flamegraph_report {
  std::int32_t pid = 0;
  std::string view;
  std::uint64_t phase = 0;
  double from = 0, to = 0;
  std::uint64_t samples = 0, total = 0, truncated = 0;
  bool ended = false;
  std::vector<flame_path_entry> paths;
};
PERFDM_INSPECT(flamegraph_report, x.pid, x.view, x.phase, x.from, x.to, x.samples, x.total,
               x.truncated, x.ended, x.paths)

struct timeline_request {
  std::int32_t pid = 0;
  bool has_from = false, has_to = false;
  double from = 0, to = 0;
};
PERFDM_INSPECT(timeline_request, x.pid, x.has_from, x.has_to, x.from, x.to)

struct timeline_run_entry {
  double from = 0, to = 0;
  std::string state;
  std::string function;  // the run's most frequent leaf frame
};
PERFDM_INSPECT(timeline_run_entry, x.from, x.to, x.state, x.function)
struct timeline_thread_entry {
  std::int32_t tid = 0;
  std::string name;
  std::vector<timeline_run_entry> runs;
};
PERFDM_INSPECT(timeline_thread_entry, x.tid, x.name, x.runs)
// `<TIMELINE PID FROM TO [ENDED]><THREAD TID NAME><RUN FROM TO STATE FUNCTION/>…</THREAD>…
// </TIMELINE>`.
struct timeline_report {
  std::int32_t pid = 0;
  double from = 0, to = 0;
  bool ended = false;
  std::vector<timeline_thread_entry> threads;
};
PERFDM_INSPECT(timeline_report, x.pid, x.from, x.to, x.ended, x.threads)

// Every phase's call paths (all threads summed), per state: what the log keeps, and what
// `perfdm search --folded/--pprof` writes. Not a command of the language.
struct flame_export_request {
  std::int32_t pid = 0;
};
PERFDM_INSPECT(flame_export_request, x.pid)
struct flame_phase_entry {
  std::uint64_t phase = 0;
  double start = 0, end = -1;
  std::vector<flame_path_entry> paths;
};
PERFDM_INSPECT(flame_phase_entry, x.phase, x.start, x.end, x.paths)
struct flame_export {
  std::int32_t pid = 0;
  std::vector<flame_phase_entry> phases;
};
PERFDM_INSPECT(flame_export, x.pid, x.phases)

}  // namespace perfdm
