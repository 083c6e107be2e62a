// See agent_report_sections.hpp.
#include "messages/agent_report_sections.hpp"

#include "messages/agent_reply_xml.hpp"
#include "messages/xml_element.hpp"

namespace perfdm {

std::string print_agent_report_sections(const agent_report_sections& x) {
  using xml::element;
  auto metrics = xml::join(x.metrics, "", [](const report_metric_instance& m) {
    return element("MI")
        .count("ID", m.id)
        .text("METRIC", m.metric)
        .text("FOCUS", m.focus)
        .flag("COLLECTING", m.collecting)
        .leaf();
  });
  auto frames = xml::join(x.frame_types, "", [](const report_frame_type& t) {
    return element("FRAMETYPE")
        .text("NAME", t.name)
        .count("FRAMES", t.frames)
        .count("LOST", t.lost)
        .count("TORN", t.torn)
        .count("LATE", t.late)
        .leaf();
  });
  return element("METRICS").wrap(metrics) + element("FRAMES").wrap(frames);
}

std::optional<agent_report_sections> read_agent_report_sections(const agent_xml::node* metrics,
                                                                const agent_xml::node* frames) {
  if (!agent_xml::named(metrics, "METRICS") || !agent_xml::named(frames, "FRAMES"))
    return std::nullopt;
  auto mis = agent_xml::children(metrics, "MI");
  auto types = agent_xml::children(frames, "FRAMETYPE");
  if (!mis || !types) return std::nullopt;
  agent_report_sections out;
  for (auto* m : *mis) {
    auto id = agent_xml::count(m, "ID");
    auto metric = agent_xml::attribute(m, "METRIC"), focus = agent_xml::attribute(m, "FOCUS");
    auto collecting = agent_xml::flag(m, "COLLECTING");
    if (!id || !metric || !focus || !collecting || m->first_node()) return std::nullopt;
    out.metrics.push_back({*id, std::string(*metric), std::string(*focus), *collecting});
  }
  for (auto* t : *types) {
    auto name = agent_xml::attribute(t, "NAME");
    auto n = agent_xml::count(t, "FRAMES"), lost = agent_xml::count(t, "LOST"),
         torn = agent_xml::count(t, "TORN"), late = agent_xml::count(t, "LATE");
    if (!name || !n || !lost || !torn || !late || t->first_node()) return std::nullopt;
    out.frame_types.push_back({std::string(*name), *n, *lost, *torn, *late});
  }
  return out;
}

std::optional<agent_report_sections> parse_agent_report_sections(std::string_view text) {
  agent_xml::document doc(text);
  if (!doc.top()) return std::nullopt;
  auto* metrics = doc.top()->first_node();
  auto* frames = metrics ? metrics->next_sibling() : nullptr;
  if (!frames || frames->next_sibling()) return std::nullopt;
  return read_agent_report_sections(metrics, frames);
}

}  // namespace perfdm
