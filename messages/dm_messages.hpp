// The Data Manager's message vocabulary: one struct per request, reply and stream event.
// Every struct has inspect() so it can be printed and cross a network connection once
// registered (see type_registry.hpp). The XML codec (xml_codec.hpp) maps the command
// language of PROTOCOL.md onto exactly these structs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/meta/type_name.hpp>

#include "messages/dm_types.hpp"
#include "messages/handles.hpp"
#include "messages/inspect_macros.hpp"

namespace perfdm {

// ---- descriptions of DM objects (also used as replies) ----

struct metric_info {
  metric_handle id;
  std::string name;
  metric_style style = metric_style::counter;
  std::string units;
};
PERFDM_INSPECT(metric_info, x.id, x.name, x.style, x.units)

struct resource_info {
  resource_handle id;
  std::string name;
  std::string parent;  // empty for the root "/"
};
PERFDM_INSPECT(resource_info, x.id, x.name, x.parent)

struct phase_info {
  phase_handle id;
  std::string name;
  double start = 0;
  double end = -1;  // -1 while the phase is current
  double width = 0;
};
PERFDM_INSPECT(phase_info, x.id, x.name, x.start, x.end, x.width)

struct mi_info {
  mi_handle id;
  std::string metric;
  std::string focus;  // resource names joined by ','
  persistence flags;
  mi_state state = mi_state::active;
};
PERFDM_INSPECT(mi_info, x.id, x.metric, x.focus, x.flags, x.state)

// GLOBAL, CURRENT, or an explicit phase handle (archive lookups, rule E5 checks).
struct phase_ref {
  phase_type type = phase_type::global;
  bool named = false;  // true: `id` names a phase
  phase_handle id;
};
PERFDM_INSPECT(phase_ref, x.type, x.named, x.id)

struct sample {
  mi_handle mi;
  double start = 0;
  double end = 0;
  double value = 0;
};
PERFDM_INSPECT(sample, x.mi, x.start, x.end, x.value)

// ---- requests (target DM) ----

struct define_metric {
  std::string name;
  metric_style style = metric_style::counter;
  std::string units;
};
PERFDM_INSPECT(define_metric, x.name, x.style, x.units)
struct define_resource {
  std::string name;
};
PERFDM_INSPECT(define_resource, x.name)
struct list_metrics {};
struct list_resources {};
struct list_phases {};
struct status_query {};
struct samplerate_query {};
// `sink` receives the stream's events; it is the connection (or replay printer) that opened it.
struct open_stream {
  caf::actor sink;
};
PERFDM_INSPECT(open_stream, x.sink)
PERFDM_INSPECT_EMPTY(samplerate_query)
PERFDM_INSPECT_EMPTY(status_query)
PERFDM_INSPECT_EMPTY(list_phases)
PERFDM_INSPECT_EMPTY(list_resources)
PERFDM_INSPECT_EMPTY(list_metrics)
struct close_stream {
  stream_handle stream;
};
PERFDM_INSPECT(close_stream, x.stream)
struct enable_request {
  stream_handle stream;
  std::string metric;
  std::vector<std::string> focus;  // resource names; empty means "/"
  phase_ref phase;
  persistence flags;
};
PERFDM_INSPECT(enable_request, x.stream, x.metric, x.focus, x.phase, x.flags)
struct disable_request {
  stream_handle stream;
  mi_handle mi;
  phase_type phase = phase_type::global;
};
PERFDM_INSPECT(disable_request, x.stream, x.mi, x.phase)
// SETFLAGS (set = true) or CLEARFLAGS (set = false) of the flags named true in `named`.
struct flags_request {
  mi_handle mi;
  persistence named;
  bool set = true;
};
PERFDM_INSPECT(flags_request, x.mi, x.named, x.set)
struct start_phase {
  std::string name;  // empty: phase_<id>
};
PERFDM_INSPECT(start_phase, x.name)
struct samples_request {
  std::vector<sample> samples;
};
PERFDM_INSPECT(samples_request, x.samples)
struct data_request {
  mi_handle mi;
  phase_ref phase;
};
PERFDM_INSPECT(data_request, x.mi, x.phase)
// LOG: write the self-describing log now. An empty file means the front end's default.
struct write_log {
  std::string file;
};
PERFDM_INSPECT(write_log, x.file)
// PING (target DM): is the engine alive? Answered with pong.
struct ping {};
// WHO (any target, PID optional as in DyPer): which processes are known.
struct who_request {};

// ---- replies ----

struct ok_reply {};
struct stream_opened {
  stream_handle stream;
};
PERFDM_INSPECT(stream_opened, x.stream)
PERFDM_INSPECT_EMPTY(ok_reply)
PERFDM_INSPECT_EMPTY(who_request)
PERFDM_INSPECT_EMPTY(ping)
struct metric_list {
  std::vector<metric_info> metrics;
};
PERFDM_INSPECT(metric_list, x.metrics)
struct resource_list {
  std::vector<resource_info> resources;
};
PERFDM_INSPECT(resource_list, x.resources)
struct phase_list {
  std::vector<phase_info> phases;
};
PERFDM_INSPECT(phase_list, x.phases)
struct samples_ack {
  std::uint64_t count = 0;
  std::uint64_t dropped = 0;
};
PERFDM_INSPECT(samples_ack, x.count, x.dropped)
struct histogram_data {
  mi_handle mi;
  double start = 0;
  double width = 0;
  std::uint32_t nbins = 1000;
  std::vector<double> values;  // buckets 0..LAST; LAST = values.size() - 1
};
PERFDM_INSPECT(histogram_data, x.mi, x.start, x.width, x.nbins, x.values)
struct mi_status {
  mi_handle id;
  std::string metric;
  std::string focus;
  std::vector<stream_handle> global_users;
  std::vector<stream_handle> current_users;
  persistence flags;
  bool collecting = false;
  bool has_global = false;
  bool has_current = false;
  std::vector<phase_handle> archived;
};
PERFDM_INSPECT(mi_status, x.id, x.metric, x.focus, x.global_users, x.current_users, x.flags,
               x.collecting, x.has_global, x.has_current, x.archived)
struct status_info {
  double now = 0;
  double interval = 0;
  phase_handle phase;
  std::vector<mi_status> mis;
  std::vector<std::string> components;  // live component sources (daemons), by name
};
PERFDM_INSPECT(status_info, x.now, x.interval, x.phase, x.mis, x.components)
struct samplerate_info {
  double interval = 0;
};
PERFDM_INSPECT(samplerate_info, x.interval)
struct log_written {
  std::string file;
  std::uint64_t bytes = 0;
};
PERFDM_INSPECT(log_written, x.file, x.bytes)
struct pong {};

// ---- stream events (rule T1) ----

struct data_value {
  mi_handle mi;
  phase_type phase = phase_type::global;
  std::uint32_t bucket = 0;
  double value = 0;
};
PERFDM_INSPECT(data_value, x.mi, x.phase, x.bucket, x.value)
PERFDM_INSPECT_EMPTY(pong)
struct data_event {
  stream_handle stream;
  std::vector<data_value> values;
};
PERFDM_INSPECT(data_event, x.stream, x.values)
struct fold_event {
  stream_handle stream;
  phase_type phase = phase_type::global;
  double width = 0;
};
PERFDM_INSPECT(fold_event, x.stream, x.phase, x.width)
struct new_phase_event {
  stream_handle stream;
  phase_info phase;
};
PERFDM_INSPECT(new_phase_event, x.stream, x.phase)
struct samplerate_event {
  stream_handle stream;
  double interval = 0;
};
PERFDM_INSPECT(samplerate_event, x.stream, x.interval)
struct new_metric_event {
  stream_handle stream;
  metric_info metric;
};
PERFDM_INSPECT(new_metric_event, x.stream, x.metric)
struct new_resource_event {
  stream_handle stream;
  resource_info resource;
};
PERFDM_INSPECT(new_resource_event, x.stream, x.resource)
// A component source (a daemon) went down or unregistered: the metric instances' data
// continues from the other components; what it sent is kept. `relay` empty: a component of
// the engine itself; otherwise the component was a child of a relay, and `relay` is the path
// of relay names from the engine down to that relay, joined by '/'.
struct component_removed_event {
  stream_handle stream;
  std::string name;
  std::string relay = {};
};
PERFDM_INSPECT(component_removed_event, x.stream, x.name, x.relay)
// A component source registered (a daemon or relay; one that took over from a relay that went
// down): its data joins the metric instances' from its first sample.
struct component_added_event {
  stream_handle stream;
  std::string name;
  std::string relay = {};  // below relays: their path from the engine down, "a/b"
};
PERFDM_INSPECT(component_added_event, x.stream, x.name, x.relay)

}  // namespace perfdm
