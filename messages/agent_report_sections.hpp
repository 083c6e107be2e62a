// The two sections perfdm adds to a process's REPORT, from their struct: METRICS (the
// metric instances collected at the process) and FRAMES (what each frame type delivered).
// They read back with their parser (RapidXML).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "messages/agent_reply_xml.hpp"

namespace perfdm {

struct report_metric_instance {
  std::uint64_t id = 0;
  std::string metric;
  std::string focus;
  bool collecting = false;
  bool operator==(const report_metric_instance& o) const {
    return id == o.id && metric == o.metric && focus == o.focus && collecting == o.collecting;
  }
};

struct report_frame_type {
  std::string name;
  std::uint64_t frames = 0;
  std::uint64_t lost = 0;
  std::uint64_t torn = 0;
  std::uint64_t late = 0;
  bool operator==(const report_frame_type& o) const {
    return name == o.name && frames == o.frames && lost == o.lost && torn == o.torn &&
           late == o.late;
  }
};

struct agent_report_sections {
  std::vector<report_metric_instance> metrics;
  std::vector<report_frame_type> frame_types;
  bool operator==(const agent_report_sections& o) const {
    return metrics == o.metrics && frame_types == o.frame_types;
  }
};

// `<METRICS><MI ID METRIC FOCUS COLLECTING/>…</METRICS><FRAMES><FRAMETYPE NAME FRAMES LOST
// TORN LATE/>…</FRAMES>`.
std::string print_agent_report_sections(const agent_report_sections& x);
// The sections of print_agent_report_sections's text; nothing when `text` is not them.
std::optional<agent_report_sections> parse_agent_report_sections(std::string_view text);
// The same, of the two elements already read (the MONITOR parser's last children).
std::optional<agent_report_sections> read_agent_report_sections(const agent_xml::node* metrics,
                                                                const agent_xml::node* frames);

}  // namespace perfdm
