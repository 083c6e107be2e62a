// REPORT's COUNTERS section as DyPer's agent writes it, from its struct: the CPU profile's
// totals and its items (functions as DyPer's methods, modules as its classes). It reads back
// with its parser (RapidXML).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "messages/agent_reply_xml.hpp"

namespace perfdm {

struct report_counter_item {
  std::string name;
  std::uint64_t total = 0;
  std::uint64_t base = 0;
  std::optional<std::string> type;  // a function's; a module's ITEM has none
  bool operator==(const report_counter_item& o) const {
    return name == o.name && total == o.total && base == o.base && type == o.type;
  }
};

// TOTALS: the samples in classes (modules), methods (functions) and lines, and in their base.
struct report_counter_totals {
  std::uint64_t class_total = 0, method_total = 0, line_total = 0;
  std::uint64_t class_base = 0, method_base = 0, line_base = 0;
  bool operator==(const report_counter_totals& o) const {
    return class_total == o.class_total && method_total == o.method_total &&
           line_total == o.line_total && class_base == o.class_base &&
           method_base == o.method_base && line_base == o.line_base;
  }
};

struct agent_report_counters {
  std::int64_t pid = 0;
  std::int64_t montime_ms = 0;
  std::uint64_t samples = 0, active = 0;
  std::int64_t last_ms = 0;
  std::uint64_t stacks = 0, detailed = 0;
  report_counter_totals totals;
  std::vector<report_counter_item> items;
  bool operator==(const agent_report_counters& o) const {
    return pid == o.pid && montime_ms == o.montime_ms && samples == o.samples &&
           active == o.active && last_ms == o.last_ms && stacks == o.stacks &&
           detailed == o.detailed && totals == o.totals && items == o.items;
  }
};

// `<COUNTERS PID MONTIME SAMPLES ACTIVE LAST STACKS DETAILED><TOTALS CLASS METHOD LINE CBASE
// MBASE LBASE/><ITEM NAME TOTAL BASE TYPE/>…</COUNTERS>`.
std::string print_agent_report_counters(const agent_report_counters& x);
// The section of print_agent_report_counters's text; nothing when `text` is not one.
std::optional<agent_report_counters> parse_agent_report_counters(std::string_view text);
// The same, of an element already read (the MONITOR parser's child).
std::optional<agent_report_counters> read_agent_report_counters(const agent_xml::node* n);

}  // namespace perfdm
