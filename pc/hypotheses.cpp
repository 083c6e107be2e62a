#include "pc/hypotheses.hpp"

namespace perfdm::pc {

namespace {

// Files are refined only by the I/O hypotheses (a thread waits on a file only in an I/O call).
constexpr std::array<bool, hierarchy_count> prune_syncobject{false, false, true, true};
constexpr std::array<bool, hierarchy_count> prune_machine{false, true, false, true};
constexpr std::array<bool, hierarchy_count> prune_io{false, false, true, false};

const std::array<hypothesis_info, hypothesis_count>& table() {
  // Sync waiting is refined by code and lock, not by machine (Paradyn's default pruning);
  // CPU and I/O have no lock to be refined by; only I/O has files.
  static const std::array<hypothesis_info, hypothesis_count> t{{
      {hypothesis::cpu_bound,
       "CPUbound",
       std::nullopt,
       {"cpu"},
       value_kind::rate_per_process,
       true,
       prune_syncobject},
      {hypothesis::excessive_sync_waiting_time,
       "ExcessiveSyncWaitingTime",
       std::nullopt,
       {"sync_wait"},
       value_kind::rate_per_process,
       true,
       prune_machine},
      {hypothesis::excessive_io_blocking_time,
       "ExcessiveIOBlockingTime",
       std::nullopt,
       {"io_wait"},
       value_kind::rate_per_process,
       true,
       prune_io},
      {hypothesis::too_many_small_io_ops,
       "TooManySmallIOOps",
       hypothesis::excessive_io_blocking_time,
       {"io_bytes", "io_ops"},
       value_kind::ratio,
       false,
       prune_io},
  }};
  return t;
}

}  // namespace

const hypothesis_info& info(hypothesis h) {
  return table()[static_cast<std::size_t>(h)];
}

const std::array<hypothesis, hypothesis_count>& all_hypotheses() {
  static const std::array<hypothesis, hypothesis_count> all{
      hypothesis::cpu_bound, hypothesis::excessive_sync_waiting_time,
      hypothesis::excessive_io_blocking_time, hypothesis::too_many_small_io_ops};
  return all;
}

bool hypothesis_named(const std::string& name, hypothesis& out) {
  for (auto& i : table())
    if (name == i.name) {
      out = i.id;
      return true;
    }
  return false;
}

double tunables::threshold(hypothesis h) const {
  switch (h) {
    case hypothesis::cpu_bound:
      return cpu_threshold;
    case hypothesis::excessive_sync_waiting_time:
      return sync_threshold;
    case hypothesis::excessive_io_blocking_time:
      return io_threshold;
    case hypothesis::too_many_small_io_ops:
      return small_io_bytes;
  }
  return 0;
}

tunables tunables_with(tunables t, const std::map<std::string, double>& given) {
  for (auto& [name, v] : given) {
    if (name == "CPU_THRESHOLD")
      t.cpu_threshold = v;
    else if (name == "SYNC_THRESHOLD")
      t.sync_threshold = v;
    else if (name == "IO_THRESHOLD")
      t.io_threshold = v;
    else if (name == "SMALL_IO_BYTES")
      t.small_io_bytes = v;
    else if (name == "HYSTERESIS")
      t.hysteresis = v;
    else if (name == "SUFFICIENT_TIME")
      t.sufficient_time = v;
    else if (name == "MAX_PENDING")
      t.max_pending = static_cast<std::uint32_t>(v);
    else if (name == "MAX_ACTIVE")
      t.max_active = static_cast<std::uint32_t>(v);
    else if (name == "COST_BUDGET")
      t.cost_budget = v;
    else if (name == "CONFIDENCE")
      t.confidence = v;
  }
  return t;
}

}  // namespace perfdm::pc
