// See agent_settings_replies.hpp.
#include "messages/agent_settings_replies.hpp"

#include "messages/agent_reply_xml.hpp"
#include "messages/xml_element.hpp"

namespace perfdm {

namespace {

using agent_xml::attribute;
using agent_xml::named;
using xml::element;

// `<VAR NAME VALUE/>` read back; nothing when either attribute is missing.
std::optional<agent_variable> variable_of(const agent_xml::node* n) {
  auto name = attribute(n, "NAME"), value = attribute(n, "VALUE");
  if (!named(n, "VAR") || n->first_node() || !name || !value) return std::nullopt;
  return agent_variable{std::string(*name), std::string(*value)};
}

}  // namespace

std::string print_agent_variable(const agent_variable& x) {
  return element("VAR").text("NAME", x.name).text("VALUE", x.value).leaf();
}

std::optional<agent_variable> parse_agent_variable(std::string_view text) {
  agent_xml::document doc(text);
  auto* root = doc.root();
  return root ? variable_of(root) : std::nullopt;
}

std::string print_agent_settings_reply(const agent_settings_reply& x) {
  auto out = element("SETTINGS").wrap(xml::join(x.variables, "", print_agent_variable));
  if (!x.ignored.empty())
    out += element("IGNORED").wrap(xml::join(x.ignored, "", [](const std::string& name) {
      return element("VAR").text("NAME", name).leaf();
    }));
  return out;
}

std::optional<agent_settings_reply> parse_agent_settings_reply(std::string_view text) {
  agent_xml::document doc(text);
  if (!doc.top()) return std::nullopt;
  auto* settings = doc.top()->first_node();
  if (!settings || !named(settings, "SETTINGS")) return std::nullopt;
  auto* ignored = settings->next_sibling();
  if (ignored && (!named(ignored, "IGNORED") || ignored->next_sibling())) return std::nullopt;
  auto vars = agent_xml::children(settings, "VAR");
  if (!vars) return std::nullopt;
  agent_settings_reply out;
  for (auto* v : *vars) {
    auto var = variable_of(v);
    if (!var) return std::nullopt;
    out.variables.push_back(std::move(*var));
  }
  if (ignored) {
    auto names = agent_xml::children(ignored, "VAR");
    // An empty <IGNORED> is never printed.
    if (!names || names->empty()) return std::nullopt;
    for (auto* v : *names) {
      auto name = attribute(v, "NAME");
      if (!name || v->first_attribute("VALUE") || v->first_node()) return std::nullopt;
      out.ignored.emplace_back(*name);
    }
  }
  return out;
}

std::string print_agent_details_reply(const agent_details_reply& x) {
  return element("SETTINGS").wrap(xml::join(x.details, "", [](const detail_setting& d) {
    return element("DETAIL").text("ITEM", d.item).flag("VALUE", d.value).text("AGENT", d.agent).leaf();
  }));
}

std::optional<agent_details_reply> parse_agent_details_reply(std::string_view text) {
  agent_xml::document doc(text);
  auto* root = doc.root();
  if (!root || !named(root, "SETTINGS")) return std::nullopt;
  auto details = agent_xml::children(root, "DETAIL");
  if (!details) return std::nullopt;
  agent_details_reply out;
  for (auto* d : *details) {
    auto item = attribute(d, "ITEM"), agent = attribute(d, "AGENT");
    auto value = agent_xml::flag(d, "VALUE");
    if (!item || !agent || !value || d->first_node()) return std::nullopt;
    out.details.push_back({std::string(*item), std::string(*agent), *value});
  }
  return out;
}

}  // namespace perfdm
