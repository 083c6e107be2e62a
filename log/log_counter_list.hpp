// A module's counters declared once (Darshan's darshan-null-log-format.h): the module lists
// them as X(name, reduction), and the list gives both the names its records are written
// with and how records of merged logs reduce (log_core::set_counters_reduction).
//
//   #define PERFDM_PC_LOG_COUNTERS(X) X(search, max) X(value, max)
//   PERFDM_LOG_COUNTER_LIST(pc_log_counters, PERFDM_PC_LOG_COUNTERS)
//   record.integer(pc_log_counters::search, 3);
//   core.set_counters_reduction(id, log_counters_reduction_of(pc_log_counters::list));
#pragma once

#include <cstddef>
#include <string>

#include "log/log_counters.hpp"

namespace perfdm {

// One counter of a module: its name in the log, and how merged logs reduce it.
struct log_counter_def {
  const char* name;
  log_reduce_op op = log_reduce_op::sum;
  // The name of a counter of this kind under `prefix` ("field.F." + "min").
  std::string under(const std::string& prefix) const { return prefix + name; }
};

#define PERFDM_LOG_COUNTER(name, op) \
  inline constexpr ::perfdm::log_counter_def name{#name, ::perfdm::log_reduce_op::op};
#define PERFDM_LOG_COUNTER_IN_LIST(name, op) name,
// namespace NS: one log_counter_def per counter of LIST, and `list`, all of them in order.
#define PERFDM_LOG_COUNTER_LIST(NS, LIST)                                                 \
  namespace NS {                                                                          \
  LIST(PERFDM_LOG_COUNTER)                                                                \
  inline constexpr ::perfdm::log_counter_def list[] = {LIST(PERFDM_LOG_COUNTER_IN_LIST)}; \
  }

// Adds the reduction of every counter of `list` (under `prefix`) to `how`.
template <std::size_t N>
log_counters_reduction& add_log_counters_reduction(log_counters_reduction& how,
                                                   const log_counter_def (&list)[N],
                                                   const std::string& prefix = "") {
  for (const auto& c : list)
    if (c.op != how.default_op) how.set(c.under(prefix), c.op);
  return how;
}

}  // namespace perfdm
