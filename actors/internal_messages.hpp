// Messages between the engine's own actors (data manager, metric instances, streams,
// phase manager, sampling-interval controller). Clients never see them; they speak the
// vocabulary of messages/dm_messages.hpp.
#pragma once

#include <caf/actor.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>
#include <string>
#include <vector>

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

// The metric instance's interface: every state change answers with the summary the data
// manager mirrors (a deleted MI answers once more and ends); samples need no answer, a sync
// answers once the values they completed were sent to the streams.
using metric_instance_actor_type = caf::typed_actor<
    caf::replies_to<mi_enable>::with<mi_summary>, caf::replies_to<mi_disable>::with<mi_summary>,
    caf::replies_to<mi_drop_stream>::with<mi_summary>, caf::replies_to<mi_flags>::with<mi_summary>,
    caf::replies_to<mi_new_phase>::with<mi_summary>, caf::replies_to<mi_fold>::with<mi_summary>,
    caf::reacts_to<mi_samples>, caf::replies_to<mi_sync>::with<ok_reply>,
    caf::replies_to<mi_status_query>::with<mi_status>,
    caf::replies_to<mi_data>::with<histogram_data>>;

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

// The phase manager's interface: where a new phase starts (C2, B6), and the list of phases.
using phase_manager_actor_type = caf::typed_actor<caf::replies_to<pm_start>::with<pm_started>,
                                                  caf::replies_to<list_phases>::with<phase_list>>;

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

// The sampling-interval controller's interface: each rule answers with the interval in force
// once the streams heard of any change (S1-S5).
using sampling_interval_actor_type =
    caf::typed_actor<caf::reacts_to<si_subscribe>, caf::reacts_to<si_unsubscribe>,
                     caf::replies_to<si_fold>::with<samplerate_info>,
                     caf::replies_to<si_new_phase>::with<samplerate_info>,
                     caf::replies_to<si_enable>::with<samplerate_info>,
                     caf::replies_to<si_disable>::with<samplerate_info>,
                     caf::replies_to<samplerate_query>::with<samplerate_info>>;

PERFDM_INSPECT(time_bases, x.global_width, x.current_phase, x.current_start, x.current_width)
PERFDM_INSPECT(collection_view, x.current_subscriptions, x.global_subscriptions,
               x.current_histogram_active, x.any_persistent_collection, x.any_active,
               x.global_width, x.current_width)

}  // namespace perfdm
