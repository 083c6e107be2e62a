#include "log/modules/frames_log_module.hpp"

#include "log/log_counters_record.hpp"

namespace perfdm {

void add_frames_module(log_core& core, const frames_stats& stats, std::size_t requested_bytes) {
  core.register_module(frames_log_module_name, frames_log_module_id, frames_log_module_version,
                       requested_bytes);
  namespace c = frames_log_counters;
  namespace fc = frames_log_field_counters;
  // The reduction is set before any record.
  log_counters_reduction how;
  add_log_counters_reduction(how, c::list);
  for (auto& t : stats.frame_types)
    for (auto& f : t.fields) add_log_counters_reduction(how, fc::list, "field." + f.name + ".");
  core.set_counters_reduction(frames_log_module_id, how);
  for (auto& t : stats.frame_types) {
    log_counters_record r(core, frames_log_module_id, "frames " + t.process + "/" + t.frame_type);
    r.integer(c::pid, t.pid)
        .integer(c::frames, static_cast<std::int64_t>(t.frames))
        .integer(c::lost, static_cast<std::int64_t>(t.lost))
        .integer(c::torn, static_cast<std::int64_t>(t.torn))
        .integer(c::late, static_cast<std::int64_t>(t.late))
        .integer(c::no_lane_drops, static_cast<std::int64_t>(t.no_lane_drops));
    for (auto& f : t.fields) {
      const std::string prefix = "field." + f.name + ".";
      r.integer(fc::count.under(prefix), static_cast<std::int64_t>(f.count));
      if (f.count == 0) continue;  // no minimum, maximum or sum to speak of
      r.real(fc::min.under(prefix), f.min)
          .real(fc::max.under(prefix), f.max)
          .real(fc::sum.under(prefix), f.sum);
    }
    r.add();
  }
}

void register_frames_log_printer() {
  add_log_module_printer(default_log_printers(), frames_log_module_id);
}

}  // namespace perfdm
