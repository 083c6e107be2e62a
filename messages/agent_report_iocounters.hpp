// REPORT's IOCOUNTERS section as DyPer's agent writes it, from its struct: the process's
// bytes read and written, and the samples that found a thread in I/O. It reads back with its
// parser (RapidXML).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "messages/agent_reply_xml.hpp"

namespace perfdm {

struct agent_report_iocounters {
  std::uint64_t read = 0, write = 0, storage_read = 0, storage_write = 0;  // bytes
  std::int64_t montime_ms = 0;
  std::uint64_t samples = 0;
  std::int64_t last_ms = 0;
  std::uint64_t io_samples = 0;  // TOTAL
  bool operator==(const agent_report_iocounters& o) const {
    return read == o.read && write == o.write && storage_read == o.storage_read &&
           storage_write == o.storage_write && montime_ms == o.montime_ms && samples == o.samples &&
           last_ms == o.last_ms && io_samples == o.io_samples;
  }
};

// `<IOCOUNTERS READ WRITE STORAGEREAD STORAGEWRITE MONTIME SAMPLES LAST TOTAL/>`.
std::string print_agent_report_iocounters(const agent_report_iocounters& x);
// The section of print_agent_report_iocounters's text; nothing when `text` is not one.
std::optional<agent_report_iocounters> parse_agent_report_iocounters(std::string_view text);
// The same, of an element already read (the MONITOR parser's child).
std::optional<agent_report_iocounters> read_agent_report_iocounters(const agent_xml::node* n);

}  // namespace perfdm
