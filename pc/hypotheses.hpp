// The why axis: the hypotheses the Performance Consultant tests, their metrics, tests and
// default thresholds (Paradyn's), and the search's tunables.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pc/focus.hpp"

namespace perfdm::pc {

enum class hypothesis {
  cpu_bound,
  excessive_sync_waiting_time,
  excessive_io_blocking_time,
  too_many_small_io_ops,
};
inline constexpr std::size_t hypothesis_count = 4;

// How a node's value is made from its metrics (Paradyn's why axis).
enum class value_kind {
  // rate of the metric (seconds per second) divided by the processes in the focus; on the
  // evidence, the share of the active threads' time, per process (≤ 1)
  rate_per_process,
  // running sum of the first metric over the running sum of the second
  ratio,
};

struct hypothesis_info {
  hypothesis id;
  const char* name;                  // "CPUbound", as Paradyn named it
  std::optional<hypothesis> parent;  // the why-parent; none: a top-level hypothesis
  std::vector<std::string> metrics;  // data manager metric names, numerator first
  value_kind kind;
  bool greater;  // the test is value > threshold (else value < threshold)
  std::array<bool, hierarchy_count> pruned;  // hierarchies this hypothesis never refines
};

const hypothesis_info& info(hypothesis h);
// Every hypothesis, parents before children.
const std::array<hypothesis, hypothesis_count>& all_hypotheses();
// By name (case-sensitive, "CPUbound"); false if unknown.
bool hypothesis_named(const std::string& name, hypothesis& out);

// Everything a search can be tuned with (SEARCH's attributes, perfdm search's options).
struct tunables {
  double cpu_threshold = 0.30;      // CPUbound: cpu rate per process
  double sync_threshold = 0.20;     // ExcessiveSyncWaitingTime: sync_wait rate per process
  double io_threshold = 0.20;       // ExcessiveIOBlockingTime: io_wait rate per process
  double small_io_bytes = 4096;     // TooManySmallIOOps: mean bytes per operation below
  double hysteresis = 0.05;         // the threshold moves by this fraction (h 1.05 / 0.95)
  // Paradyn's rule when > 0: seconds of agreeing data before a node concludes. 0 (the
  // default): the evidence rule (pc/evidence.hpp) decides instead.
  double sufficient_time = 0;
  double confidence = 0.99;  // the evidence rule's confidence level
  std::uint32_t max_pending = 30;   // experiments whose enables are not answered yet
  std::uint32_t max_active = 1000;  // experiments collecting at once
  double cost_budget = 0.10;        // measured sampler cost / program time above which
                                    // no experiment is started

  double threshold(hypothesis h) const;
};

// `t` with the tunables SEARCH gives by name (CPU_THRESHOLD, SYNC_THRESHOLD, IO_THRESHOLD,
// SMALL_IO_BYTES, HYSTERESIS, SUFFICIENT_TIME, MAX_PENDING, MAX_ACTIVE, COST_BUDGET,
// CONFIDENCE; docs/PROTOCOL.md §12); the XML reader refuses other names, so none is here.
tunables tunables_with(tunables t, const std::map<std::string, double>& given);

}  // namespace perfdm::pc
