// The Performance Consultant's module of the self-describing log (docs/LOG-FORMAT.md §6.5):
// the search history graph of every search of the session, one record per node, as
// Paradyn's PC saved its SHG as text (id, name, value, threshold, when it became true).
#pragma once

#include <cstdint>
#include <vector>

#include "log/log_core.hpp"
#include "log/log_counter_list.hpp"
#include "log/log_modules.hpp"
#include "messages/search_messages.hpp"

// The counters of a node record, in record order, and how merged logs reduce them: a node is
// the same node only in the same session, so every counter keeps the larger value rather than
// a meaningless sum.
#define PERFDM_PC_LOG_COUNTERS(X) \
  X(search, max)                  \
  X(id, max)                      \
  X(parent, max)                  \
  X(state, max)                   \
  X(active, max)                  \
  X(value, max)                   \
  X(threshold, max)               \
  X(since, max)

namespace perfdm {

PERFDM_LOG_COUNTER_LIST(pc_log_counters, PERFDM_PC_LOG_COUNTERS)

// The record name of a node: "shg SEARCH/ID HYPOTHESIS <CODE, MACHINE, SYNCOBJECT[, FILE]> STATE"
// (FILE only when it is not the root /File).
std::string pc_log_record_name(const shg_node_info& n);

// Registers the module and adds one record per node.
void add_pc_module(log_core& core, const std::vector<shg_node_info>& nodes,
                   std::size_t requested_bytes);

// Makes `perfdm log` print the module.
void register_pc_log_printer();

}  // namespace perfdm
