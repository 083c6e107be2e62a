// REPORT's REACTIONS section as DyPer's agent writes it, from its struct: the samples of
// the thread states summed over the threads. perfdm's profile keeps no call tree, so its TRIE
// is always empty. It reads back with its parser (RapidXML).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "messages/agent_reply_xml.hpp"

namespace perfdm {

struct agent_report_reactions {
  std::int64_t montime_ms = 0;
  std::uint64_t samples = 0;
  std::uint64_t stack_samples = 0;  // TSAMPLES
  std::int64_t last_ms = 0;
  std::uint64_t runs = 0, ios = 0, waits = 0;  // TOTRUN TOTIO TOTWAIT
  bool operator==(const agent_report_reactions& o) const {
    return montime_ms == o.montime_ms && samples == o.samples && stack_samples == o.stack_samples &&
           last_ms == o.last_ms && runs == o.runs && ios == o.ios && waits == o.waits;
  }
};

// `<REACTIONS MONTIME SAMPLES TSAMPLES LAST TOTRUN TOTIO TOTWAIT><TRIE/></REACTIONS>`.
std::string print_agent_report_reactions(const agent_report_reactions& x);
// The section of print_agent_report_reactions's text; nothing when `text` is not one (or
// its TRIE is not empty).
std::optional<agent_report_reactions> parse_agent_report_reactions(std::string_view text);
// The same, of an element already read (the MONITOR parser's child).
std::optional<agent_report_reactions> read_agent_report_reactions(const agent_xml::node* n);

}  // namespace perfdm
