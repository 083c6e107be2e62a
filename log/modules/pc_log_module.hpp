// The Performance Consultant's module of the self-describing log (docs/LOG-FORMAT.md §6.5):
// the search history graph of every search of the session, one record per node, as
// Paradyn's PC saved its SHG as text (id, name, value, threshold, when it became true).
#pragma once

#include <cstdint>
#include <vector>

#include "log/log_core.hpp"
#include "messages/search_messages.hpp"

namespace perfdm {

inline constexpr std::uint32_t pc_log_module_id = 19;
inline constexpr std::uint32_t pc_log_module_version = 1;
inline constexpr const char* pc_log_module_name = "pc";

// The record name of a node: "shg SEARCH/ID HYPOTHESIS <CODE, MACHINE, SYNCOBJECT[, FILE]> STATE"
// (FILE only when it is not the root /File).
std::string pc_log_record_name(const shg_node_info& n);

// Registers the module and adds one record per node.
void add_pc_module(log_core& core, const std::vector<shg_node_info>& nodes,
                   std::size_t requested_bytes);

// Makes `perfdm log` print the module.
void register_pc_log_printer();

}  // namespace perfdm
