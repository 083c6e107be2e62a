// What the agent replies' parsers (agent_replies.cpp, agent_settings_replies.cpp, …) share:
// one reply text read with RapidXML, and the few questions they ask of its elements.
#pragma once

#include <cstdint>
#include <optional>
#include <rapidxml/rapidxml.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace perfdm::agent_xml {

using node = rapidxml::xml_node<char>;

// One reply text, parsed; it owns the characters its nodes point at.
class document {
 public:
  // `text` inside a wrapper element, so that a reply of several top-level elements (SET's
  // SETTINGS and IGNORED) reads as the wrapper's children. Nothing read when it is no XML.
  explicit document(std::string_view text);
  // The single top-level element; nullptr when there is none, several, or no XML.
  const node* root() const;
  // The wrapper: its element children are the reply's top-level elements.
  const node* top() const { return top_; }

 private:
  std::vector<char> buffer_;
  rapidxml::xml_document<char> doc_;
  const node* top_ = nullptr;
};

bool named(const node* n, std::string_view name);
std::optional<std::string_view> attribute(const node* n, const char* name);
// `true` or `false`, as the agent prints its flags; nothing otherwise.
std::optional<bool> flag(const node* n, const char* name);
// A decimal count; nothing when it is absent or not one.
std::optional<std::uint64_t> count(const node* n, const char* name);
// A decimal integer, perhaps negative; nothing when it is absent or not one.
std::optional<std::int64_t> integer(const node* n, const char* name);
// A finite number as format_number() writes it; nothing when it is absent or not one.
std::optional<double> number(const node* n, const char* name);
// The element children of `n`, each named `name`; nothing when another element or text is
// among them.
std::optional<std::vector<const node*>> children(const node* n, std::string_view name);

// What `read` (a reader of one element) makes of `text`'s single top-level element; nothing
// when `text` has none, several, or is no XML.
template <class Read>
auto read_root(std::string_view text, Read read) -> decltype(read(nullptr)) {
  document doc(text);
  auto* root = doc.root();
  if (!root) return std::nullopt;
  return read(root);
}

}  // namespace perfdm::agent_xml
