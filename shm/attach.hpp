// Attach to and detach from a running program built with a generated frames component
// (docs/FRAMES.md §5): find its perfdm_handle_<S>/perfdm_layout_<S> symbols, have the caller
// create one segment per frame type, write a fresh handle into each, and undo all of it on
// detach. Independent of how segments are made: the caller passes that in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "shm/shm_error.hpp"

namespace perfdm::shm {

inline constexpr const char* handle_symbol_prefix = "perfdm_handle_";
inline constexpr const char* layout_symbol_prefix = "perfdm_layout_";
inline constexpr const char* clock_symbol_prefix = "perfdm_clock_";

// One generated frame type found in an executable file.
struct frame_symbol {
  std::string struct_name;
  std::uint64_t handle_address = 0;  // link-time value of perfdm_handle_<S>
  std::string descriptor;            // perfdm_layout_<S>, up to its NUL
  // perfdm_clock_<S> (format::clock_kind); the machine's native clock when the executable
  // has no such symbol (generated before `perfdm gen --clock`).
  std::uint32_t clock = 0;
};

struct attach_options {
  // Struct name -> the layout descriptor the caller expects. Empty: attach every frame type
  // the executable has. Otherwise attach exactly these: one the executable lacks is
  // no_symbol, one whose descriptor differs is schema_mismatch; others are left alone.
  std::map<std::string, std::string> expected;
  // Creates the segment for one frame type and returns its name (segment_name(pid, handle)),
  // with the writer's clock in its header (segment_options::clock = `clock`, the
  // executable's perfdm_clock_<S>); called before the handle is written. May throw: the attach is
  // then rolled back and fails with segment_failed (an attach_error it throws keeps its own code).
  std::function<std::string(int pid, const std::string& struct_name, const std::string& descriptor,
                            std::uint64_t handle, std::uint32_t clock)>
      create_segment;
  // Take over a process whose handle is already non-zero (its old segment is removed and a
  // new handle written); without it that is already_attached.
  bool force = false;
};

struct attached_frame {
  std::string struct_name;
  std::uint64_t handle = 0;
  std::string segment;
  std::string descriptor;
  std::uint32_t clock = 0;  // format::clock_kind of the writer
};

struct attachment {
  int pid = 0;
  std::string name;        // /proc/PID/comm
  std::string executable;  // /proc/PID/exe
  std::vector<attached_frame> frames;
};

// The perfdm_handle_<S> + perfdm_layout_<S> pairs of an executable file, sorted by struct
// name. Throws attach_error(no_symbol) for a file without any, with a descriptor missing or
// without its bytes, a perfdm_clock_<S> that is not a uint32_t with its bytes, or that is no
// readable executable; schema_mismatch for a clock this perfdm does not know.
std::vector<frame_symbol> find_frame_symbols(const std::string& executable);

// Attaches: also removes the segments of processes that no longer exist first. On any
// failure every handle written is set back to 0 and every segment created is removed.
// Throws attach_error.
attachment attach(int pid, const attach_options& options);

// Writes 0 into every non-zero handle of the process and removes its /dev/shm/perfdm.<pid>.*
// segments. Throws attach_error: not_attached when there was nothing to undo; for a process
// that no longer exists, no_such_process after its segments are removed.
void detach(int pid);

// Removes every perfdm.<pid>.<handle> segment whose process no longer exists; returns how
// many. Never throws for a segment it cannot remove (another user's): it is skipped.
std::size_t remove_stale_segments();

// The names of the segments of one process present in /dev/shm, sorted.
std::vector<std::string> process_segments(int pid);

}  // namespace perfdm::shm
