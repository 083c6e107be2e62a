#include "log/modules/frames_log_module.hpp"

#include "log/log_counters_record.hpp"

namespace perfdm {

void add_frames_module(log_core& core, const frames_stats& stats, std::size_t requested_bytes) {
  core.register_module(frames_log_module_name, frames_log_module_id, frames_log_module_version,
                       requested_bytes);
  // The reduction is set before any record: sums, but the pid is one value and the
  // minima and maxima stay minima and maxima.
  log_counters_reduction how;
  how.set("pid", log_reduce_op::max);
  for (auto& t : stats.frame_types)
    for (auto& f : t.fields)
      how.set("field." + f.name + ".min", log_reduce_op::min)
          .set("field." + f.name + ".max", log_reduce_op::max);
  core.set_counters_reduction(frames_log_module_id, how);
  for (auto& t : stats.frame_types) {
    log_counters_record r(core, frames_log_module_id, "frames " + t.process + "/" + t.frame_type);
    r.integer("pid", t.pid)
        .integer("frames", static_cast<std::int64_t>(t.frames))
        .integer("lost", static_cast<std::int64_t>(t.lost))
        .integer("torn", static_cast<std::int64_t>(t.torn))
        .integer("late", static_cast<std::int64_t>(t.late))
        .integer("no_lane_drops", static_cast<std::int64_t>(t.no_lane_drops));
    for (auto& f : t.fields) {
      const std::string prefix = "field." + f.name + ".";
      r.integer(prefix + "count", static_cast<std::int64_t>(f.count));
      if (f.count == 0) continue;  // no minimum, maximum or sum to speak of
      r.real(prefix + "min", f.min).real(prefix + "max", f.max).real(prefix + "sum", f.sum);
    }
    r.add();
  }
}

void register_frames_log_printer() {
  default_log_printers().add(frames_log_module_id, frames_log_module_name,
                             frames_log_module_version, print_log_counters);
}

}  // namespace perfdm
