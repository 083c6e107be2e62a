// The message structs of dm_messages.hpp -> the XML command language of PROTOCOL.md.
//
// One small function per struct builds its element with `element` below, which quotes with
// single quotes, escapes values and writes numbers via format_number(), so all output shares
// one canonical form.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "messages/callgraph_messages.hpp"
#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/message_lists.hpp"
#include "messages/native_messages.hpp"
#include "messages/process_command_messages.hpp"
#include "messages/process_messages.hpp"
#include "messages/search_messages.hpp"
#include "messages/xml_codec.hpp"
#include "messages/xml_element.hpp"
#include "messages/xml_evidence.hpp"
#include "messages/xml_print_process_reports.hpp"
#include "messages/xml_print_topology.hpp"
#include "messages/xml_text.hpp"

namespace perfdm {

using namespace xml;

namespace {

std::string escaped(std::string_view s) {
  return xml_escaped(s);
}

std::string ids(const std::vector<stream_handle>& xs) {
  return join(xs, " ", [](stream_handle h) { return std::to_string(h.id); });
}
std::string ids(const std::vector<phase_handle>& xs) {
  return join(xs, " ", [](phase_handle h) { return std::to_string(h.id); });
}

std::string phase_text(const phase_ref& p) {
  return p.named ? std::to_string(p.id.id) : to_string(p.type);
}

// ---- requests: the command name and its argument element ("" for none) ----

struct printed_request {
  const char* command;
  std::string argument;
};

printed_request request_parts(const define_metric& x) {
  return {"DEFINE", element("METRIC")
                        .text("NAME", x.name)
                        .text("STYLE", to_string(x.style))
                        .text("UNITS", x.units)
                        .leaf()};
}
printed_request request_parts(const define_resource& x) {
  return {"DEFINE", element("RESOURCE").text("NAME", x.name).leaf()};
}
printed_request request_parts(const list_metrics&) {
  return {"METRICS", ""};
}
printed_request request_parts(const list_resources&) {
  return {"RESOURCES", ""};
}
printed_request request_parts(const list_phases&) {
  return {"PHASES", ""};
}
printed_request request_parts(const status_query&) {
  return {"STATUS", ""};
}
printed_request request_parts(const topology_query&) {
  return {"TOPOLOGY", ""};
}
printed_request request_parts(const samplerate_query&) {
  return {"SAMPLERATE", ""};
}
printed_request request_parts(const open_stream&) {
  return {"STREAM", ""};
}
printed_request request_parts(const close_stream& x) {
  return {"CLOSE", element("STREAM").id("ID", x.stream).leaf()};
}
printed_request request_parts(const enable_request& x) {
  // An empty focus means "/" (dm_messages.hpp); it reads back as {"/"}.
  auto focus = x.focus.empty() ? std::string("/")
                               : join(x.focus, ",", [](const std::string& s) { return s; });
  return {"ENABLE", element("ENABLE")
                        .id("STREAM", x.stream)
                        .text("METRIC", x.metric)
                        .text("FOCUS", focus)
                        .text("PHASE", phase_text(x.phase))
                        .flags(x.flags)
                        .leaf()};
}
printed_request request_parts(const disable_request& x) {
  return {"DISABLE", element("DISABLE")
                         .id("STREAM", x.stream)
                         .id("MI", x.mi)
                         .text("PHASE", to_string(x.phase))
                         .leaf()};
}
printed_request request_parts(const flags_request& x) {
  element e("FLAGS");
  e.id("MI", x.mi);
  for (auto& f : flag_attributes)  // only the addressed flags, as the parser expects
    if (x.named.*f.member) e.flag(f.name, true);
  return {x.set ? "SETFLAGS" : "CLEARFLAGS", e.leaf()};
}
printed_request request_parts(const start_phase& x) {
  return {"PHASE", x.name.empty() ? std::string() : element("PHASE").text("NAME", x.name).leaf()};
}
printed_request request_parts(const samples_request& x) {
  return {"SAMPLES", element("SAMPLES").wrap(join(x.samples, "", [](const sample& s) {
            return element("S")
                .id("MI", s.mi)
                .number("START", s.start)
                .number("END", s.end)
                .number("VALUE", s.value)
                .leaf();
          }))};
}
printed_request request_parts(const write_log& x) {
  return {"LOG", x.file.empty() ? std::string() : element("LOG").text("FILE", x.file).leaf()};
}
printed_request request_parts(const attach_request& x) {
  element e("PROCESS");
  e.count("PID", static_cast<std::uint64_t>(x.pid));
  if (!x.schema.empty()) e.text("SCHEMA", x.schema);
  e.flag("FORCE", x.force);
  if (x.lanes) e.count("LANES", x.lanes);
  if (x.capacity) e.count("CAPACITY", x.capacity);
  return {"ATTACH", e.leaf()};
}
printed_request request_parts(const detach_request& x) {
  return {"DETACH", element("PROCESS").count("PID", static_cast<std::uint64_t>(x.pid)).leaf()};
}
printed_request request_parts(const list_processes&) {
  return {"PROCESSES", ""};
}
printed_request request_parts(const frames_stats_query&) {
  return {"FRAMES", ""};
}
printed_request request_parts(const ping&) {
  return {"PING", ""};
}
printed_request request_parts(const who_request&) {
  return {"WHO", ""};
}
printed_request pid_command(const char* command, std::int32_t pid) {
  return {command, element("PROCESS").count("PID", static_cast<std::uint64_t>(pid)).leaf()};
}
printed_request request_parts(const watch_request& x) { return pid_command("WATCH", x.pid); }
printed_request request_parts(const unwatch_request& x) {
  return pid_command("UNWATCH", x.pid);
}
printed_request request_parts(const profile_request& x) {
  return pid_command("PROFILE", x.pid);
}
printed_request request_parts(const stacks_request& x) { return pid_command("STACKS", x.pid); }
printed_request request_parts(const search_request& x) {
  static const char* actions[] = {"START", "PAUSE", "RESUME", "STOP"};
  element e("SEARCH");
  e.text("PHASE", to_string(x.phase)).text("ACTION", actions[static_cast<int>(x.action)]);
  if (x.follow) e.flag("FOLLOW", true);
  for (auto& t : search_tunable_attributes)
    if (auto i = x.tunables.find(t.name); i != x.tunables.end()) e.number(t.name, i->second);
  return {"SEARCH", e.leaf()};
}
printed_request request_parts(const shg_request& x) {
  if (!x.has_search) return {"SHG", ""};
  return {"SHG", element("SHG").count("SEARCH", x.search).leaf()};
}
printed_request request_parts(const findings_request& x) {
  if (!x.has_search) return {"FINDINGS", ""};
  return {"FINDINGS", element("FINDINGS").count("SEARCH", x.search).leaf()};
}
printed_request request_parts(const callgraph_request& x) {
  if (x.pid == 0) return {"CALLGRAPH", ""};
  return pid_command("CALLGRAPH", x.pid);
}
printed_request request_parts(const evidence_note& x) {
  return {"EVIDENCE", evidence_argument(x)};
}
printed_request request_parts(const data_request& x) {
  return {"DATA", element("DATA").id("MI", x.mi).text("PHASE", phase_text(x.phase)).leaf()};
}

// ---- replies: the body inside <DYPER_REPLY> ----

std::string reply_body(const metric_info& x) {
  return element("METRIC")
      .id("ID", x.id)
      .text("NAME", x.name)
      .text("STYLE", to_string(x.style))
      .text("UNITS", x.units)
      .leaf();
}
std::string reply_body(const resource_info& x) {
  return element("RESOURCE").id("ID", x.id).text("NAME", x.name).text("PARENT", x.parent).leaf();
}
std::string reply_body(const phase_info& x) {
  return element("PHASE")
      .id("ID", x.id)
      .text("NAME", x.name)
      .number("START", x.start)
      .number("END", x.end)
      .number("WIDTH", x.width)
      .leaf();
}
std::string reply_body(const metric_list& x) {
  return element("METRICS").wrap(
      join(x.metrics, "", [](const metric_info& m) { return reply_body(m); }));
}
std::string reply_body(const resource_list& x) {
  return element("RESOURCES").wrap(join(x.resources, "", [](const resource_info& r) {
    return reply_body(r);
  }));
}
std::string reply_body(const phase_list& x) {
  return element("PHASES").wrap(
      join(x.phases, "", [](const phase_info& p) { return reply_body(p); }));
}
std::string reply_body(const stream_opened& x) {
  return element("STREAM").id("ID", x.stream).leaf();
}
std::string reply_body(const ok_reply&) {
  return element("OK").leaf();
}
std::string reply_body(const samples_ack& x) {
  return element("OK").count("COUNT", x.count).count("DROPPED", x.dropped).leaf();
}
std::string reply_body(const mi_info& x) {
  return element("MI")
      .id("ID", x.id)
      .text("METRIC", x.metric)
      .text("FOCUS", x.focus)
      .text("STATE", to_string(x.state))
      .flags(x.flags)
      .leaf();
}
std::string reply_body(const histogram_data& x) {
  // LAST is the index of the last bucket, so -1 for no values (signed on purpose).
  auto last = static_cast<long long>(x.values.size()) - 1;
  return element("HISTOGRAM")
      .id("MI", x.mi)
      .number("START", x.start)
      .number("WIDTH", x.width)
      .count("NBINS", x.nbins)
      .text("LAST", std::to_string(last))
      .wrap(join(x.values, " ", [](double v) { return format_number(v); }));
}
std::string reply_body(const status_info& x) {
  auto mi = [](const mi_status& s) {
    std::string histograms = s.has_global ? "GLOBAL" : "";
    if (s.has_current) histograms += histograms.empty() ? "CURRENT" : " CURRENT";
    return element("MI")
        .id("ID", s.id)
        .text("METRIC", s.metric)
        .text("FOCUS", s.focus)
        .text("GLOBAL_USERS", ids(s.global_users))
        .text("CURRENT_USERS", ids(s.current_users))
        .flags(s.flags)
        .flag("COLLECTING", s.collecting)
        .text("HISTOGRAMS", histograms)
        .text("ARCHIVED", ids(s.archived))
        .leaf();
  };
  return element("STATUS")
      .number("NOW", x.now)
      .number("SAMPLEINTERVAL", x.interval)
      .id("PHASE", x.phase)
      .wrap(join(x.mis, "", mi) + join(x.components, "", [](const std::string& c) {
              return element("COMPONENT").text("NAME", c).leaf();
            }));
}
std::string reply_body(const search_info& x) {
  return element("SEARCH")
      .count("ID", x.id)
      .text("PHASE", to_string(x.phase))
      .id("PHASEID", x.phase_id)
      .text("STATE", x.state)
      .count("NODES", x.nodes)
      .flag("COSTLIMITED", x.cost_limited)
      .leaf();
}
// The attributes of one SHG node, in the order NODE and SHGNODE print them.
element& shg_node_attributes(element& e, const shg_node_info& n) {
  e.count("SEARCH", n.search)
      .count("ID", n.id)
      .text("PARENT", n.has_parent ? std::to_string(n.parent) : std::string())
      .text("HYPOTHESIS", n.hypothesis)
      .text("CODE", n.code)
      .text("MACHINE", n.machine)
      .text("SYNCOBJECT", n.syncobject)
      .text("FILE", n.file.empty() ? "/File" : n.file)
      .text("STATE", n.state)
      .flag("ACTIVE", n.active)
      .number("VALUE", n.value)
      .number("THRESHOLD", n.threshold)
      .number("SINCE", n.since);
  // From the evidence, where known (Paradyn's rule on metric instances knows none of them).
  if (!std::isnan(n.score)) e.number("SCORE", n.score);
  if (!std::isnan(n.threads)) e.number("THREADS", n.threads);
  if (n.blamed != 0) e.number("BLAMED", n.blamed);
  if (n.idle != 0) e.number("IDLE", n.idle);
  return e;
}
std::string reply_body(const shg_reply& x) {
  return element("SHG").wrap(join(x.nodes, "", [](const shg_node_info& n) {
    element e("NODE");
    return shg_node_attributes(e, n).leaf();
  }));
}
// Empty attributes are left out.
std::string reply_body(const findings_reply& x) {
  return element("FINDINGS").wrap(join(x.findings, "", [](const finding_info& f) {
    element e("FINDING");
    e.count("RANK", f.rank).count("SEARCH", f.search).text("HYPOTHESIS", f.hypothesis);
    if (!f.code.empty()) e.text("CODE", f.code);
    if (!f.machine.empty()) e.text("MACHINE", f.machine);
    if (!f.syncobject.empty()) e.text("SYNCOBJECT", f.syncobject);
    if (!f.file.empty()) e.text("FILE", f.file);
    e.number("VALUE", f.value).number("THRESHOLD", f.threshold).number("SINCE", f.since);
    if (!std::isnan(f.score)) e.number("SCORE", f.score);
    e.count("NODE", f.node);
    if (f.pid) e.count("PID", static_cast<std::uint64_t>(f.pid));
    if (f.tid) e.count("TID", static_cast<std::uint64_t>(f.tid));
    if (!f.function.empty()) e.text("FUNCTION", f.function);
    return e.text("TEXT", f.text).leaf();
  }));
}
std::string reply_body(const log_written& x) {
  return element("LOG").text("FILE", x.file).count("BYTES", x.bytes).leaf();
}
std::string reply_body(const process_info& x) {
  return element("PROCESS")
      .count("PID", static_cast<std::uint64_t>(x.pid))
      .text("NAME", x.name)
      .text("EXECUTABLE", x.executable)
      .text("RESOURCE", x.resource)
      .text("FRAMES", join(x.frames, " ", [](const std::string& f) { return f; }))
      .flag("ACTIVE", x.active)
      .flag("WATCHED", x.watched)
      .leaf();
}
std::string reply_body(const process_list& x) {
  return element("PROCESSES").wrap(
      join(x.processes, "", [](const process_info& p) { return reply_body(p); }));
}
std::string reply_body(const frames_stats& x) {
  return element("FRAMES").wrap(join(x.frame_types, "", [](const frame_type_stats& t) {
    return element("FRAMETYPE")
        .count("PID", static_cast<std::uint64_t>(t.pid))
        .text("PROCESS", t.process)
        .text("TYPE", t.frame_type)
        .count("READ", t.frames)
        .count("LOST", t.lost)
        .count("TORN", t.torn)
        .count("LATE", t.late)
        .count("NOLANE", t.no_lane_drops)
        .wrap(join(t.fields, "", [](const field_summary& f) {
          return element("FIELD")
              .text("NAME", f.name)
              .count("COUNT", f.count)
              .number("MIN", f.min)
              .number("MAX", f.max)
              .number("SUM", f.sum)
              .leaf();
        }));
  }));
}
std::string reply_body(const pong&) {
  return "PONG";  // DyPer's answer, as text
}
// DyPer answers WHO with one reply per process; here one reply lists every process, each
// as a PROCESS element directly inside DYPER_REPLY (an empty reply when there is none).
std::string reply_body(const who_reply& x) {
  return join(x.processes, "", [](const process_info& p) {
    return element("PROCESS")
        .count("ID", static_cast<std::uint64_t>(p.pid))
        .flag("ACTIVE", p.active)
        .text("NAME", p.name)
        .leaf();
  });
}
// DyPer's REPORT CPU section: MONTIME and LAST in seconds (engine time), like every time of
// the command language.
std::string reply_body(const process_command_reply& x) {
  return x.body;
}

std::string reply_body(const samplerate_info& x) {
  return element("SAMPLERATE").number("INTERVAL", x.interval).leaf();
}

// ---- stream events: the whole <DYPER .../> element ----

std::string event_text(const data_event& x) {
  return element("DYPER").id("DATA", x.stream).wrap(join(x.values, "", [](const data_value& v) {
    return element("V")
        .id("MI", v.mi)
        .text("PHASE", to_string(v.phase))
        .count("BUCKET", v.bucket)
        .number("VALUE", v.value)
        .leaf();
  }));
}
std::string event_text(const fold_event& x) {
  return element("DYPER")
      .id("FOLD", x.stream)
      .text("PHASE", to_string(x.phase))
      .number("WIDTH", x.width)
      .leaf();
}
std::string event_text(const new_phase_event& x) {
  auto& p = x.phase;
  return element("DYPER")
      .id("NEWPHASE", x.stream)
      .id("ID", p.id)
      .text("NAME", p.name)
      .number("START", p.start)
      .number("WIDTH", p.width)
      .leaf();
}
std::string event_text(const samplerate_event& x) {
  return element("DYPER").id("SAMPLERATE", x.stream).number("INTERVAL", x.interval).leaf();
}
std::string event_text(const new_metric_event& x) {
  auto& m = x.metric;
  return element("DYPER")
      .id("NEWMETRIC", x.stream)
      .id("ID", m.id)
      .text("NAME", m.name)
      .text("STYLE", to_string(m.style))
      .text("UNITS", m.units)
      .leaf();
}
std::string event_text(const new_resource_event& x) {
  auto& r = x.resource;
  return element("DYPER")
      .id("NEWRESOURCE", x.stream)
      .id("ID", r.id)
      .text("NAME", r.name)
      .text("PARENT", r.parent)
      .leaf();
}
std::string event_text(const shg_node_event& x) {
  element e("DYPER");
  e.id("SHGNODE", x.stream);
  return shg_node_attributes(e, x.node).leaf();
}
std::string event_text(const component_removed_event& x) {
  element e("DYPER");
  e.id("COMPONENTREMOVED", x.stream).text("NAME", x.name);
  if (!x.relay.empty()) e.text("RELAY", x.relay);  // absent for the engine's own components
  return e.leaf();
}
std::string event_text(const component_added_event& x) {
  element e("DYPER");
  e.id("COMPONENTADDED", x.stream).text("NAME", x.name);
  if (!x.relay.empty()) e.text("RELAY", x.relay);  // absent for the engine's own components
  return e.leaf();
}


// ---- dispatch on the message's single element ----

// Calls f with the message's element if the message holds exactly one of Ts; false otherwise.
template <class... Ts, class F>
bool visit(type_list<Ts...>, const caf::message& m, F&& f) {
  return ((m.match_elements<Ts>() && (f(m.get_as<Ts>(0)), true)) || ...);
}


}  // namespace

std::string print_request(const std::string& target, const caf::message& request) {
  if (request.match_elements<process_command>()) {
    auto& c = request.get_as<process_command>(0);
    element envelope(c.dypatch ? "DYPATCH" : "DYPER");
    envelope.text("PID", target).text("COMMAND", c.command);
    return c.argument.empty() ? envelope.leaf() : envelope.wrap(c.argument);
  }
  std::string out;
  visit(request_types{}, request, [&](const auto& x) {
    auto [command, argument] = request_parts(x);
    element envelope("DYPER");
    envelope.text("PID", target).text("COMMAND", command);
    out = argument.empty() ? envelope.leaf() : envelope.wrap(argument);
  });
  return out;  // "" for a message that is not a request
}

std::string print_reply(const std::string& target, const caf::message& reply) {
  if (reply.match_elements<caf::error>()) return print_error(target, reply.get_as<caf::error>(0));
  if (reply.match_elements<process_command_reply>()) {
    auto& r = reply.get_as<process_command_reply>(0);
    element envelope(r.dypatch ? "DYPATCH_REPLY" : "DYPER_REPLY");
    envelope.text("ID", target);
    if (!r.error.empty()) return envelope.text("ERROR", r.error).wrap(escaped(r.body));
    return envelope.wrap(r.body);
  }
  std::string body;
  if (!visit(reply_types{}, reply, [&](const auto& x) { body = reply_body(x); }))
    return print_error(target,
                       make_dm_error(dm_error::internal,
                                     "the engine produced a reply the XML codec cannot print: " +
                                         caf::to_string(reply)));
  return element("DYPER_REPLY").text("ID", target).wrap(body);
}

std::string print_reply_body(const caf::message& reply) {
  std::string body;
  visit(reply_types{}, reply, [&](const auto& x) { body = reply_body(x); });
  return body;
}

std::string print_error(const std::string& target, const caf::error& error) {
  return element("DYPER_REPLY")
      .text("ID", target)
      .text("ERROR", error_code_name(dm_error_code(error)))
      .wrap(escaped(dm_error_reason(error)));
}

std::string print_event(const caf::message& event) {
  std::string out;
  visit(event_types{}, event, [&](const auto& x) { out = event_text(x); });
  return out;
}

}  // namespace perfdm
