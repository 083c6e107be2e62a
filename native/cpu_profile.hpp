// DyPer's CPU agent done natively, the counting part (plain C++, no process needed): stack
// samples in, per-function and per-line counts out.
//
// Counting. Only threads that were running ('R') when the sample was taken are counted: a
// blocked thread uses no CPU. For each such stack (one "active" sample):
// - TOTAL (inclusive) of every distinct function on the stack +1 (a recursive function once);
// - BASE (exclusive) of the innermost function +1.
// A function is `module@function` (module: the file name without its folder; an unknown
// symbol is `module@?`). A *detailed* function also counts its source lines the same way,
// as items `module@function@line` (TOTAL: the line is on the stack; BASE: it is innermost).
//
// Detailing, with DyPer's METHOD_* thresholds, decided after every sample:
// - DETAIL_MIN_TOTAL (250): no decision before the profile holds that many active samples
//   (fractions of fewer are noise);
// - DETAIL_MINIMUM (10): a function needs at least that many samples (TOTAL) of its own;
// - DETAIL_THRESHOLD (0.025): it is detailed once its TOTAL is at least that fraction of
//   all active samples;
// - DETAIL_STOP_THRESHOLD (0.005): a detailed function stops being detailed (its line counts
//   are dropped) once its TOTAL falls below that fraction; the gap between the two keeps a
//   function near the threshold from flapping.
// Line counts start when the function is detailed: they are not retroactive.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "native/stack_sampler.hpp"

namespace perfdm::native {

struct detail_settings {
  std::uint64_t min_total = 250;
  std::uint64_t minimum = 10;
  double threshold = 0.025;
  double stop_threshold = 0.005;
};

struct profile_item {
  std::string name;  // module@function, or module@function@line
  std::string file;  // line items: the source file
  std::uint64_t total = 0;
  std::uint64_t base = 0;
  bool detailed = false;  // function items: its lines are counted
};

struct profile_summary {
  std::uint64_t samples = 0;  // stack samples taken
  std::uint64_t stacks = 0;   // thread stacks seen (running or not)
  std::uint64_t active = 0;   // running thread stacks counted
  double montime = 0;         // seconds of the program's life the samples cover
  double last = -1;           // time of the last sample (the caller's clock), -1 before any
  // Functions by BASE descending, then TOTAL descending, then name; each detailed function's
  // lines follow it, by BASE and TOTAL descending, then line.
  std::vector<profile_item> items;
};

class cpu_profile {
 public:
  explicit cpu_profile(detail_settings settings = {});

  // One stack sample: `covered` seconds of the program's time since the previous one,
  // taken at `time` (the caller's clock, reported as LAST).
  void add(const stack_snapshot& snapshot, double covered, double time);

  // One running thread's stack, innermost frame first (add() calls it; tests too). Call
  // end_sample() after the stacks of one sample.
  void add_stack(const std::vector<stack_frame>& frames);
  void end_sample(double covered, double time);

  bool detailed(const std::string& function_item) const;
  std::uint64_t active() const { return active_; }

  profile_summary summary() const;
  void clear();

 private:
  struct line_counts {
    std::string file;
    std::uint64_t total = 0, base = 0;
  };
  struct function_counts {
    std::uint64_t total = 0, base = 0;
    bool detailed = false;
    std::map<int, line_counts> lines;
  };
  void decide_detailing();

  detail_settings settings_;
  std::map<std::string, function_counts> functions_;
  std::uint64_t samples_ = 0, stacks_ = 0, active_ = 0;
  double montime_ = 0, last_ = -1;
};

// The item name of a frame's function: module@function (module without its folder).
std::string function_item(const stack_frame& frame);

}  // namespace perfdm::native
