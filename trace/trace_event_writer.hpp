// The Chrome Trace Event format (the JSON Object Format that Perfetto and chrome://tracing
// open), written as a stream: events go out as they are given, so a trace of any length
// takes constant memory. Times are given in seconds and written in microseconds. Each event is
// one nlohmann-json object; only the event array's brackets and commas are written here.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
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
  void event(const nlohmann::ordered_json& event);
  std::ostream& out_;
  std::uint64_t events_ = 0;
  bool finished_ = false;
};

// A trace's reals: a finite number written by printf's %.15g, %.16g or %.17g, the first that
// reads back as the same double (400000, 1.7e+15, 0.30000000000000004).
std::string json_number(double value);

}  // namespace perfdm
