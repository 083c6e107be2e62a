// What the XML codec's parser (messages/xml_parse.cpp) stands on: the checks made on the raw
// text before RapidXML sees it (UTF-8, nesting depth), the error it throws while judging a
// request (parse_failure), value parsers, the attribute reader, and the structure checks on
// elements. Internal to the codec.
//
// Every problem stops the parse with a parse_failure exception carrying the DM error, so the
// nested helpers can return plain values instead of threading errors through every call.
#pragma once

#include <caf/error.hpp>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <rapidxml/rapidxml.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/xml_codec.hpp"
#include "messages/xml_text.hpp"

namespace perfdm::xml {

using xml_node = rapidxml::xml_node<char>;
using xml_attribute = rapidxml::xml_attribute<char>;

std::string_view name_of(const xml_node* n);
std::string_view name_of(const xml_attribute* a);
std::string_view value_of(const xml_attribute* a);

// ---------------------------------------------------------------------------------------
// Errors while parsing.

struct parse_failure {
  caf::error error;
};

[[noreturn]] void fail(dm_error code, std::string reason);

[[noreturn]] void bad_argument(std::string reason);

// ---------------------------------------------------------------------------------------
// Value parsers: string -> value, nullopt when the text is not one. The callers turn
// nullopt into a BAD_ARGUMENT that names the attribute.

// A handle is a non-negative decimal integer that fits 64 bits: no sign, no spaces.
std::optional<std::uint64_t> parse_id(std::string_view s);
// A finite decimal number.
std::optional<double> parse_number(std::string_view s);
// true/false/t/f/1/0/yes/no, any case.
std::optional<bool> parse_bool(std::string_view s);

// ---------------------------------------------------------------------------------------
// Reading the attributes of one element.

// The attributes of one element, checked up front against the names the element accepts:
// an unknown or repeated attribute is refused rather than silently ignored, so a typo like
// PERSISTANT_DATA='true' cannot pass for the default. Typed getters parse one kind of value
// each and name the attribute and the offending text in their errors.
class attributes {
 public:
  attributes(const xml_node* node, std::initializer_list<const char*> known, std::string where = "")
      : where_(where.empty() ? tag(name_of(node)) : std::move(where)),
        names_(known),
        values_(known.size()) {
    for (auto* a = node->first_attribute(); a != nullptr; a = a->next_attribute()) {
      auto i = index_of(name_of(a));
      if (i == names_.size())
        bad_argument(where_ + " does not take an attribute " + std::string(name_of(a)));
      if (values_[i])
        bad_argument(where_ + " gives the attribute " + names_[i] + " more than once");
      values_[i] = value_of(a);
    }
  }

  std::optional<std::string_view> find(const char* name) const { return values_[index_of(name)]; }

  std::string_view text(const char* name) const {
    if (auto v = find(name)) return *v;
    bad_argument(where_ + " needs the attribute " + name);
  }

  std::string_view text_or(const char* name, std::string_view fallback) const {
    return find(name).value_or(fallback);
  }

  template <class Handle>
  Handle id(const char* name) const {
    auto s = text(name);
    if (auto x = parse_id(s)) return Handle{*x};
    invalid(name, s, "a non-negative integer handle");
  }

  double number(const char* name) const {
    auto s = text(name);
    if (auto x = parse_number(s)) return *x;
    invalid(name, s, "a finite decimal number");
  }

  bool boolean_or(const char* name, bool fallback) const {
    auto s = find(name);
    if (!s) return fallback;
    if (auto x = parse_bool(*s)) return *x;
    invalid(name, *s, "a boolean (true/false/t/f/1/0/yes/no)");
  }

  // GLOBAL or CURRENT (any case); GLOBAL when absent.
  phase_type phase_type_or_global(const char* name) const {
    auto s = text_or(name, "GLOBAL");
    if (auto x = parse_phase_type(s)) return *x;
    invalid(name, s, "GLOBAL or CURRENT");
  }

  // GLOBAL, CURRENT or a phase id; GLOBAL when absent.
  phase_ref phase_or_global(const char* name) const {
    auto s = text_or(name, "GLOBAL");
    if (auto x = parse_phase_type(s)) return phase_ref{*x, false, {}};
    if (auto x = parse_id(s)) return phase_ref{phase_type::current, true, phase_handle{*x}};
    invalid(name, s, "GLOBAL, CURRENT or a phase id");
  }

  metric_style style_or_counter(const char* name) const {
    auto s = text_or(name, "COUNTER");
    if (iequals(s, "COUNTER")) return metric_style::counter;
    if (iequals(s, "SAMPLED")) return metric_style::sampled;
    invalid(name, s, "COUNTER or SAMPLED");
  }

  // The persistence flags; each false when absent.
  persistence flags() const {
    persistence p;
    for (auto& f : flag_attributes) p.*f.member = boolean_or(f.name, false);
    return p;
  }

  // A comma-separated list of resource names, each starting with '/'; "/" when absent.
  std::vector<std::string> focus(const char* name) const {
    auto s = text_or(name, "/");
    std::vector<std::string> out;
    for (std::size_t pos = 0;;) {
      auto comma = s.find(',', pos);
      auto part = trim(s.substr(pos, comma == std::string_view::npos ? s.npos : comma - pos));
      if (part.empty() || part.front() != '/')
        bad_argument("attribute " + std::string(name) + " of " + where_ +
                     " must list resource names starting with '/', separated by ','; " +
                     quoted(part) + " in " + quoted(s) + " is not one");
      out.emplace_back(part);
      if (comma == std::string_view::npos) return out;
      pos = comma + 1;
    }
  }

  const std::string& where() const { return where_; }

 private:
  static std::optional<phase_type> parse_phase_type(std::string_view s) {
    if (iequals(s, "GLOBAL")) return phase_type::global;
    if (iequals(s, "CURRENT")) return phase_type::current;
    return std::nullopt;
  }

  std::size_t index_of(std::string_view name) const {
    for (std::size_t i = 0; i < names_.size(); ++i)
      if (iequals(name, names_[i])) return i;
    return names_.size();
  }

  [[noreturn]] void invalid(const char* name, std::string_view value, const char* expected) const {
    bad_argument("attribute " + std::string(name) + " of " + where_ + " must be " + expected +
                 ", not " + quoted(value));
  }

  std::string where_;
  std::vector<const char*> names_;
  std::vector<std::optional<std::string_view>> values_;
};

// ---------------------------------------------------------------------------------------
// Checks on the raw text, before RapidXML sees it.

// RapidXML descends recursively, several stack frames per nesting level, so a few hundred KiB
// of `<a><a><a>...` would overflow the parsing thread's stack and kill the process. Requests
// nest three levels (DYPER > SAMPLES > S), so deeper text is refused before RapidXML sees it.
inline constexpr std::size_t max_depth = 32;

// Whether RapidXML would nest elements deeper than max_depth in `s`.
bool nests_too_deep(std::string_view s);

// The offset of the first byte that is not part of well-formed UTF-8 (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF), or nothing when all of `text` is.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

// ---------------------------------------------------------------------------------------
// Structure checks.

bool is_text(const xml_node* n);
// Text inside the envelope or an argument means the request is not what the sender thinks
// it is; it is refused instead of ignored. Whitespace (multi-line DyPer messages) is fine.
void refuse_text(const xml_node* n, const xml_node* parent);
// An argument element holds attributes only.
void expect_leaf(const xml_node* n);
// A character reference that stands for NUL is refused like a NUL in the text.
void refuse_nul(const xml_node* element);
// The single argument element of a request, or nullptr when it has none.
const xml_node* argument_of(const xml_node* root, const std::string& command);
// The argument `arg` must exist and be a `name` element.
const xml_node* require(const xml_node* arg, const char* name, const std::string& command);
const xml_node* require_leaf(const xml_node* arg, const char* name, const std::string& command);

// The content of an element as XML text (elements, their attributes and text, escaped
// again), for the process commands that read their argument themselves.
std::string inner_xml(const xml_node* n);

}  // namespace perfdm::xml
