// Every module of perfdm's self-describing log in one table (Darshan's darshan-log-format.h):
// X(id, name, version, printer). The writers (log/modules/*_log_module.cpp) register their
// module under this id, name and version; `perfdm log` and the log reader's fuzzer print each
// module with this printer. Ids below 16 are the log's own regions (docs/LOG-FORMAT.md §3).
#pragma once

#include <cstdint>

#include "log/log_counters.hpp"
#include "log/log_io_records.hpp"
#include "log/log_print.hpp"

#define PERFDM_LOG_MODULES(X)            \
  X(16, dm, 1, print_log_counters)       \
  X(17, frames, 1, print_log_counters)   \
  X(18, native, 1, print_log_counters)   \
  X(19, pc, 1, print_log_counters)       \
  X(20, posix, 1, print_io_posix)        \
  X(21, stdio, 1, print_io_stdio)        \
  X(22, mpiio, 1, print_io_mpiio)        \
  X(23, heatmap, 1, print_io_heatmap)    \
  X(24, dxt_posix, 1, print_io_trace)   \
  X(25, dxt_mpiio, 1, print_io_trace)

namespace perfdm {

// dm_log_module_id, dm_log_module_version, dm_log_module_name, and so on for every module.
#define PERFDM_LOG_MODULE_CONSTANTS(id, name, version, printer)      \
  inline constexpr std::uint32_t name##_log_module_id = id;           \
  inline constexpr std::uint32_t name##_log_module_version = version; \
  inline constexpr const char* name##_log_module_name = #name;
PERFDM_LOG_MODULES(PERFDM_LOG_MODULE_CONSTANTS)
#undef PERFDM_LOG_MODULE_CONSTANTS

// Adds the printer of the table's module `module_id` to `registry`; false when the table
// has no such module.
bool add_log_module_printer(log_printer_registry& registry, std::uint32_t module_id);

// Adds the printer of every module of the table to `registry`.
void add_log_module_printers(log_printer_registry& registry);

}  // namespace perfdm
