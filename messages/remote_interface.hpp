// The typed actor interface an engine publishes (`perfdm engine --publish`): every request of
// the command language with the reply it gets, and the data-source protocol, so that remote
// clients (`perfdm client`) and per-node daemons (which register upstream as data sources)
// talk to one handle. CAF's remote_actor<remote_dm_actor> compares this interface with the
// published one and refuses a peer built with a different one.
//
// The list is generated from request_types (messages/message_lists.hpp): a request added
// there fails to compile here until its reply is named below, so the interface follows the
// vocabulary. A failure is never a reply type: it arrives as a caf::error (dm_error codes).
#pragma once

#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "messages/message_lists.hpp"
#include "messages/source_messages.hpp"

namespace perfdm {

// The reply of a successful `Request`.
template <class Request>
struct reply_of;  // no definition: a request without a reply named here does not compile

#define PERFDM_REPLY_OF(request, reply) \
  template <>                           \
  struct reply_of<request> {            \
    using type = reply;                 \
  };
PERFDM_REPLY_OF(define_metric, metric_info)
PERFDM_REPLY_OF(define_resource, resource_info)
PERFDM_REPLY_OF(list_metrics, metric_list)
PERFDM_REPLY_OF(list_resources, resource_list)
PERFDM_REPLY_OF(list_phases, phase_list)
PERFDM_REPLY_OF(status_query, status_info)
PERFDM_REPLY_OF(samplerate_query, samplerate_info)
PERFDM_REPLY_OF(open_stream, stream_opened)
PERFDM_REPLY_OF(close_stream, ok_reply)
PERFDM_REPLY_OF(enable_request, mi_info)
PERFDM_REPLY_OF(disable_request, mi_info)
PERFDM_REPLY_OF(flags_request, mi_info)
PERFDM_REPLY_OF(start_phase, phase_info)
PERFDM_REPLY_OF(samples_request, samples_ack)
PERFDM_REPLY_OF(data_request, histogram_data)
PERFDM_REPLY_OF(write_log, log_written)
PERFDM_REPLY_OF(attach_request, process_info)
PERFDM_REPLY_OF(detach_request, process_info)
PERFDM_REPLY_OF(list_processes, process_list)
PERFDM_REPLY_OF(frames_stats_query, frames_stats)
PERFDM_REPLY_OF(ping, pong)
PERFDM_REPLY_OF(who_request, who_reply)
PERFDM_REPLY_OF(watch_request, process_info)
PERFDM_REPLY_OF(unwatch_request, process_info)
PERFDM_REPLY_OF(profile_request, cpu_profile_report)
PERFDM_REPLY_OF(stacks_request, stacks_report)
PERFDM_REPLY_OF(search_request, search_info)
PERFDM_REPLY_OF(shg_request, shg_reply)
PERFDM_REPLY_OF(callgraph_request, callgraph_report)
PERFDM_REPLY_OF(findings_request, findings_reply)
PERFDM_REPLY_OF(evidence_note, ok_reply)
PERFDM_REPLY_OF(topology_query, topology_reply)
// DyPer's per-process commands and DYPATCH (targets other than DM in the XML).
PERFDM_REPLY_OF(process_command, process_command_reply)
// The data-source protocol (messages/source_messages.hpp). The data manager itself answers
// nothing to (un)registering; across the network the bridge acknowledges, so a daemon knows
// its registration arrived. The source_update follows as a message to the source.
PERFDM_REPLY_OF(source_register, ok_reply)
PERFDM_REPLY_OF(source_unregister, ok_reply)
PERFDM_REPLY_OF(source_samples, samples_ack)
PERFDM_REPLY_OF(subtree_component_gone, ok_reply)
PERFDM_REPLY_OF(subtree_component_joined, ok_reply)
#undef PERFDM_REPLY_OF

template <class Request>
using reply_of_t = typename reply_of<Request>::type;

// A handle that accepts `Request` and answers reply_of_t<Request>.
template <class Request>
using replies_with_t = typename caf::replies_to<Request>::template with<reply_of_t<Request>>;

// The requests of the published interface beyond the XML vocabulary's request_types.
using remote_extra_requests =
    type_list<process_command, source_register, source_unregister, source_samples,
              subtree_component_gone, subtree_component_joined>;

namespace detail {
template <class... Lists>
struct remote_interface;
template <class... Rs, class... Es>
struct remote_interface<type_list<Rs...>, type_list<Es...>> {
  using type = caf::typed_actor<replies_with_t<Rs>..., replies_with_t<Es>...>;
};
}  // namespace detail

// What `perfdm engine --publish` publishes.
using remote_dm_actor =
    typename detail::remote_interface<request_types, remote_extra_requests>::type;

}  // namespace perfdm
