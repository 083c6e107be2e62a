// `perfdm log FILE --trace-event OUT.json`: the Data Manager's module of a log (docs/LOG-FORMAT.md,
// module dm) as a Chrome trace: one counter track per histogram of each metric instance (a
// counter event per bucket with data, at the bucket's start), the session and its phases as
// nested slices, and the observed processes and threads named. Pure conversion: rows in, trace out.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "trace/trace_event_writer.hpp"

namespace perfdm {

// One row of `perfdm log`: the value of a counter of a record, with the record's name.
struct log_trace_row {
  std::string counter;
  double value = 0;
  std::string record;  // e.g. "phase 1 busy", "histogram 0 GLOBAL", "mi 0 cpu /Process/app"
};

class log_trace_builder {
 public:
  void add(const log_trace_row& row);
  // Writes every event; returns how many counter events (buckets) were written.
  std::size_t write(trace_event_writer& out) const;

 private:
  std::map<std::string, std::map<std::string, double>> records_;  // record → counter → value
};

// Parses one tab-separated row of `perfdm log` (module, record id, counter, value, name);
// false for `#` lines, other modules than `module`, and values that are not numbers.
bool parse_log_row(std::string_view line, std::string_view module, log_trace_row& row);

// The process id in a resource name /Process/<name>{<pid>}[/…], or 0.
long long process_of_resource(std::string_view resource);

// Reads the log at `file` (its dm module) and writes the trace to `out`. Throws log_error
// (and std::exception) as `perfdm log` would report them.
void write_log_trace(const std::string& file, std::ostream& out);

// `perfdm log FILE --trace-event OUT`: writes OUT (as OUT.partial, renamed when complete).
// Errors go to `err` as "perfdm log: FILE: problem"; returns 0 or 1.
int run_log_trace_command(const std::string& file, const std::string& out, std::ostream& err);

}  // namespace perfdm
