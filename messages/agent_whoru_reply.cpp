// See agent_whoru_reply.hpp.
#include "messages/agent_whoru_reply.hpp"

#include <charconv>

#include "messages/agent_reply_xml.hpp"
#include "messages/xml_element.hpp"

namespace perfdm {

namespace {

using xml::element;

std::string text_element(const char* name, std::string_view text) {
  return element(name).wrap(xml_escaped(text));
}

// The text of an element holding only text ("" when empty); nothing when it holds elements.
std::optional<std::string> text_of(const agent_xml::node* n) {
  if (n->first_node() && (n->first_node()->type() != rapidxml::node_data ||
                          n->first_node()->next_sibling()))
    return std::nullopt;
  return std::string(n->value(), n->value_size());
}

std::optional<std::int64_t> signed_of(std::optional<std::string_view> v) {
  if (!v || v->empty()) return std::nullopt;
  std::int64_t x = 0;
  auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), x);
  if (ec != std::errc() || end != v->data() + v->size()) return std::nullopt;
  return x;
}

}  // namespace

std::string print_agent_whoru_reply(const agent_whoru_reply& x) {
  auto out = text_element("EXECUTABLE", x.executable);
  for (std::size_t i = 0; i < x.command_line.size(); ++i)
    out += text_element(i == 0 ? "START" : "ARG", x.command_line[i]);
  for (auto& [key, value] : x.environment)
    out += element("ENV").text("KEY", key).wrap(xml_escaped(value));
  return out + element("TIME")
                   .text("MILLIS", std::to_string(x.start_ns / 1'000'000))
                   .text("NANO", std::to_string(x.start_ns))
                   .leaf();
}

std::optional<agent_whoru_reply> parse_agent_whoru_reply(std::string_view text) {
  agent_xml::document doc(text);
  if (!doc.top()) return std::nullopt;
  auto* n = doc.top()->first_node();
  if (!n || n->type() != rapidxml::node_element || !agent_xml::named(n, "EXECUTABLE"))
    return std::nullopt;
  agent_whoru_reply out;
  auto exe = text_of(n);
  if (!exe) return std::nullopt;
  out.executable = std::move(*exe);
  n = n->next_sibling();
  // START, then the ARGs, then the ENVs, then TIME last.
  for (const char* name : {"START", "ARG"})
    for (; n && agent_xml::named(n, name); n = n->next_sibling()) {
      if (out.command_line.empty() != (name == std::string_view("START"))) return std::nullopt;
      auto arg = text_of(n);
      if (!arg) return std::nullopt;
      out.command_line.push_back(std::move(*arg));
    }
  for (; n && agent_xml::named(n, "ENV"); n = n->next_sibling()) {
    auto key = agent_xml::attribute(n, "KEY");
    auto value = text_of(n);
    if (!key || !value) return std::nullopt;
    out.environment.emplace_back(std::string(*key), std::move(*value));
  }
  if (!n || !agent_xml::named(n, "TIME") || n->next_sibling() || n->first_node())
    return std::nullopt;
  auto millis = signed_of(agent_xml::attribute(n, "MILLIS"));
  auto nano = signed_of(agent_xml::attribute(n, "NANO"));
  if (!millis || !nano || *millis != *nano / 1'000'000) return std::nullopt;
  out.start_ns = *nano;
  return out;
}

}  // namespace perfdm
