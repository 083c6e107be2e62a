// See agent_report_iocounters.hpp.
#include "messages/agent_report_iocounters.hpp"

#include "messages/xml_element.hpp"

namespace perfdm {

std::string print_agent_report_iocounters(const agent_report_iocounters& x) {
  return xml::element("IOCOUNTERS")
      .count("READ", x.read)
      .count("WRITE", x.write)
      .count("STORAGEREAD", x.storage_read)
      .count("STORAGEWRITE", x.storage_write)
      .integer("MONTIME", x.montime_ms)
      .count("SAMPLES", x.samples)
      .integer("LAST", x.last_ms)
      .count("TOTAL", x.io_samples)
      .leaf();
}

std::optional<agent_report_iocounters> read_agent_report_iocounters(const agent_xml::node* n) {
  using namespace agent_xml;
  if (!named(n, "IOCOUNTERS") || n->first_node()) return std::nullopt;
  auto read = count(n, "READ"), write = count(n, "WRITE"), sread = count(n, "STORAGEREAD"),
       swrite = count(n, "STORAGEWRITE"), samples = count(n, "SAMPLES"), total = count(n, "TOTAL");
  auto montime = integer(n, "MONTIME"), last = integer(n, "LAST");
  if (!read || !write || !sread || !swrite || !samples || !total || !montime || !last)
    return std::nullopt;
  return agent_report_iocounters{*read, *write, *sread, *swrite, *montime, *samples, *last, *total};
}

std::optional<agent_report_iocounters> parse_agent_report_iocounters(std::string_view text) {
  return agent_xml::read_root(text, read_agent_report_iocounters);
}

}  // namespace perfdm
