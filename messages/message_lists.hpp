// The request, reply and event types of the command language, listed once: the XML codec
// prints and parses exactly these, and the TCP gateway awaits exactly these replies. A type
// added to the vocabulary is added here, and both follow.
#pragma once

#include "messages/callgraph_messages.hpp"
#include "messages/dm_messages.hpp"
#include "messages/evidence_messages.hpp"
#include "messages/flame_messages.hpp"
#include "messages/native_messages.hpp"
#include "messages/process_command_messages.hpp"
#include "messages/process_messages.hpp"
#include "messages/search_messages.hpp"
#include "messages/topology_messages.hpp"

namespace perfdm {

template <class... Ts>
struct type_list {};

using request_types =
    type_list<define_metric, define_resource, list_metrics, list_resources, list_phases,
              status_query, samplerate_query, open_stream, close_stream, enable_request,
              disable_request, flags_request, start_phase, samples_request, data_request,
              write_log, attach_request, detach_request, list_processes, frames_stats_query,
              ping, who_request, watch_request, unwatch_request, profile_request,
              stacks_request, search_request, shg_request, callgraph_request,
              findings_request, evidence_note, topology_query>;
// The requests about observed processes: the data manager passes each to its process
// registry, which answers it (docs/PROTOCOL.md). A new process request is listed here.
// CALLGRAPH is not: of every process it asks the daemons too (data_manager_actor.cpp).
using process_request_types =
    type_list<attach_request, detach_request, list_processes, frames_stats_query,
              process_command, watch_request, unwatch_request, profile_request, stacks_request>;
using reply_types = type_list<metric_info, resource_info, phase_info, metric_list, resource_list,
                              phase_list, stream_opened, ok_reply, samples_ack, mi_info,
                              histogram_data, status_info, samplerate_info, log_written,
                              process_info, process_list, frames_stats, pong, who_reply,
                              cpu_profile_report, stacks_report, process_command_reply,
                              search_info, shg_reply, callgraph_report, findings_reply,
                              flamegraph_report, timeline_report, topology_reply>;
using event_types = type_list<data_event, fold_event, new_phase_event, samplerate_event,
                              new_metric_event, new_resource_event, component_removed_event,
                              component_added_event, shg_node_event>;

}  // namespace perfdm
