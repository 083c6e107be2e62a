// See agent_list_reply.hpp.
#include "messages/agent_list_reply.hpp"

#include "messages/agent_reply_xml.hpp"
#include "messages/xml_element.hpp"

namespace perfdm {

std::string print_agent_list_reply(const agent_list_reply& x) {
  return xml::element("AGENTS").wrap(xml::join(x.agents, "", [](const std::string& a) {
    return xml::element("AGENT").text("CLASS", a).leaf();
  }));
}

std::optional<agent_list_reply> parse_agent_list_reply(std::string_view text) {
  agent_xml::document doc(text);
  auto* root = doc.root();
  if (!root || !agent_xml::named(root, "AGENTS")) return std::nullopt;
  auto agents = agent_xml::children(root, "AGENT");
  if (!agents) return std::nullopt;
  agent_list_reply out;
  for (auto* a : *agents) {
    auto name = agent_xml::attribute(a, "CLASS");
    if (!name || a->first_node()) return std::nullopt;
    out.agents.emplace_back(*name);
  }
  return out;
}

}  // namespace perfdm
