// The Data Manager's module of the self-describing log: metrics, resources, phases, metric
// instances with their flags, and every histogram (global, current, archived), written as
// generic counters records (log/log_counters.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "log/log_core.hpp"
#include "log/log_modules.hpp"
#include "messages/dm_messages.hpp"

namespace perfdm {

// What the data manager holds, read through its ordinary requests.
struct dm_snapshot {
  std::vector<metric_info> metrics;
  std::vector<resource_info> resources;
  std::vector<phase_info> phases;
  status_info status;
  struct histogram_entry {
    std::string which;  // "GLOBAL", "CURRENT" or "phase <id>"
    histogram_data data;
  };
  std::vector<histogram_entry> histograms;
};

// Registers the module with `core` (asking for `requested_bytes`) and adds its records; a
// module that runs out of its grant is marked partial by the core.
void add_dm_module(log_core& core, const dm_snapshot& snapshot, std::size_t requested_bytes);

// Makes `perfdm log` print the module.
void register_dm_log_printer();

}  // namespace perfdm
