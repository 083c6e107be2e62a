// See agent_replies.hpp.
#include "messages/agent_replies.hpp"

#include <charconv>

#include "messages/agent_reply_xml.hpp"
#include "messages/xml_codec.hpp"

namespace perfdm {

using agent_xml::attribute;
using agent_xml::named;

std::string print_patch_reply(const patch_reply& x) {
  return "<PATCH TIME='" + std::to_string(x.time_ms) + "'/>";
}

std::optional<patch_reply> parse_patch_reply(std::string_view text) {
  agent_xml::document doc(text);
  auto* root = doc.root();
  if (!root || !named(root, "PATCH") || root->first_node()) return std::nullopt;
  auto time = attribute(root, "TIME");
  if (!time) return std::nullopt;
  patch_reply out;
  auto [end, ec] = std::from_chars(time->data(), time->data() + time->size(), out.time_ms);
  if (ec != std::errc() || end != time->data() + time->size()) return std::nullopt;
  return out;
}

std::string print_agent_who_reply(const agent_who_reply& x) {
  const auto id = xml_escaped(x.id);
  return "<DYPER_REPLY ID='" + id + "'><DYPER_REPLY ID='" + id + "' ACTIVE='true' /></DYPER_REPLY>";
}

std::optional<agent_who_reply> parse_agent_who_reply(std::string_view text) {
  agent_xml::document doc(text);
  auto* root = doc.root();
  if (!root || !named(root, "DYPER_REPLY")) return std::nullopt;
  auto* inner = root->first_node();
  if (!inner || inner->next_sibling() || !named(inner, "DYPER_REPLY")) return std::nullopt;
  auto id = attribute(root, "ID"), inner_id = attribute(inner, "ID");
  auto active = attribute(inner, "ACTIVE");
  if (!id || !inner_id || *id != *inner_id || !active || *active != "true") return std::nullopt;
  return agent_who_reply{std::string(*id)};
}

}  // namespace perfdm
