#include "log/modules/native_log_module.hpp"

#include <map>

#include "log/log_counters_record.hpp"
#include "messages/profile_item_name.hpp"

namespace perfdm {

namespace {

std::int64_t count(std::uint64_t x) {
  return static_cast<std::int64_t>(x);
}

// The function item a line item (module@function@line) belongs to; the item itself otherwise.
std::string function_of(const profile_entry& item, const std::string& current_function) {
  return names_line_of(item.name, current_function) ? current_function : item.name;
}

}  // namespace

std::string native_stack_record_name(std::int32_t pid, std::uint64_t phase,
                                     const std::string& state, const std::string& path) {
  return "stack " + std::to_string(pid) + " " + std::to_string(phase) + " " + state + " " + path;
}

void add_native_module(log_core& core, const std::vector<native_log_process>& processes,
                       std::size_t requested_bytes) {
  core.register_module(native_log_module_name, native_log_module_id, native_log_module_version,
                       requested_bytes);
  namespace c = native_log_counters;
  namespace types = native_log_code_types;
  log_counters_reduction how;
  add_log_counters_reduction(how, c::list);
  add_log_counters_reduction(how, types::list, types::prefix);
  core.set_counters_reduction(native_log_module_id, how);

  struct across {
    std::uint64_t total = 0, base = 0;
    std::string type;
  };
  std::map<std::string, across> functions;  // over every process: function items only
  for (auto& p : processes) {
    auto& r = p.profile;
    log_counters_record(core, native_log_module_id, "native " + p.resource)
        .integer(c::pid, r.pid)
        .integer(c::samples, count(r.samples))
        .integer(c::stacks, count(r.stacks))
        .integer(c::active, count(r.active))
        .integer(c::detailed, count(r.detailed))
        .real(c::montime, r.montime)
        .real(c::cost, r.cost)
        .real(c::last, r.last)
        .real(c::checktime, r.checktime)
        .integer(c::ended, r.ended ? 1 : 0)
        .add();
    std::string function;
    for (auto& i : r.items) {
      function = function_of(i, function);
      bool line = function != i.name;
      auto type = i.type.empty() ? std::string(types::NORMAL.name) : i.type;
      log_counters_record(core, native_log_module_id,
                          "profile " + p.resource + " " + i.name + (line ? " " + i.file : ""))
          .integer(c::total, count(i.total))
          .integer(c::base, count(i.base))
          .integer(types::prefix + type, 1)
          .add();
      if (line) continue;
      auto& a = functions[i.name];
      a.total += i.total;
      a.base += i.base;
      a.type = type;
    }
    for (auto& t : r.threads)
      log_counters_record(core, native_log_module_id,
                          "threads " + p.resource + "/" + std::to_string(t.tid) + " " + t.name)
          .integer(c::tid, t.tid)
          .integer(c::samples, count(t.samples))
          .integer(c::blocks, count(t.blocks))
          .integer(c::runs, count(t.runs))
          .integer(c::waits, count(t.waits))
          .integer(c::ios, count(t.ios))
          .integer(c::sleeps, count(t.sleeps))
          .add();
  }
  // The call paths last: when the module's grant runs out, the profile is in already.
  for (auto& p : processes)
    for (auto& phase : p.flame)
      for (auto& path : phase.paths)
        log_counters_record(core, native_log_module_id,
                            native_stack_record_name(p.profile.pid, phase.phase, path.state,
                                                     path.path))
            .integer("count", count(path.count))
            .add();
  for (auto& [name, a] : functions)
    log_counters_record(core, native_log_module_id, "profile " + name)
        .integer(c::total, count(a.total))
        .integer(c::base, count(a.base))
        .integer(types::prefix + a.type, 1)
        .add();
}

void register_native_log_printer() {
  add_log_module_printer(default_log_printers(), native_log_module_id);
}

}  // namespace perfdm
