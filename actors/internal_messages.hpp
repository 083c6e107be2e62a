// Messages between the engine's own actors (data manager, metric instances, streams,
// phase manager, sampling-interval controller). Clients never see them; they speak the
// vocabulary of messages/dm_messages.hpp.
#pragma once

#include <string>
#include <vector>

#include <caf/actor.hpp>

#include "dm/metric_instance_state.hpp"
#include "dm/sampling_interval_rules.hpp"
#include "messages/dm_messages.hpp"
#include "messages/inspect_macros.hpp"

namespace perfdm {

// ---- data manager -> metric instance ----
struct mi_enable {
  stream_handle stream;
  caf::actor stream_actor;
  phase_type type = phase_type::global;
  persistence flags;
  time_bases bases;
};
PERFDM_INSPECT(mi_enable, x.stream, x.stream_actor, x.type, x.flags, x.bases)
struct mi_disable {
  stream_handle stream;
  phase_type type = phase_type::global;
};
PERFDM_INSPECT(mi_disable, x.stream, x.type)
struct mi_drop_stream {
  stream_handle stream;
};
PERFDM_INSPECT(mi_drop_stream, x.stream)
struct mi_flags {
  persistence named;
  bool set = true;
};
PERFDM_INSPECT(mi_flags, x.named, x.set)
struct mi_new_phase {
  phase_handle old_phase;
  time_bases bases;
};
PERFDM_INSPECT(mi_new_phase, x.old_phase, x.bases)
struct raw_sample {
  time_ns start = 0;
  time_ns end = 0;
  double value = 0;
};
PERFDM_INSPECT(raw_sample, x.start, x.end, x.value)
struct mi_samples {
  std::vector<raw_sample> samples;
};
PERFDM_INSPECT(mi_samples, x.samples)
struct mi_fold {
  time_ns start = 0;
  time_ns width = 0;
};
PERFDM_INSPECT(mi_fold, x.start, x.width)
struct mi_sync {};
struct mi_status_query {};
// Which histogram to read: GLOBAL, CURRENT, or the archive of `archived`.
struct mi_data {
  phase_type type = phase_type::global;
  bool archive = false;
  phase_handle archived;
};
PERFDM_INSPECT(mi_data, x.type, x.archive, x.archived)
PERFDM_INSPECT_EMPTY(mi_status_query)
PERFDM_INSPECT_EMPTY(mi_sync)

// ---- metric instance -> performance stream ----
struct stream_data {
  std::vector<data_value> values;
};
PERFDM_INSPECT(stream_data, x.values)
// ---- data manager -> performance stream ----
struct stream_flush {};

// ---- data manager -> phase manager ----
struct pm_start {
  std::string name;
  time_ns now = 0;
  time_ns global_width = 0;
};
PERFDM_INSPECT(pm_start, x.name, x.now, x.global_width)
PERFDM_INSPECT_EMPTY(stream_flush)
struct pm_started {
  phase_handle old_phase;
  phase_info phase;
  time_ns start = 0;
  time_ns width = 0;
};
PERFDM_INSPECT(pm_started, x.old_phase, x.phase, x.start, x.width)

// ---- data manager -> sampling-interval controller ----
struct si_subscribe {
  stream_handle stream;
  caf::actor stream_actor;
};
PERFDM_INSPECT(si_subscribe, x.stream, x.stream_actor)
struct si_unsubscribe {
  stream_handle stream;
};
PERFDM_INSPECT(si_unsubscribe, x.stream)
struct si_fold {
  bool global_base = false;   // the global histograms folded
  bool current_base = false;  // the current phase's histograms folded
  time_ns width = 0;
  collection_view after;
};
PERFDM_INSPECT(si_fold, x.global_base, x.current_base, x.width, x.after)
struct si_new_phase {
  collection_view after;
};
PERFDM_INSPECT(si_new_phase, x.after)
struct si_enable {
  phase_type type = phase_type::global;
  collection_view before;
  collection_view after;
};
PERFDM_INSPECT(si_enable, x.type, x.before, x.after)
struct si_disable {
  collection_view before;
  collection_view after;
};
PERFDM_INSPECT(si_disable, x.before, x.after)

PERFDM_INSPECT(time_bases, x.global_width, x.current_phase, x.current_start, x.current_width)
PERFDM_INSPECT(collection_view, x.current_subscriptions, x.global_subscriptions,
               x.current_histogram_active, x.any_persistent_collection, x.any_active,
               x.global_width, x.current_width)

}  // namespace perfdm
