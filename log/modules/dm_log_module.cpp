#include "log/modules/dm_log_module.hpp"

#include <cmath>

#include "log/log_counters.hpp"
#include "log/log_counters_record.hpp"
#include "log/log_print.hpp"
#include "messages/xml_codec.hpp"

namespace perfdm {

namespace {

// The records of this module.
struct record : log_counters_record {
  record(log_core& core, const std::string& name)
      : log_counters_record(core, dm_log_module_id, name) {}
};

}  // namespace

void add_dm_module(log_core& core, const dm_snapshot& s, std::size_t requested_bytes) {
  core.register_module(dm_log_module_name, dm_log_module_id, dm_log_module_version,
                       requested_bytes);
  for (auto& m : s.metrics)
    record(core, "metric " + m.name + (m.units.empty() ? "" : " [" + m.units + "]"))
        .integer("id", static_cast<std::int64_t>(m.id.id))
        .integer("sampled", m.style == metric_style::sampled)
        .add();
  for (auto& r : s.resources)
    record(core, "resource " + r.name).integer("id", static_cast<std::int64_t>(r.id.id)).add();
  for (auto& p : s.phases)
    record(core, "phase " + to_string(p.id) + " " + p.name)
        .integer("id", static_cast<std::int64_t>(p.id.id))
        .real("start", p.start)
        .real("end", p.end)
        .real("width", p.width)
        .add();
  record(core, "engine")
      .real("now", s.status.now)
      .real("sampling_interval", s.status.interval)
      .integer("current_phase", static_cast<std::int64_t>(s.status.phase.id))
      .add();
  for (auto& mi : s.status.mis)
    record(core, "mi " + to_string(mi.id) + " " + mi.metric + " " + mi.focus)
        .integer("id", static_cast<std::int64_t>(mi.id.id))
        .integer("persistent_data", mi.flags.data)
        .integer("persistent_collection", mi.flags.collection)
        .integer("phase_persistent_data", mi.flags.phase_data)
        .integer("collecting", mi.collecting)
        .integer("global_users", static_cast<std::int64_t>(mi.global_users.size()))
        .integer("current_users", static_cast<std::int64_t>(mi.current_users.size()))
        .integer("archived_phases", static_cast<std::int64_t>(mi.archived.size()))
        .add();
  for (auto& h : s.histograms) {
    record r(core, "histogram " + to_string(h.data.mi) + " " + h.which);
    r.integer("mi", static_cast<std::int64_t>(h.data.mi.id))
        .real("start", h.data.start)
        .real("width", h.data.width)
        .integer("last", static_cast<std::int64_t>(h.data.values.size()) - 1);
    // Buckets without data (NaN) are left out: a reader takes a missing bucket as no data.
    for (std::size_t i = 0; i < h.data.values.size(); ++i)
      if (!std::isnan(h.data.values[i])) r.real("bucket." + std::to_string(i), h.data.values[i]);
    r.add();
  }
}

void register_dm_log_printer() {
  add_log_module_printer(default_log_printers(), dm_log_module_id);
}

}  // namespace perfdm
