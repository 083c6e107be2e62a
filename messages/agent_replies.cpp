// See agent_replies.hpp.
#include "messages/agent_replies.hpp"

#include <charconv>
#include <rapidxml/rapidxml.hpp>
#include <vector>

#include "messages/xml_codec.hpp"

namespace perfdm {

namespace {

using xml_node = rapidxml::xml_node<char>;

// The root element of `text`, parsed into `buffer` (which holds what the nodes point at).
const xml_node* root_of(std::string_view text, std::vector<char>& buffer,
                        rapidxml::xml_document<char>& doc) {
  buffer.assign(text.begin(), text.end());
  buffer.push_back('\0');
  try {
    doc.parse<rapidxml::parse_validate_closing_tags>(buffer.data());
  } catch (const rapidxml::parse_error&) {
    return nullptr;
  }
  auto* root = doc.first_node();
  return root && !root->next_sibling() ? root : nullptr;
}

std::optional<std::string_view> attribute(const xml_node* n, const char* name) {
  auto* a = n->first_attribute(name);
  if (!a) return std::nullopt;
  return std::string_view(a->value(), a->value_size());
}

bool named(const xml_node* n, std::string_view name) {
  return std::string_view(n->name(), n->name_size()) == name;
}

}  // namespace

std::string print_patch_reply(const patch_reply& x) {
  return "<PATCH TIME='" + std::to_string(x.time_ms) + "'/>";
}

std::optional<patch_reply> parse_patch_reply(std::string_view text) {
  std::vector<char> buffer;
  rapidxml::xml_document<char> doc;
  auto* root = root_of(text, buffer, doc);
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
  std::vector<char> buffer;
  rapidxml::xml_document<char> doc;
  auto* root = root_of(text, buffer, doc);
  if (!root || !named(root, "DYPER_REPLY")) return std::nullopt;
  auto* inner = root->first_node();
  if (!inner || inner->next_sibling() || !named(inner, "DYPER_REPLY")) return std::nullopt;
  auto id = attribute(root, "ID"), inner_id = attribute(inner, "ID");
  auto active = attribute(inner, "ACTIVE");
  if (!id || !inner_id || *id != *inner_id || !active || *active != "true") return std::nullopt;
  return agent_who_reply{std::string(*id)};
}

}  // namespace perfdm
