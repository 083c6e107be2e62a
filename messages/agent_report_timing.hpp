// REPORT's TIMING section as DyPer's agent writes it, from its struct: the threads' counts,
// the live count summed over the reports, and each live thread's CPU time. It reads back with
// its parser (RapidXML). Numbers are finite.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "messages/agent_reply_xml.hpp"

namespace perfdm {

struct report_thread_timing {
  std::int64_t id = 0;
  std::string name;
  std::int64_t start_ms = 0, last_ms = 0;
  double clock_ms = 0, cpu_ms = 0, user_ms = 0;
  bool operator==(const report_thread_timing& o) const {
    return id == o.id && name == o.name && start_ms == o.start_ms && last_ms == o.last_ms &&
           clock_ms == o.clock_ms && cpu_ms == o.cpu_ms && user_ms == o.user_ms;
  }
};

struct agent_report_timing {
  double clock_ms = 0;  // since the observation began
  std::int64_t processors = 0;
  double live_sum = 0, live_sum2 = 0;  // NLIVE, NLIVE2: over NCOUNT reports
  std::uint64_t live_count = 0;
  std::uint64_t total = 0, created = 0, died = 0, active = 0;  // threads
  std::vector<report_thread_timing> threads;
  bool operator==(const agent_report_timing& o) const {
    return clock_ms == o.clock_ms && processors == o.processors && live_sum == o.live_sum &&
           live_sum2 == o.live_sum2 && live_count == o.live_count && total == o.total &&
           created == o.created && died == o.died && active == o.active && threads == o.threads;
  }
};

// `<TIMING CLOCK PROCS NLIVE NLIVE2 NCOUNT TOTAL CREATED DIED ACTIVE><THREAD ID NAME START
// LAST CLOCK CPU USER/>…</TIMING>`.
std::string print_agent_report_timing(const agent_report_timing& x);
// The section of print_agent_report_timing's text; nothing when `text` is not one.
std::optional<agent_report_timing> parse_agent_report_timing(std::string_view text);
// The same, of an element already read (the MONITOR parser's child).
std::optional<agent_report_timing> read_agent_report_timing(const agent_xml::node* n);

}  // namespace perfdm
