// See agent_classes_reply.hpp.
#include "messages/agent_classes_reply.hpp"

#include "messages/agent_reply_xml.hpp"
#include "messages/xml_element.hpp"

namespace perfdm {

std::string print_agent_classes_reply(const agent_classes_reply& x) {
  return xml::element("CLASSES").wrap(xml::join(x.classes, "", [](const code_class& c) {
    return xml::element(c.package ? "PACKAGE" : "CLASS")
        .text("NAME", c.name)
        .text("TYPE", c.type)
        .leaf();
  }));
}

std::optional<agent_classes_reply> parse_agent_classes_reply(std::string_view text) {
  agent_xml::document doc(text);
  auto* root = doc.root();
  if (!root || !agent_xml::named(root, "CLASSES")) return std::nullopt;
  agent_classes_reply out;
  for (auto* c = root->first_node(); c; c = c->next_sibling()) {
    bool package = agent_xml::named(c, "PACKAGE");
    auto name = agent_xml::attribute(c, "NAME"), type = agent_xml::attribute(c, "TYPE");
    if (c->type() != rapidxml::node_element || (!package && !agent_xml::named(c, "CLASS")) ||
        !name || !type || c->first_node())
      return std::nullopt;
    out.classes.push_back({package, std::string(*name), std::string(*type)});
  }
  return out;
}

}  // namespace perfdm
