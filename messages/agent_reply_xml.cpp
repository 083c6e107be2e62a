// See agent_reply_xml.hpp.
#include "messages/agent_reply_xml.hpp"

#include <charconv>
#include <cmath>

namespace perfdm::agent_xml {

document::document(std::string_view text) {
  static constexpr std::string_view open = "<R>", close = "</R>";
  buffer_.reserve(open.size() + text.size() + close.size() + 1);
  buffer_.insert(buffer_.end(), open.begin(), open.end());
  buffer_.insert(buffer_.end(), text.begin(), text.end());
  buffer_.insert(buffer_.end(), close.begin(), close.end());
  buffer_.push_back('\0');
  try {
    doc_.parse<rapidxml::parse_validate_closing_tags>(buffer_.data());
  } catch (const rapidxml::parse_error&) {
    return;
  }
  top_ = doc_.first_node();
}

const node* document::root() const {
  if (!top_) return nullptr;
  auto* r = top_->first_node();
  if (!r || r->type() != rapidxml::node_element || r->next_sibling()) return nullptr;
  return r;
}

bool named(const node* n, std::string_view name) {
  return std::string_view(n->name(), n->name_size()) == name;
}

std::optional<std::string_view> attribute(const node* n, const char* name) {
  auto* a = n->first_attribute(name);
  if (!a) return std::nullopt;
  return std::string_view(a->value(), a->value_size());
}

std::optional<bool> flag(const node* n, const char* name) {
  auto v = attribute(n, name);
  if (v == "true") return true;
  if (v == "false") return false;
  return std::nullopt;
}

namespace {

// The whole of attribute `name` read by from_chars as a T.
template <class T>
std::optional<T> whole(const node* n, const char* name) {
  auto v = attribute(n, name);
  if (!v || v->empty()) return std::nullopt;
  T x{};
  auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), x);
  if (ec != std::errc() || end != v->data() + v->size()) return std::nullopt;
  return x;
}

}  // namespace

std::optional<std::uint64_t> count(const node* n, const char* name) {
  return whole<std::uint64_t>(n, name);
}

std::optional<std::int64_t> integer(const node* n, const char* name) {
  return whole<std::int64_t>(n, name);
}

std::optional<double> number(const node* n, const char* name) {
  auto x = whole<double>(n, name);
  if (!x || !std::isfinite(*x)) return std::nullopt;
  return x;
}

std::optional<std::vector<const node*>> children(const node* n, std::string_view name) {
  std::vector<const node*> out;
  for (auto* c = n->first_node(); c; c = c->next_sibling()) {
    if (c->type() != rapidxml::node_element || !named(c, name)) return std::nullopt;
    out.push_back(c);
  }
  return out;
}

}  // namespace perfdm::agent_xml
