// The Chrome Trace Event format (the JSON Object Format that Perfetto and chrome://tracing
// open), written as a stream: events go out as they are given, so a trace of any length
// takes constant memory. Times are given in seconds and written in microseconds.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <string_view>

namespace perfdm {

class trace_event_writer {
 public:
  // Writes the opening of the object to `out`.
  explicit trace_event_writer(std::ostream& out);
  ~trace_event_writer();  // finish()es if not done
  trace_event_writer(const trace_event_writer&) = delete;
  trace_event_writer& operator=(const trace_event_writer&) = delete;

  // Metadata events ("M"): the names shown for a process and a thread.
  void process_name(std::int64_t pid, std::string_view name);
  void thread_name(std::int64_t pid, std::int64_t tid, std::string_view name);
  // A counter event ("C"): `name`'s series `series` has `value` from `seconds` on. Values
  // that are not finite are not written (JSON has no NaN): the caller leaves a gap.
  void counter(std::int64_t pid, std::string_view name, double seconds, double value,
               std::string_view series = "value");
  // A complete event ("X"): a slice from `seconds` lasting `duration` seconds.
  void slice(std::int64_t pid, std::int64_t tid, std::string_view name, double seconds,
             double duration, std::string_view category = "perfdm");

  // Closes the event array and the object; `metadata` goes into "otherData".
  void finish(const std::map<std::string, std::string>& metadata = {});
  std::uint64_t events() const { return events_; }

 private:
  void begin_event();
  std::ostream& out_;
  std::uint64_t events_ = 0;
  bool finished_ = false;
};

// `text` as a JSON string, quotes included.
std::string json_string(std::string_view text);
// A finite number in the shortest form that reads back as the same double.
std::string json_number(double value);

}  // namespace perfdm
