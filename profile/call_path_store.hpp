// The call paths of a process's stack samples with their counts, kept so that a flame graph
// (FLAMEGRAPH) and a thread timeline (TIMELINE) can be drawn for any phase, any time range
// inside a phase, one thread or all, on-CPU or off-CPU (docs/FLAME.md). Plain C++.
//
// What is kept:
// - call paths interned in one tree (a node is a frame under its parent; frames are strings
//   interned once), so a path costs one node per frame the first time it is seen and nothing
//   after;
// - counts per (path, thread, state) in time slices (slice_seconds, 1 s): a slice never spans
//   two phases (a phase start closes the slice); slices older than window_seconds (120 s)
//   fold into their phase's total, which is kept for every phase;
// - per thread, its runs of one state (the timeline), for the last window_seconds.
//
// Bounds (store_limits; what they cost is counted in store_counters):
// - max_nodes: once the tree holds that many nodes, a stack with a frame not in it yet counts
//   at its deepest prefix that is (its leaf frames are merged into their parent:
//   truncated_stacks);
// - max_bytes (an estimate of the memory held): over it, the oldest slices fold into their
//   phase early (folded_slices: their time range can no longer be queried), then the oldest
//   ended phases are dropped whole (dropped_phases, dropped_samples);
// - max_runs: the timeline's oldest runs go first (dropped_runs).
// Time ranges are answered by whole slices: a slice counts when its midpoint is in the range.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace perfdm::profile {

// What a sampled thread was doing. `other`: blocked on something perfdm cannot name as a
// lock, I/O or a sleep (a condition, a join, the kernel).
enum class sample_state : std::uint8_t { running, lock, io, sleep, other };
inline constexpr std::size_t state_count = 5;
const char* to_string(sample_state s);
std::optional<sample_state> parse_state(std::string_view s);

// A set of states, bit (1 << state).
using state_mask = std::uint8_t;
// cpu (running), offcpu (lock, io, sleep, other), lock, io, sleep, other, all.
std::optional<state_mask> view_mask(std::string_view view);

struct store_limits {
  std::size_t max_nodes = 100000;
  std::size_t max_bytes = 32u << 20;
  double slice_seconds = 1.0;
  double window_seconds = 120.0;
  std::size_t max_runs = 100000;
};

struct store_counters {
  std::uint64_t samples = 0;           // thread stacks added
  std::uint64_t truncated_stacks = 0;  // counted at a prefix (max_nodes)
  std::uint64_t folded_slices = 0;     // folded into their phase before window_seconds
  std::uint64_t dropped_phases = 0;    // phases dropped whole (max_bytes)
  std::uint64_t dropped_samples = 0;   // the samples they held
  std::uint64_t dropped_runs = 0;      // timeline runs dropped before window_seconds
};

struct flame_query {
  state_mask states = 1;               // running
  int tid = 0;                         // 0: every thread
  std::optional<std::uint64_t> phase;  // none: the current phase
  std::optional<double> from, to;      // a time range inside the phase
  std::size_t max_paths = 20000;
};

struct flame_path {
  std::vector<std::string> frames;  // root first
  sample_state state = sample_state::running;
  std::uint64_t count = 0;
};

struct flame_result {
  bool phase_known = false;  // false: no such phase kept (paths empty)
  std::uint64_t phase = 0;
  double from = 0, to = 0;   // what the counts cover (whole slices)
  std::uint64_t samples = 0; // the sum of the paths' counts
  std::uint64_t total = 0;   // every thread sample in the scope, any state
  std::uint64_t truncated = 0;  // paths merged into their parent to keep within max_paths
  std::vector<flame_path> paths;  // by count descending, then frames
};

struct timeline_run {
  double from = 0, to = 0;
  sample_state state = sample_state::running;
  std::string function;  // the most frequent leaf frame of the run's samples
  std::uint64_t samples = 0;
};
struct timeline_thread {
  int tid = 0;
  std::string name;
  std::vector<timeline_run> runs;
};

// Every phase's call paths summed over threads, for the log.
struct phase_paths {
  std::uint64_t phase = 0;
  double start = 0, end = -1;  // end -1: current
  std::vector<flame_path> paths;
};

class call_path_store {
 public:
  explicit call_path_store(store_limits limits = {});

  // A phase starts at `time` (phase 0 starts at 0 unless told otherwise). Times only grow.
  void start_phase(std::uint64_t phase, double time);
  std::uint64_t current_phase() const { return current_phase_; }

  // One thread's stack at `time`, root frame first.
  void add(double time, int tid, const std::string& thread_name, sample_state state,
           const std::vector<std::string>& frames_root_first);

  flame_result flamegraph(const flame_query& q) const;
  // The runs that overlap [from, to] (each bound optional), by thread id.
  std::vector<timeline_thread> timeline(std::optional<double> from, std::optional<double> to) const;
  // At most max_paths per phase (the rarest merged into their parents, as flamegraph()).
  std::vector<phase_paths> export_phases(state_mask states = 0x1f,
                                         std::size_t max_paths = 20000) const;

  const store_counters& counters() const { return counters_; }
  std::size_t nodes() const { return nodes_.size(); }
  std::size_t bytes() const;
  // The time range the slices still cover (-1, -1 when none).
  std::pair<double, double> sliced_range() const;

 private:
  using key = std::uint64_t;  // node (32 bits) | thread index (16) | state (8)
  using counts = std::unordered_map<key, std::uint64_t>;
  struct node {
    std::uint32_t parent;
    std::uint32_t frame;
    std::uint32_t depth;
  };
  struct slice {
    std::uint64_t phase;
    double start, end;
    counts c;
  };
  struct phase_rec {
    std::uint64_t id;
    double start, end;  // end -1 while current
    counts folded;      // the slices folded into it
  };
  struct leaf_tally {
    std::uint32_t frame;
    std::uint32_t n;
  };
  struct run {
    double from, to;
    sample_state state;
    std::uint64_t samples;
    leaf_tally leaves[4];
  };
  struct thread_rec {
    int tid;
    std::string name;
    std::deque<run> runs;
  };

  std::uint32_t intern_frame(const std::string& f);
  std::uint32_t path_node(const std::vector<std::string>& frames);
  std::uint16_t thread_index(int tid, const std::string& name);
  slice& slice_at(double time);
  void fold_oldest_slice();
  void enforce_bounds(double now);
  void add_run(thread_rec& t, double time, sample_state state, std::uint32_t leaf);
  std::vector<std::string> frames_of(std::uint32_t node) const;
  const phase_rec* find_phase(std::uint64_t id) const;

  store_limits limits_;
  store_counters counters_;
  std::vector<std::string> frames_;
  std::unordered_map<std::string, std::uint32_t> frame_ids_;
  std::vector<node> nodes_;  // node 0: the root (no frame)
  std::unordered_map<std::uint64_t, std::uint32_t> children_;  // parent << 32 | frame
  std::size_t frame_bytes_ = 0;
  std::vector<thread_rec> threads_;
  std::map<int, std::uint16_t> thread_ids_;
  std::deque<phase_rec> phases_;
  std::deque<slice> slices_;
  std::size_t slice_entries_ = 0, folded_entries_ = 0, runs_ = 0;
  std::uint64_t current_phase_ = 0;
  double latest_ = 0;
};

// The text of a path as folded stacks write it: frames joined by ';'.
std::string folded_path(const std::vector<std::string>& frames);

}  // namespace perfdm::profile
