// DyPer's periodic REPORT body, `<MONITOR …>`, from its struct: the sampler's own figures,
// DyPer's sections (COUNTERS, THREADS, TIMING, MEMORY, IOCOUNTERS, REACTIONS) and perfdm's
// (the process resource, METRICS and FRAMES). It reads back with its parser (RapidXML).
// Numbers are finite.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "messages/agent_report_counters.hpp"
#include "messages/agent_report_iocounters.hpp"
#include "messages/agent_report_memory.hpp"
#include "messages/agent_report_reactions.hpp"
#include "messages/agent_report_sections.hpp"
#include "messages/agent_report_threads.hpp"
#include "messages/agent_report_timing.hpp"

namespace perfdm {

// The MONITOR attributes perfdm adds: the process resource and whether it still runs.
struct report_process {
  std::string resource;
  bool active = false;
  bool operator==(const report_process& o) const {
    return resource == o.resource && active == o.active;
  }
};

// What the sampling cost and how often it ran (ms); DyPer's controller re-tunes CHECKTIME
// and REPORTTIME from these.
struct report_sampling {
  std::int64_t time_ms = 0;  // TIME: ms since the epoch
  std::int64_t nano = 0;     // NANO: a monotonic clock in ns
  std::int64_t overhead_ms = 0;
  double last_check = 0, check_time = 0, check_total = 0, report_time = 0, delay_avg = 0;
  bool operator==(const report_sampling& o) const {
    return time_ms == o.time_ms && nano == o.nano && overhead_ms == o.overhead_ms &&
           last_check == o.last_check && check_time == o.check_time &&
           check_total == o.check_total && report_time == o.report_time && delay_avg == o.delay_avg;
  }
};

struct agent_report_monitor {
  report_sampling sampling;
  std::optional<report_process> process;  // PROCESS and ACTIVE
  agent_report_counters counters;
  agent_report_threads threads;
  agent_report_timing timing;
  agent_report_memory memory;
  agent_report_iocounters iocounters;
  agent_report_reactions reactions;
  std::optional<agent_report_sections> perfdm;  // METRICS and FRAMES, after DyPer's sections
  bool operator==(const agent_report_monitor& o) const {
    return sampling == o.sampling && process == o.process && counters == o.counters &&
           threads == o.threads && timing == o.timing && memory == o.memory &&
           iocounters == o.iocounters && reactions == o.reactions && perfdm == o.perfdm;
  }
};

// `<MONITOR TIME NANO OVERHEAD LASTCHECK CHECKTIME CHECKTOTAL REPORTTIME DELAYAVG [PROCESS
// ACTIVE]><COUNTERS…/><THREADS…/><TIMING…/><MEMORY…/><IOCOUNTERS…/><REACTIONS…/>[<METRICS…/>
// <FRAMES…/>]</MONITOR>`.
std::string print_agent_report_monitor(const agent_report_monitor& x);
// The report of print_agent_report_monitor's text; nothing when `text` is not one.
std::optional<agent_report_monitor> parse_agent_report_monitor(std::string_view text);

}  // namespace perfdm
