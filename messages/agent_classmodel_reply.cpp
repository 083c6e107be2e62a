// See agent_classmodel_reply.hpp.
#include "messages/agent_classmodel_reply.hpp"

#include <charconv>

#include "messages/agent_reply_xml.hpp"
#include "messages/xml_element.hpp"

namespace perfdm {

std::string print_agent_classmodel_reply(const agent_classmodel_reply& x) {
  using xml::element;
  auto body = element("EXECUTABLE").text("NAME", x.executable).leaf();
  for (auto& o : x.objects) {
    char base[32];
    auto [end, ec] = std::to_chars(base, base + sizeof base, o.base, 16);
    (void)ec;  // 32 characters hold any 64-bit number
    body += element("OBJECT")
                .text("NAME", o.path)
                .text("BASE", "0x" + std::string(base, end))
                .text("TYPE", o.type)
                .leaf();
  }
  return element("CLASSMODEL").wrap(body);
}

std::optional<agent_classmodel_reply> parse_agent_classmodel_reply(std::string_view text) {
  agent_xml::document doc(text);
  auto* root = doc.root();
  if (!root || !agent_xml::named(root, "CLASSMODEL")) return std::nullopt;
  auto* exe = root->first_node();
  if (!exe || !agent_xml::named(exe, "EXECUTABLE") || exe->first_node()) return std::nullopt;
  auto exe_name = agent_xml::attribute(exe, "NAME");
  if (!exe_name) return std::nullopt;
  agent_classmodel_reply out{std::string(*exe_name), {}};
  for (auto* o = exe->next_sibling(); o; o = o->next_sibling()) {
    auto path = agent_xml::attribute(o, "NAME"), base = agent_xml::attribute(o, "BASE"),
         type = agent_xml::attribute(o, "TYPE");
    if (o->type() != rapidxml::node_element || !agent_xml::named(o, "OBJECT") || o->first_node() ||
        !path || !base || !type || base->size() < 3 || base->substr(0, 2) != "0x")
      return std::nullopt;
    std::uint64_t address = 0;
    auto [end, ec] = std::from_chars(base->data() + 2, base->data() + base->size(), address, 16);
    if (ec != std::errc() || end != base->data() + base->size()) return std::nullopt;
    out.objects.push_back({std::string(*path), address, std::string(*type)});
  }
  return out;
}

}  // namespace perfdm
