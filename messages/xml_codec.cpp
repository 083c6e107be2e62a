// The XML codec's small API (messages/xml_codec.hpp) and the text helpers its parser
// (messages/xml_parse.cpp) and printer (messages/xml_print.cpp) share (messages/xml_text.hpp).
#include "messages/xml_codec.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <utility>

#include "messages/xml_text.hpp"

namespace perfdm {

namespace xml {

char ascii_upper(char c) {
  return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (ascii_upper(a[i]) != ascii_upper(b[i])) return false;
  return true;
}

std::string upper_case(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = ascii_upper(c);
  return out;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::string quoted(std::string_view s) {
  return "'" + std::string(s) + "'";
}
std::string tag(std::string_view name) {
  return "<" + std::string(name) + ">";
}

namespace {

constexpr std::pair<char, const char*> entities[] = {
    {'&', "&amp;"},  {'<', "&lt;"},   {'>', "&gt;"},   {'\'', "&apos;"},
    {'"', "&quot;"}, {'\n', "&#10;"}, {'\r', "&#13;"},
};

}  // namespace

void append_escaped(std::string& out, std::string_view s) {
  for (char c : s) {
    auto e = std::find_if(std::begin(entities), std::end(entities),
                          [c](const auto& entity) { return entity.first == c; });
    if (e != std::end(entities))
      out += e->second;
    else
      out += c;
  }
}

}  // namespace xml

std::string xml_escaped(std::string_view s) {
  std::string out;
  xml::append_escaped(out, s);
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && xml::is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && xml::is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string format_number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[32];  // the longest shortest form of a double is 24 characters
  auto result = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, result.ptr);
}

}  // namespace perfdm
