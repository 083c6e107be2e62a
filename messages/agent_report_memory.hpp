// REPORT's MEMORY section as DyPer's agent writes it, from its struct: each memory usage
// averaged over the reports. A native process has no collector, so no GC elements. It reads
// back with its parser (RapidXML). Numbers are finite.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "messages/agent_reply_xml.hpp"

namespace perfdm {

// One usage (bytes): the first committed size, the means of used and committed and of their
// squares over `reports`, and the last ones.
struct report_memory_usage {
  std::string name;
  double init = 0;
  std::int64_t max = 0;
  double used = 0, used2 = 0, committed = 0, committed2 = 0;
  std::uint64_t reports = 0;  // MODS
  double last_used = 0, last_committed = 0;
  bool operator==(const report_memory_usage& o) const {
    return name == o.name && init == o.init && max == o.max && used == o.used && used2 == o.used2 &&
           committed == o.committed && committed2 == o.committed2 && reports == o.reports &&
           last_used == o.last_used && last_committed == o.last_committed;
  }
};

struct agent_report_memory {
  std::int64_t start_ms = 0, montime_ms = 0, last_ms = 0;
  std::vector<report_memory_usage> usages;
  bool operator==(const agent_report_memory& o) const {
    return start_ms == o.start_ms && montime_ms == o.montime_ms && last_ms == o.last_ms &&
           usages == o.usages;
  }
};

// `<MEMORY START MONTIME LAST><USAGE NAME INIT MAX USED USED2 COMM COMM2 MODS LUSED
// LCOMM/>…</MEMORY>`.
std::string print_agent_report_memory(const agent_report_memory& x);
// The section of print_agent_report_memory's text; nothing when `text` is not one.
std::optional<agent_report_memory> parse_agent_report_memory(std::string_view text);
// The same, of an element already read (the MONITOR parser's child).
std::optional<agent_report_memory> read_agent_report_memory(const agent_xml::node* n);

}  // namespace perfdm
