#include "trace/trace_event_writer.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace perfdm {

std::string json_string(std::string_view text) {
  // Bytes that are not UTF-8 become U+FFFD: the file stays JSON.
  return nlohmann::json(std::string(text))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string json_number(double value) {
  char buf[32];
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  return buf;
}

namespace {

// Seconds to the format's microseconds.
std::string micros(double seconds) {
  return json_number(seconds * 1e6);
}

}  // namespace

trace_event_writer::trace_event_writer(std::ostream& out) : out_(out) {
  out_ << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[";
}

trace_event_writer::~trace_event_writer() {
  if (!finished_) finish();
}

void trace_event_writer::begin_event() {
  out_ << (events_++ == 0 ? "\n" : ",\n");
}

void trace_event_writer::process_name(std::int64_t pid, std::string_view name) {
  begin_event();
  out_ << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << pid
       << ",\"tid\":0,\"args\":{\"name\":" << json_string(name) << "}}";
}

void trace_event_writer::thread_name(std::int64_t pid, std::int64_t tid, std::string_view name) {
  begin_event();
  out_ << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << pid << ",\"tid\":" << tid
       << ",\"args\":{\"name\":" << json_string(name) << "}}";
}

void trace_event_writer::counter(std::int64_t pid, std::string_view name, double seconds,
                                 double value, std::string_view series) {
  if (!std::isfinite(value) || !std::isfinite(seconds)) return;
  begin_event();
  out_ << "{\"ph\":\"C\",\"name\":" << json_string(name) << ",\"pid\":" << pid
       << ",\"tid\":0,\"ts\":" << micros(seconds) << ",\"args\":{" << json_string(series) << ':'
       << json_number(value) << "}}";
}

void trace_event_writer::slice(std::int64_t pid, std::int64_t tid, std::string_view name,
                               double seconds, double duration, std::string_view category) {
  begin_event();
  out_ << "{\"ph\":\"X\",\"name\":" << json_string(name) << ",\"cat\":" << json_string(category)
       << ",\"pid\":" << pid << ",\"tid\":" << tid << ",\"ts\":" << micros(seconds)
       << ",\"dur\":" << micros(duration) << "}";
}

void trace_event_writer::finish(const std::map<std::string, std::string>& metadata) {
  if (finished_) return;
  finished_ = true;
  out_ << "\n],\"otherData\":{";
  bool first = true;
  for (auto& [k, v] : metadata) {
    out_ << (first ? "" : ",") << json_string(k) << ':' << json_string(v);
    first = false;
  }
  out_ << "}}\n";
}

}  // namespace perfdm
