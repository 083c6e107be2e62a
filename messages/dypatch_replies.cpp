// See dypatch_replies.hpp.
#include "messages/dypatch_replies.hpp"

#include "messages/agent_reply_xml.hpp"
#include "messages/xml_element.hpp"

namespace perfdm {

namespace {

// `<outer key='k'><inner NAME='n'/>…</outer>`: MODEL's frames and PATCH's files.
std::string print_names(const char* outer, const char* key, const std::string& value,
                        const char* inner, const std::vector<std::string>& names) {
  return xml::element(outer).text(key, value).wrap(xml::join(names, "", [&](const std::string& n) {
    return xml::element(inner).text("NAME", n).leaf();
  }));
}

// The value of `key` and the NAMEs of the `inner` children, of print_names's text.
std::optional<std::pair<std::string, std::vector<std::string>>> parse_names(
    std::string_view text, const char* outer, const char* key, const char* inner) {
  agent_xml::document doc(text);
  auto* root = doc.root();
  if (!root || !agent_xml::named(root, outer)) return std::nullopt;
  auto value = agent_xml::attribute(root, key);
  auto children = agent_xml::children(root, inner);
  if (!value || !children) return std::nullopt;
  std::pair<std::string, std::vector<std::string>> out{std::string(*value), {}};
  for (auto* c : *children) {
    auto name = agent_xml::attribute(c, "NAME");
    if (!name || c->first_node()) return std::nullopt;
    out.second.emplace_back(*name);
  }
  return out;
}

}  // namespace

std::string print_dypatch_model_reply(const dypatch_model_reply& x) {
  return print_names("MODEL", "NAME", x.name, "FRAME", x.frames);
}

std::optional<dypatch_model_reply> parse_dypatch_model_reply(std::string_view text) {
  auto p = parse_names(text, "MODEL", "NAME", "FRAME");
  if (!p) return std::nullopt;
  return dypatch_model_reply{std::move(p->first), std::move(p->second)};
}

std::string print_dypatch_directory_reply(const dypatch_directory_reply& x) {
  return xml::element("DIRECTORY").text("NAME", x.name).leaf();
}

std::optional<dypatch_directory_reply> parse_dypatch_directory_reply(std::string_view text) {
  agent_xml::document doc(text);
  auto* root = doc.root();
  if (!root || !agent_xml::named(root, "DIRECTORY") || root->first_node()) return std::nullopt;
  auto name = agent_xml::attribute(root, "NAME");
  if (!name) return std::nullopt;
  return dypatch_directory_reply{std::string(*name)};
}

std::string print_dypatch_patch_reply(const dypatch_patch_reply& x) {
  return print_names("PATCH", "MODEL", x.model, "FILE", x.files);
}

std::optional<dypatch_patch_reply> parse_dypatch_patch_reply(std::string_view text) {
  auto p = parse_names(text, "PATCH", "MODEL", "FILE");
  if (!p) return std::nullopt;
  return dypatch_patch_reply{std::move(p->first), std::move(p->second)};
}

}  // namespace perfdm
