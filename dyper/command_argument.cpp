#include "dyper/command_argument.hpp"

namespace perfdm {

[[noreturn]] void refuse(dm_error code, const std::string& reason) {
  throw process_command_error(code, reason);
}
[[noreturn]] void bad_argument(const std::string& reason) {
  refuse(dm_error::bad_argument, reason);
}

std::string upper(std::string s) {
  for (auto& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return s;
}

argument::argument(const std::string& text) : buffer_(text.begin(), text.end()) {
  static const std::string open = "<A>", close = "</A>";
  buffer_.insert(buffer_.begin(), open.begin(), open.end());
  buffer_.insert(buffer_.end(), close.begin(), close.end());
  buffer_.push_back('\0');
  doc_ = std::make_unique<rapidxml::xml_document<char>>();
  try {
    doc_->parse<rapidxml::parse_validate_closing_tags>(buffer_.data());
  } catch (const rapidxml::parse_error& e) {
    refuse(dm_error::bad_xml, std::string("the argument is not XML: ") + e.what());
  }
  root_ = doc_->first_node();
}

const xml_node* argument::element() const {
  const xml_node* out = nullptr;
  for (auto* c = root_->first_node(); c != nullptr; c = c->next_sibling())
    if (c->type() == rapidxml::node_element) {
      if (out != nullptr) bad_argument("the command takes one argument element");
      out = c;
    }
  return out;
}

const xml_node* argument::element(std::initializer_list<const char*> names, bool required) const {
  auto* e = element();
  if (e == nullptr) {
    if (required)
      bad_argument("the command needs an argument element <" + std::string(*names.begin()) + ">");
    return nullptr;
  }
  for (auto* n : names)
    if (upper(e->name()) == n) return e;
  bad_argument(std::string("the command does not take <") + e->name() + ">");
}

std::string argument::text() const {
  if (element() != nullptr) bad_argument("the command takes text, not an element");
  return root_->value();
}

const char* find_attr(const xml_node* n, const char* name) {
  auto* a = n->first_attribute(name, 0, false);
  return a ? a->value() : nullptr;
}
std::string need_attr(const xml_node* n, const char* name) {
  if (auto* v = find_attr(n, name)) return v;
  bad_argument(std::string("<") + n->name() + "> needs the attribute " + name);
}

std::optional<bool> parse_flag(std::string s) {
  s = upper(s);
  if (s == "TRUE" || s == "T" || s == "1" || s == "YES") return true;
  if (s == "FALSE" || s == "F" || s == "0" || s == "NO") return false;
  return std::nullopt;
}
bool flag_attr(const xml_node* n, const char* name, bool fallback) {
  auto* v = find_attr(n, name);
  if (v == nullptr) return fallback;
  if (auto b = parse_flag(v)) return *b;
  bad_argument(std::string("<") + n->name() + "> " + name + "='" + v +
               "' is not a boolean (true/false/t/f/1/0)");
}

std::vector<const xml_node*> children(const xml_node* n, std::initializer_list<const char*> names) {
  std::vector<const xml_node*> out;
  for (auto* c = n->first_node(); c != nullptr; c = c->next_sibling()) {
    if (c->type() != rapidxml::node_element) continue;
    bool known = false;
    for (auto* x : names) known = known || upper(c->name()) == x;
    if (!known) bad_argument(std::string("<") + n->name() + "> does not hold <" + c->name() + ">");
    out.push_back(c);
  }
  return out;
}

}  // namespace perfdm
