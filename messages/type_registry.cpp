#include "messages/type_registry.hpp"

#include "messages/callgraph_messages.hpp"
#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/engine_counters_messages.hpp"
#include "messages/evidence_messages.hpp"
#include "messages/flame_messages.hpp"
#include "messages/native_messages.hpp"
#include "messages/process_command_messages.hpp"
#include "messages/process_messages.hpp"
#include "messages/record_messages.hpp"
#include "messages/search_messages.hpp"
#include "messages/source_messages.hpp"
#include "messages/topology_messages.hpp"

namespace perfdm {

void register_message_types(caf::actor_system_config& cfg) {
#define PERFDM_REGISTER(type) cfg.add_message_type<type>(#type)
  PERFDM_REGISTER(metric_handle);
  PERFDM_REGISTER(resource_handle);
  PERFDM_REGISTER(focus_handle);
  PERFDM_REGISTER(phase_handle);
  PERFDM_REGISTER(mi_handle);
  PERFDM_REGISTER(stream_handle);
  PERFDM_REGISTER(persistence);
  PERFDM_REGISTER(metric_info);
  PERFDM_REGISTER(resource_info);
  PERFDM_REGISTER(phase_info);
  PERFDM_REGISTER(mi_info);
  PERFDM_REGISTER(phase_ref);
  PERFDM_REGISTER(sample);
  PERFDM_REGISTER(std::vector<sample>);
  PERFDM_REGISTER(define_metric);
  PERFDM_REGISTER(define_resource);
  PERFDM_REGISTER(list_metrics);
  PERFDM_REGISTER(list_resources);
  PERFDM_REGISTER(list_phases);
  PERFDM_REGISTER(status_query);
  PERFDM_REGISTER(samplerate_query);
  PERFDM_REGISTER(open_stream);
  PERFDM_REGISTER(close_stream);
  PERFDM_REGISTER(enable_request);
  PERFDM_REGISTER(disable_request);
  PERFDM_REGISTER(flags_request);
  PERFDM_REGISTER(start_phase);
  PERFDM_REGISTER(samples_request);
  PERFDM_REGISTER(data_request);
  PERFDM_REGISTER(write_log);
  PERFDM_REGISTER(log_written);
  PERFDM_REGISTER(ping);
  PERFDM_REGISTER(pong);
  PERFDM_REGISTER(who_request);
  PERFDM_REGISTER(process_info);
  PERFDM_REGISTER(process_list);
  PERFDM_REGISTER(ok_reply);
  PERFDM_REGISTER(stream_opened);
  PERFDM_REGISTER(metric_list);
  PERFDM_REGISTER(resource_list);
  PERFDM_REGISTER(phase_list);
  PERFDM_REGISTER(samples_ack);
  PERFDM_REGISTER(histogram_data);
  PERFDM_REGISTER(mi_status);
  PERFDM_REGISTER(status_info);
  PERFDM_REGISTER(samplerate_info);
  PERFDM_REGISTER(data_value);
  PERFDM_REGISTER(data_event);
  PERFDM_REGISTER(fold_event);
  PERFDM_REGISTER(new_phase_event);
  PERFDM_REGISTER(samplerate_event);
  PERFDM_REGISTER(new_metric_event);
  PERFDM_REGISTER(new_resource_event);
  PERFDM_REGISTER(component_removed_event);
  PERFDM_REGISTER(component_added_event);
  PERFDM_REGISTER(search_request);
  PERFDM_REGISTER(search_info);
  PERFDM_REGISTER(shg_request);
  PERFDM_REGISTER(shg_node_info);
  PERFDM_REGISTER(std::vector<shg_node_info>);
  PERFDM_REGISTER(shg_reply);
  PERFDM_REGISTER(shg_node_event);
  PERFDM_REGISTER(findings_request);
  PERFDM_REGISTER(finding_info);
  PERFDM_REGISTER(std::vector<finding_info>);
  PERFDM_REGISTER(findings_reply);
  PERFDM_REGISTER(evidence_counts);
  PERFDM_REGISTER(std::vector<evidence_counts>);
  PERFDM_REGISTER(evidence_focus);
  PERFDM_REGISTER(std::vector<evidence_focus>);
  PERFDM_REGISTER(evidence_call);
  PERFDM_REGISTER(std::vector<evidence_call>);
  PERFDM_REGISTER(evidence_note);
  PERFDM_REGISTER(window_query);
  PERFDM_REGISTER(window_answer);
  PERFDM_REGISTER(std::vector<window_answer>);
  PERFDM_REGISTER(window_answers);
  PERFDM_REGISTER(topology_query);
  PERFDM_REGISTER(topology_node);
  PERFDM_REGISTER(std::vector<topology_node>);
  PERFDM_REGISTER(topology_reply);
  PERFDM_REGISTER(topology_probe);
  PERFDM_REGISTER(collecting_mi);
  PERFDM_REGISTER(std::vector<collecting_mi>);
  PERFDM_REGISTER(source_update);
  PERFDM_REGISTER(source_register);
  PERFDM_REGISTER(upstream_info);
  PERFDM_REGISTER(samples_safe);
  PERFDM_REGISTER(source_unregister);
  PERFDM_REGISTER(subtree_component_gone);
  PERFDM_REGISTER(subtree_component_joined);
  PERFDM_REGISTER(source_samples);
  PERFDM_REGISTER(attach_request);
  PERFDM_REGISTER(detach_request);
  PERFDM_REGISTER(list_processes);
  PERFDM_REGISTER(field_summary);
  PERFDM_REGISTER(frame_type_stats);
  PERFDM_REGISTER(frames_stats_query);
  PERFDM_REGISTER(frames_stats);
  PERFDM_REGISTER(engine_counters_query);
  PERFDM_REGISTER(engine_counters);
  PERFDM_REGISTER(who_reply);
  PERFDM_REGISTER(watch_request);
  PERFDM_REGISTER(unwatch_request);
  PERFDM_REGISTER(profile_request);
  PERFDM_REGISTER(stacks_request);
  PERFDM_REGISTER(callgraph_request);
  PERFDM_REGISTER(callgraph_report);
  PERFDM_REGISTER(profile_entry);
  PERFDM_REGISTER(thread_state_entry);
  PERFDM_REGISTER(cpu_profile_report);
  PERFDM_REGISTER(stack_entry);
  PERFDM_REGISTER(thread_entry);
  PERFDM_REGISTER(stacks_report);
  PERFDM_REGISTER(process_command);
  PERFDM_REGISTER(process_command_reply);
  PERFDM_REGISTER(process_announcements);
  PERFDM_REGISTER(process_announcement);
  PERFDM_REGISTER(flamegraph_request);
  PERFDM_REGISTER(flame_path_entry);
  PERFDM_REGISTER(flamegraph_report);
  PERFDM_REGISTER(timeline_request);
  PERFDM_REGISTER(timeline_run_entry);
  PERFDM_REGISTER(timeline_thread_entry);
  PERFDM_REGISTER(timeline_report);
  PERFDM_REGISTER(flame_export_request);
  PERFDM_REGISTER(flame_phase_entry);
  PERFDM_REGISTER(flame_export);
  PERFDM_REGISTER(record_origin);
  PERFDM_REGISTER(record_unsent);
#undef PERFDM_REGISTER
  cfg.add_error_category(dm_error_category, [](std::uint8_t code, caf::atom_value,
                                               const caf::message& ctx) {
    std::string out = error_code_name(static_cast<dm_error>(code));
    if (ctx.match_elements<std::string>()) out += ": " + ctx.get_as<std::string>(0);
    return out;
  });
}

}  // namespace perfdm
