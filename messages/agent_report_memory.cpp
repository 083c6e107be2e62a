// See agent_report_memory.hpp.
#include "messages/agent_report_memory.hpp"

#include "messages/xml_element.hpp"

namespace perfdm {

std::string print_agent_report_memory(const agent_report_memory& x) {
  return xml::element("MEMORY")
      .integer("START", x.start_ms)
      .integer("MONTIME", x.montime_ms)
      .integer("LAST", x.last_ms)
      .wrap(xml::join(x.usages, "", [](const report_memory_usage& u) {
        return xml::element("USAGE")
            .text("NAME", u.name)
            .number("INIT", u.init)
            .integer("MAX", u.max)
            .number("USED", u.used)
            .number("USED2", u.used2)
            .number("COMM", u.committed)
            .number("COMM2", u.committed2)
            .count("MODS", u.reports)
            .number("LUSED", u.last_used)
            .number("LCOMM", u.last_committed)
            .leaf();
      }));
}

std::optional<agent_report_memory> read_agent_report_memory(const agent_xml::node* n) {
  using namespace agent_xml;
  if (!named(n, "MEMORY")) return std::nullopt;
  auto start = integer(n, "START"), montime = integer(n, "MONTIME"), last = integer(n, "LAST");
  auto usages = children(n, "USAGE");
  if (!start || !montime || !last || !usages) return std::nullopt;
  agent_report_memory out{*start, *montime, *last, {}};
  for (auto* u : *usages) {
    auto name = attribute(u, "NAME");
    auto max = integer(u, "MAX");
    auto mods = count(u, "MODS");
    auto init = number(u, "INIT"), used = number(u, "USED"), used2 = number(u, "USED2"),
         comm = number(u, "COMM"), comm2 = number(u, "COMM2"), lused = number(u, "LUSED"),
         lcomm = number(u, "LCOMM");
    if (!name || !max || !mods || !init || !used || !used2 || !comm || !comm2 || !lused || !lcomm ||
        u->first_node())
      return std::nullopt;
    out.usages.push_back(
        {std::string(*name), *init, *max, *used, *used2, *comm, *comm2, *mods, *lused, *lcomm});
  }
  return out;
}

std::optional<agent_report_memory> parse_agent_report_memory(std::string_view text) {
  return agent_xml::read_root(text, read_agent_report_memory);
}

}  // namespace perfdm
