// The builder of one printed element of the XML command language, in its canonical form.
// Internal to the codec's printer (messages/xml_print.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "messages/dm_types.hpp"
#include "messages/handles.hpp"
#include "messages/xml_codec.hpp"
#include "messages/xml_text.hpp"

namespace perfdm::xml {

// Builds one element: attributes in call order, then either `/>` (leaf) or a body and the
// closing tag (wrap). Container elements always use wrap, even when empty, so their form
// does not depend on their content. Values are escaped, numbers written by format_number().
class element {
 public:
  explicit element(const char* name) : name_(name) { out_ = "<" + name_; }

  element& text(const char* key, std::string_view value) {
    out_ += ' ';
    out_ += key;
    out_ += "='";
    append_escaped(out_, value);
    out_ += '\'';
    return *this;
  }
  element& number(const char* key, double x) { return text(key, format_number(x)); }
  element& count(const char* key, std::uint64_t x) { return text(key, std::to_string(x)); }
  element& integer(const char* key, std::int64_t x) { return text(key, std::to_string(x)); }
  template <class Tag>
  element& id(const char* key, handle<Tag> h) {
    return count(key, h.id);
  }
  element& flag(const char* key, bool b) { return text(key, b ? "true" : "false"); }
  element& flags(const persistence& p) {
    for (auto& f : flag_attributes) flag(f.name, p.*f.member);
    return *this;
  }

  std::string leaf() const { return out_ + "/>"; }
  // `body` is already XML (or escaped text).
  std::string wrap(std::string_view body) const {
    return out_ + ">" + std::string(body) + "</" + name_ + ">";
  }

 private:
  std::string name_;
  std::string out_;
};

// The texts of `xs` made by `f`, with `sep` between them.
template <class T, class F>
std::string join(const std::vector<T>& xs, const char* sep, F&& f) {
  std::string out;
  bool first = true;
  for (auto& x : xs) {
    if (!first) out += sep;
    first = false;
    out += f(x);
  }
  return out;
}

}  // namespace perfdm::xml
