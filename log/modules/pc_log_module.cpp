#include "log/modules/pc_log_module.hpp"

#include "log/log_counters_record.hpp"

namespace perfdm {

namespace {

std::int64_t state_number(const std::string& s) {
  if (s == "unknown") return 1;
  if (s == "true") return 2;
  if (s == "false") return 3;
  return 0;  // never
}

}  // namespace

std::string pc_log_record_name(const shg_node_info& n) {
  return "shg " + std::to_string(n.search) + "/" + std::to_string(n.id) + " " + n.hypothesis +
         " <" + n.code + ", " + n.machine + ", " + n.syncobject +
         (n.file.empty() || n.file == "/File" ? "" : ", " + n.file) + "> " + n.state;
}

void add_pc_module(log_core& core, const std::vector<shg_node_info>& nodes,
                   std::size_t requested_bytes) {
  core.register_module(pc_log_module_name, pc_log_module_id, pc_log_module_version,
                       requested_bytes);
  namespace c = pc_log_counters;
  log_counters_reduction how;
  core.set_counters_reduction(pc_log_module_id, add_log_counters_reduction(how, c::list));
  for (auto& n : nodes)
    log_counters_record(core, pc_log_module_id, pc_log_record_name(n))
        .integer(c::search, static_cast<std::int64_t>(n.search))
        .integer(c::id, static_cast<std::int64_t>(n.id))
        .integer(c::parent, n.has_parent ? static_cast<std::int64_t>(n.parent) : -1)
        .integer(c::state, state_number(n.state))
        .integer(c::active, n.active ? 1 : 0)
        .real(c::value, n.value)
        .real(c::threshold, n.threshold)
        .real(c::since, n.since)
        .add();
}

void register_pc_log_printer() {
  add_log_module_printer(default_log_printers(), pc_log_module_id);
}

}  // namespace perfdm
