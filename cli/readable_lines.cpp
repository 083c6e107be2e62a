#include "cli/readable_lines.hpp"

#include <cstdio>
#include <sstream>

#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/process_command_messages.hpp"
#include "messages/xml_codec.hpp"

namespace perfdm {

namespace {

std::string seconds(double s) { return format_number(s) + " s"; }

std::string flags(const persistence& p) {
  std::string out;
  if (p.data) out += " persistent_data";
  if (p.collection) out += " persistent_collection";
  if (p.phase_data) out += " phase_persistent_data";
  return out.empty() ? " no flags" : out;
}

// Four significant digits: enough to read, short enough to scan.
std::string short_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

// Runs of equal values in consecutive buckets print once: "4-576=13".
template <class Bucket, class Value>
std::string runs(std::size_t n, Bucket bucket, Value value) {
  std::ostringstream out;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    auto v = short_number(value(i));
    while (j + 1 < n && bucket(j + 1) == bucket(j) + 1 && short_number(value(j + 1)) == v) ++j;
    out << (i ? ", " : "") << bucket(i);
    if (j > i) out << '-' << bucket(j);
    out << '=' << v;
    i = j + 1;
  }
  return out.str();
}

std::string values(const std::vector<data_value>& xs) {
  std::string out;
  for (std::size_t i = 0; i < xs.size();) {
    std::size_t j = i;
    while (j < xs.size() && xs[j].mi == xs[i].mi && xs[j].phase == xs[i].phase) ++j;
    out += (i ? "; MI " : "MI ") + to_string(xs[i].mi) + ' ' + to_string(xs[i].phase) +
           " buckets " +
           runs(j - i, [&](std::size_t k) { return xs[i + k].bucket; },
                [&](std::size_t k) { return xs[i + k].value; });
    i = j;
  }
  return out;
}

}  // namespace

std::string error_sentence(const session_line& line) {
  if (!line.message.match_elements<caf::error>()) return line.xml;
  auto reason = dm_error_reason(line.message.get_as<caf::error>(0));
  return reason.empty()
             ? std::string(error_code_name(dm_error_code(line.message.get_as<caf::error>(0))))
             : reason;
}

std::string readable(const session_line& line) {
  auto& m = line.message;
  if (line.kind == session_line::error) {
    auto& e = m.get_as<caf::error>(0);
    return "  ! " + std::string(error_code_name(dm_error_code(e))) + ": " + dm_error_reason(e);
  }
  if (m.match_elements<data_event>()) {
    auto& x = m.get_as<data_event>(0);
    return "  stream " + to_string(x.stream) + " data: " + values(x.values);
  }
  if (m.match_elements<fold_event>()) {
    auto& x = m.get_as<fold_event>(0);
    return "  stream " + to_string(x.stream) + " fold: " + to_string(x.phase) +
           " histograms now " + seconds(x.width) + " per bucket";
  }
  if (m.match_elements<new_phase_event>()) {
    auto& x = m.get_as<new_phase_event>(0);
    return "  stream " + to_string(x.stream) + " new phase " + to_string(x.phase.id) + " '" +
           x.phase.name + "' from " + seconds(x.phase.start) + ", buckets of " +
           seconds(x.phase.width);
  }
  if (m.match_elements<samplerate_event>()) {
    auto& x = m.get_as<samplerate_event>(0);
    return "  stream " + to_string(x.stream) + " sampling interval now " + seconds(x.interval);
  }
  if (m.match_elements<new_metric_event>()) {
    auto& x = m.get_as<new_metric_event>(0);
    return "  stream " + to_string(x.stream) + " new metric " + x.metric.name;
  }
  if (m.match_elements<new_resource_event>()) {
    auto& x = m.get_as<new_resource_event>(0);
    return "  stream " + to_string(x.stream) + " new resource " + x.resource.name;
  }
  if (m.match_elements<component_removed_event>()) {
    auto& x = m.get_as<component_removed_event>(0);
    return "  stream " + to_string(x.stream) + " component " + x.name +
           (x.relay.empty() ? "" : " of relay " + x.relay) + " removed (its data so far is kept)";
  }
  if (m.match_elements<component_added_event>()) {
    auto& x = m.get_as<component_added_event>(0);
    return "  stream " + to_string(x.stream) + " component " + x.name + " added";
  }
  if (m.match_elements<process_announcement>())
    return "  process: " + m.get_as<process_announcement>(0).xml;
  if (m.match_elements<mi_info>()) {
    auto& x = m.get_as<mi_info>(0);
    return "  = metric instance " + to_string(x.id) + " (" + x.metric + " at " + x.focus +
           ") " + to_string(x.state) + "," + flags(x.flags);
  }
  if (m.match_elements<histogram_data>()) {
    auto& x = m.get_as<histogram_data>(0);
    return "  = histogram of MI " + to_string(x.mi) + " from " + seconds(x.start) + ", " +
           seconds(x.width) + " per bucket: " +
           runs(x.values.size(), [](std::size_t k) { return k; },
                [&](std::size_t k) { return x.values[k]; });
  }
  if (m.match_elements<phase_info>()) {
    auto& x = m.get_as<phase_info>(0);
    return "  = phase " + to_string(x.id) + " '" + x.name + "' starts at " + seconds(x.start);
  }
  if (m.match_elements<samples_ack>()) {
    auto& x = m.get_as<samples_ack>(0);
    return "  = " + std::to_string(x.count) + " samples taken, " + std::to_string(x.dropped) +
           " dropped";
  }
  return "  = " + line.xml;
}

}  // namespace perfdm
