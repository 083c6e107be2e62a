#include "trace/trace_event_writer.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "log/json_dump.hpp"

namespace perfdm {

using nlohmann::ordered_json;

std::string json_number(double value) {
  char buf[32];
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  return buf;
}

namespace {

void append_trace_real(std::string& out, double value) { out += json_number(value); }

std::string trace_json(const ordered_json& value) {
  std::string text;
  append_json(text, value, &append_trace_real);
  return text;
}

// Seconds to the format's microseconds.
double micros(double seconds) { return seconds * 1e6; }

// The trace object's text with an empty event array, cut where the events go: the part before
// the array's closing bracket, and the part after it.
constexpr std::string_view events_gap = "[]";

}  // namespace

trace_event_writer::trace_event_writer(std::ostream& out) : out_(out) {
  const std::string head =
      trace_json(ordered_json{{"displayTimeUnit", "ms"}, {"traceEvents", ordered_json::array()}});
  out_ << head.substr(0, head.find(events_gap) + 1);
}

trace_event_writer::~trace_event_writer() {
  if (!finished_) finish();
}

void trace_event_writer::event(const ordered_json& event) {
  out_ << (events_++ == 0 ? "\n" : ",\n") << trace_json(event);
}

void trace_event_writer::process_name(std::int64_t pid, std::string_view name) {
  event({{"ph", "M"},
         {"name", "process_name"},
         {"pid", pid},
         {"tid", 0},
         {"args", {{"name", std::string(name)}}}});
}

void trace_event_writer::thread_name(std::int64_t pid, std::int64_t tid, std::string_view name) {
  event({{"ph", "M"},
         {"name", "thread_name"},
         {"pid", pid},
         {"tid", tid},
         {"args", {{"name", std::string(name)}}}});
}

void trace_event_writer::counter(std::int64_t pid, std::string_view name, double seconds,
                                 double value, std::string_view series) {
  if (!std::isfinite(value) || !std::isfinite(seconds)) return;
  event({{"ph", "C"},
         {"name", std::string(name)},
         {"pid", pid},
         {"tid", 0},
         {"ts", micros(seconds)},
         {"args", {{std::string(series), value}}}});
}

void trace_event_writer::slice(std::int64_t pid, std::int64_t tid, std::string_view name,
                               double seconds, double duration, std::string_view category) {
  event({{"ph", "X"},
         {"name", std::string(name)},
         {"cat", std::string(category)},
         {"pid", pid},
         {"tid", tid},
         {"ts", micros(seconds)},
         {"dur", micros(duration)}});
}

void trace_event_writer::finish(const std::map<std::string, std::string>& metadata) {
  if (finished_) return;
  finished_ = true;
  const std::string tail = trace_json(ordered_json{{"traceEvents", ordered_json::array()},
                                                   {"otherData", metadata}});
  out_ << '\n' << tail.substr(tail.find(events_gap) + 1) << '\n';
}

}  // namespace perfdm
