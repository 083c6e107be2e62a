// See agent_report_counters.hpp.
#include "messages/agent_report_counters.hpp"

#include "messages/xml_element.hpp"

namespace perfdm {

std::string print_agent_report_counters(const agent_report_counters& x) {
  auto& t = x.totals;
  auto totals = xml::element("TOTALS")
                    .count("CLASS", t.class_total)
                    .count("METHOD", t.method_total)
                    .count("LINE", t.line_total)
                    .count("CBASE", t.class_base)
                    .count("MBASE", t.method_base)
                    .count("LBASE", t.line_base)
                    .leaf();
  auto items = xml::join(x.items, "", [](const report_counter_item& i) {
    xml::element e("ITEM");
    e.text("NAME", i.name).count("TOTAL", i.total).count("BASE", i.base);
    if (i.type) e.text("TYPE", *i.type);
    return e.leaf();
  });
  return xml::element("COUNTERS")
      .integer("PID", x.pid)
      .integer("MONTIME", x.montime_ms)
      .count("SAMPLES", x.samples)
      .count("ACTIVE", x.active)
      .integer("LAST", x.last_ms)
      .count("STACKS", x.stacks)
      .count("DETAILED", x.detailed)
      .wrap(totals + items);
}

std::optional<agent_report_counters> read_agent_report_counters(const agent_xml::node* n) {
  using namespace agent_xml;
  if (!named(n, "COUNTERS")) return std::nullopt;
  auto pid = integer(n, "PID"), montime = integer(n, "MONTIME"), last = integer(n, "LAST");
  auto samples = count(n, "SAMPLES"), active = count(n, "ACTIVE"), stacks = count(n, "STACKS"),
       detailed = count(n, "DETAILED");
  if (!pid || !montime || !last || !samples || !active || !stacks || !detailed) return std::nullopt;
  auto* totals = n->first_node();
  if (!totals || !named(totals, "TOTALS") || totals->first_node()) return std::nullopt;
  auto ct = count(totals, "CLASS"), mt = count(totals, "METHOD"), lt = count(totals, "LINE"),
       cb = count(totals, "CBASE"), mb = count(totals, "MBASE"), lb = count(totals, "LBASE");
  if (!ct || !mt || !lt || !cb || !mb || !lb) return std::nullopt;
  agent_report_counters out{*pid,  *montime, *samples,  *active,
                            *last, *stacks,  *detailed, {*ct, *mt, *lt, *cb, *mb, *lb},
                            {}};
  for (auto* i = totals->next_sibling(); i; i = i->next_sibling()) {
    if (i->type() != rapidxml::node_element || !named(i, "ITEM") || i->first_node())
      return std::nullopt;
    auto name = attribute(i, "NAME");
    auto total = count(i, "TOTAL"), base = count(i, "BASE");
    if (!name || !total || !base) return std::nullopt;
    auto type = attribute(i, "TYPE");
    out.items.push_back({std::string(*name), *total, *base,
                         type ? std::make_optional(std::string(*type)) : std::nullopt});
  }
  return out;
}

std::optional<agent_report_counters> parse_agent_report_counters(std::string_view text) {
  return agent_xml::read_root(text, read_agent_report_counters);
}

}  // namespace perfdm
