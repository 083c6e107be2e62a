#include "messages/xml_parse_support.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <utility>

namespace perfdm::xml {

std::string_view name_of(const xml_node* n) {
  return {n->name(), n->name_size()};
}
std::string_view name_of(const xml_attribute* a) {
  return {a->name(), a->name_size()};
}
std::string_view value_of(const xml_attribute* a) {
  return {a->value(), a->value_size()};
}

[[noreturn]] void fail(dm_error code, std::string reason) {
  throw parse_failure{make_dm_error(code, std::move(reason))};
}

[[noreturn]] void bad_argument(std::string reason) {
  fail(dm_error::bad_argument, std::move(reason));
}

// A handle is a non-negative decimal integer that fits 64 bits: no sign, no spaces.
std::optional<std::uint64_t> parse_id(std::string_view s) {
  std::uint64_t x = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (s.empty() || ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return x;
}

// A finite decimal number. strtod alone would also take leading spaces, hex and `inf`, so
// the characters are checked first; the end check catches trailing garbage.
std::optional<double> parse_number(std::string_view s) {
  if (s.empty() || s.find_first_not_of("0123456789+-.eE") != std::string_view::npos)
    return std::nullopt;
  std::string buf(s);  // strtod needs a NUL-terminated string
  char* end = nullptr;
  double x = std::strtod(buf.c_str(), &end);
  if (end != buf.c_str() + buf.size() || !std::isfinite(x)) return std::nullopt;
  return x;
}

std::optional<bool> parse_bool(std::string_view s) {
  static constexpr std::pair<const char*, bool> words[] = {
      {"true", true},   {"t", true},  {"1", true},  {"yes", true},
      {"false", false}, {"f", false}, {"0", false}, {"no", false},
  };
  for (auto& [word, value] : words)
    if (iequals(s, word)) return value;
  return std::nullopt;
}

// This is not a parser: it mirrors only how RapidXML skips the constructs that can hide '<'
// (comments, CDATA, processing instructions, DOCTYPE, other `<!`, quoted attribute values),
// so its count is exact up to the first malformed spot, where RapidXML stops anyway.
bool nests_too_deep(std::string_view s) {
  constexpr auto npos = std::string_view::npos;
  auto after = [&](std::string_view end, std::size_t from) {
    auto j = s.find(end, from);
    return j == npos ? s.size() : j + end.size();
  };
  auto at = [&](std::size_t i, std::string_view prefix) {
    return s.substr(i, prefix.size()) == prefix;
  };
  std::size_t depth = 0;
  for (std::size_t i = s.find('<'); i != npos && i < s.size(); i = s.find('<', i)) {
    if (at(i, "<!--")) {
      i = after("-->", i + 4);
    } else if (at(i, "<![CDATA[")) {
      i = after("]]>", i + 9);
    } else if (at(i, "<?")) {
      i = after("?>", i + 2);
    } else if (at(i, "<!DOCTYPE") && i + 9 < s.size() && is_space(s[i + 9])) {
      // Up to the first '>' outside (nested) brackets.
      std::size_t brackets = 0;
      for (i += 10; i < s.size() && (brackets > 0 || s[i] != '>'); ++i) {
        if (s[i] == '[')
          ++brackets;
        else if (s[i] == ']' && brackets > 0)
          --brackets;
      }
      ++i;
    } else if (at(i, "<!")) {
      i = after(">", i + 2);
    } else if (at(i, "</")) {
      if (depth > 0) --depth;
      i = after(">", i + 2);
    } else {  // a start tag: its end is the first '>' outside a quoted value
      char quote = 0;
      std::size_t j = i + 1;
      for (; j < s.size() && (quote != 0 || s[j] != '>'); ++j)
        if (quote == 0 && (s[j] == '\'' || s[j] == '"'))
          quote = s[j];
        else if (s[j] == quote)
          quote = 0;
      if (j == s.size()) return false;  // unfinished: RapidXML reports it
      if (s[j - 1] != '/' && ++depth > max_depth) return true;
      i = j + 1;
    }
  }
  return false;
}

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  std::size_t i = 0;
  while (i < text.size()) {
    unsigned char c = byte(i);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t n;
    unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) n = 1;
    else if (c == 0xE0) n = 2, lo = 0xA0;
    else if (c >= 0xE1 && c <= 0xEC) n = 2;
    else if (c == 0xED) n = 2, hi = 0x9F;
    else if (c >= 0xEE && c <= 0xEF) n = 2;
    else if (c == 0xF0) n = 3, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) n = 3;
    else if (c == 0xF4) n = 3, hi = 0x8F;
    else return i;
    if (i + n >= text.size()) return i;  // the sequence is cut short
    for (std::size_t k = 1; k <= n; ++k) {
      unsigned char b = byte(i + k);
      if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return i;
    }
    i += n + 1;
  }
  return std::nullopt;
}

bool is_text(const xml_node* n) {
  return n->type() == rapidxml::node_data || n->type() == rapidxml::node_cdata;
}

// Text inside the envelope or an argument means the request is not what the sender thinks
// it is; it is refused instead of ignored. Whitespace (multi-line DyPer messages) is fine.
void refuse_text(const xml_node* n, const xml_node* parent) {
  if (is_text(n) && !trim({n->value(), n->value_size()}).empty())
    bad_argument("unexpected text " + quoted(trim({n->value(), n->value_size()})) + " inside " +
                 tag(name_of(parent)));
}

// An argument element holds attributes only.
void expect_leaf(const xml_node* n) {
  for (auto* c = n->first_node(); c != nullptr; c = c->next_sibling()) {
    refuse_text(c, n);
    if (c->type() == rapidxml::node_element)
      bad_argument(tag(name_of(n)) + " takes no child elements, but has " + tag(name_of(c)));
  }
}

// RapidXML turns a character reference into the character it stands for, and `&#0;`, `&#;`
// or a reference whose value overflows to 0 into a NUL byte. XML allows no NUL, and a name
// or value holding one would print into a canonical line that parse_request() refuses (a
// recorded session would not replay), so it is refused like a NUL in the text.
void refuse_nul(const xml_node* element) {
  constexpr auto npos = std::string_view::npos;
  for (auto* a = element->first_attribute(); a != nullptr; a = a->next_attribute())
    if (value_of(a).find('\0') != npos)
      fail(dm_error::bad_xml, "a character reference in the attribute " +
                                  std::string(name_of(a)) + " of " + tag(name_of(element)) +
                                  " stands for NUL, which XML does not allow");
  for (auto* c = element->first_node(); c != nullptr; c = c->next_sibling()) {
    if (c->type() == rapidxml::node_element)
      refuse_nul(c);
    else if (std::string_view(c->value(), c->value_size()).find('\0') != npos)
      fail(dm_error::bad_xml, "a character reference inside " + tag(name_of(element)) +
                                  " stands for NUL, which XML does not allow");
  }
}

// The single argument element of a request, or nullptr when it has none.
const xml_node* argument_of(const xml_node* root, const std::string& command) {
  const xml_node* arg = nullptr;
  for (auto* c = root->first_node(); c != nullptr; c = c->next_sibling()) {
    refuse_text(c, root);
    if (c->type() != rapidxml::node_element) continue;
    if (arg != nullptr)
      bad_argument("command " + command + " takes one argument element, but has " +
                   tag(name_of(arg)) + " and " + tag(name_of(c)));
    arg = c;
  }
  return arg;
}

// The argument `arg` must exist and be a `name` element.
const xml_node* require(const xml_node* arg, const char* name, const std::string& command) {
  if (arg == nullptr) bad_argument("command " + command + " needs a <" + name + "> argument");
  if (!iequals(name_of(arg), name))
    bad_argument("command " + command + " takes a <" + name + "> argument, not " +
                 tag(name_of(arg)));
  return arg;
}

const xml_node* require_leaf(const xml_node* arg, const char* name, const std::string& command) {
  expect_leaf(require(arg, name, command));
  return arg;
}

std::string inner_xml(const xml_node* n) {
  std::string out;
  for (auto* c = n->first_node(); c != nullptr; c = c->next_sibling()) {
    if (c->type() == rapidxml::node_data || c->type() == rapidxml::node_cdata) {
      append_escaped(out, {c->value(), c->value_size()});
    } else if (c->type() == rapidxml::node_element) {
      out += '<';
      out += name_of(c);
      for (auto* a = c->first_attribute(); a != nullptr; a = a->next_attribute()) {
        out += ' ';
        out += name_of(a);
        out += "='";
        append_escaped(out, value_of(a));
        out += '\'';
      }
      out += '>';
      out += inner_xml(c);
      out += "</";
      out += name_of(c);
      out += '>';
    }
  }
  return out;
}

}  // namespace perfdm::xml
