// The XML command language of PROTOCOL.md <-> the message structs of dm_messages.hpp.
//
// Parsing: RapidXML builds the element tree (it throws rapidxml::parse_error on text that is
// not XML -> BAD_XML; a depth guard keeps its recursion off deep nesting); the code below
// only judges names and attribute values. Every problem
// after that stops the parse with a parse_failure exception carrying the DM error, so the
// nested helpers can return plain values instead of threading errors through every call.
//
// Printing: one small function per struct builds its element with `element` below, which
// quotes with single quotes, escapes values and writes numbers via format_number(), so all
// output shares one canonical form.
#include "messages/xml_codec.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <optional>
#include <rapidxml/rapidxml.hpp>
#include <utility>
#include <vector>

#include "messages/callgraph_messages.hpp"
#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/message_lists.hpp"
#include "messages/native_messages.hpp"
#include "messages/process_command_messages.hpp"
#include "messages/process_messages.hpp"
#include "messages/search_messages.hpp"

namespace perfdm {

namespace {

// A SAMPLES request may carry at most this many samples (LIMIT beyond).
constexpr std::size_t max_samples = 1'000'000;

using xml_node = rapidxml::xml_node<char>;
using xml_attribute = rapidxml::xml_attribute<char>;

// ---------------------------------------------------------------------------------------
// Small text helpers. Names are ASCII, so a plain ASCII case fold is all we need (and it
// does not depend on the process locale).

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

std::string_view name_of(const xml_node* n) {
  return {n->name(), n->name_size()};
}
std::string_view name_of(const xml_attribute* a) {
  return {a->name(), a->name_size()};
}
std::string_view value_of(const xml_attribute* a) {
  return {a->value(), a->value_size()};
}

std::string quoted(std::string_view s) {
  return "'" + std::string(s) + "'";
}
std::string tag(std::string_view name) {
  return "<" + std::string(name) + ">";
}

// ---------------------------------------------------------------------------------------
// Errors while parsing.

struct parse_failure {
  caf::error error;
};

[[noreturn]] void fail(dm_error code, std::string reason) {
  throw parse_failure{make_dm_error(code, std::move(reason))};
}

[[noreturn]] void bad_argument(std::string reason) {
  fail(dm_error::bad_argument, std::move(reason));
}

// ---------------------------------------------------------------------------------------
// Value parsers: string -> value, nullopt when the text is not one. The callers turn
// nullopt into a BAD_ARGUMENT that names the attribute.

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

// The three persistence flags in their protocol order, so readers and printers share one list.
struct flag_attribute {
  const char* name;
  bool persistence::*member;
};
constexpr flag_attribute flag_attributes[] = {
    {"PERSISTENT_DATA", &persistence::data},
    {"PERSISTENT_COLLECTION", &persistence::collection},
    {"PHASE_PERSISTENT_DATA", &persistence::phase_data},
};

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
// Nesting guard.

// RapidXML descends recursively, several stack frames per nesting level, so a few hundred KiB
// of `<a><a><a>...` would overflow the parsing thread's stack and kill the process. Requests
// nest three levels (DYPER > SAMPLES > S), so deeper text is refused before RapidXML sees it.
constexpr std::size_t max_depth = 32;

// Whether RapidXML would nest elements deeper than max_depth in `s`. This is not a parser:
// it mirrors only how RapidXML skips the constructs that can hide '<' (comments, CDATA,
// processing instructions, DOCTYPE, other `<!`, quoted attribute values), so its count is
// exact up to the first malformed spot, where RapidXML stops anyway.
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

// ---------------------------------------------------------------------------------------
// Structure checks.

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

// ---------------------------------------------------------------------------------------
// One parser per DM command: (argument element or nullptr, command name) -> request.

using command_parser = caf::message (*)(const xml_node* arg, const std::string& command);

template <class Request>
caf::message no_argument(const xml_node* arg, const std::string& command) {
  if (arg != nullptr)
    bad_argument("command " + command + " takes no argument, but has " + tag(name_of(arg)));
  return caf::make_message(Request{});
}

caf::message parse_define(const xml_node* arg, const std::string& command) {
  if (arg != nullptr && iequals(name_of(arg), "RESOURCE")) {
    expect_leaf(arg);
    attributes a(arg, {"NAME"});
    auto name = a.text("NAME");
    if (name.empty() || name.front() != '/')
      bad_argument("attribute NAME of <RESOURCE> must be a resource name starting with '/', not " +
                   quoted(name));
    return caf::make_message(define_resource{std::string(name)});
  }
  if (arg == nullptr || !iequals(name_of(arg), "METRIC"))
    bad_argument("command " + command + " takes a <METRIC> or <RESOURCE> argument" +
                 (arg ? ", not " + tag(name_of(arg)) : std::string()));
  expect_leaf(arg);
  attributes a(arg, {"NAME", "STYLE", "UNITS"});
  define_metric r;
  r.name = a.text("NAME");
  if (r.name.empty()) bad_argument("attribute NAME of <METRIC> must not be empty");
  r.style = a.style_or_counter("STYLE");
  r.units = a.text_or("UNITS", "");
  return caf::make_message(std::move(r));
}

caf::message parse_close(const xml_node* arg, const std::string& command) {
  attributes a(require_leaf(arg, "STREAM", command), {"ID"});
  return caf::make_message(close_stream{a.id<stream_handle>("ID")});
}

caf::message parse_enable(const xml_node* arg, const std::string& command) {
  attributes a(require_leaf(arg, "ENABLE", command),
               {"STREAM", "METRIC", "FOCUS", "PHASE", "PERSISTENT_DATA", "PERSISTENT_COLLECTION",
                "PHASE_PERSISTENT_DATA"});
  enable_request r;
  r.stream = a.id<stream_handle>("STREAM");
  r.metric = a.text("METRIC");
  r.focus = a.focus("FOCUS");
  r.phase = a.phase_or_global("PHASE");
  r.flags = a.flags();
  return caf::make_message(std::move(r));
}

caf::message parse_disable(const xml_node* arg, const std::string& command) {
  attributes a(require_leaf(arg, "DISABLE", command), {"STREAM", "MI", "PHASE"});
  disable_request r;
  r.stream = a.id<stream_handle>("STREAM");
  r.mi = a.id<mi_handle>("MI");
  r.phase = a.phase_type_or_global("PHASE");
  return caf::make_message(r);
}

// SETFLAGS and CLEARFLAGS: only flags given as true are addressed; `PERSISTENT_DATA='false'`
// is accepted but addresses nothing, so a request that addresses nothing is an error.
caf::message parse_flags(const xml_node* arg, const std::string& command) {
  attributes a(require_leaf(arg, "FLAGS", command),
               {"MI", "PERSISTENT_DATA", "PERSISTENT_COLLECTION", "PHASE_PERSISTENT_DATA"});
  flags_request r;
  r.mi = a.id<mi_handle>("MI");
  r.named = a.flags();
  r.set = command == "SETFLAGS";
  if (r.named == persistence{})
    bad_argument("command " + command +
                 " must name at least one flag as true (PERSISTENT_DATA, PERSISTENT_COLLECTION or "
                 "PHASE_PERSISTENT_DATA)");
  return caf::make_message(r);
}

caf::message parse_phase(const xml_node* arg, const std::string& command) {
  if (arg == nullptr) return caf::make_message(start_phase{});
  attributes a(require_leaf(arg, "PHASE", command), {"NAME"});
  return caf::make_message(start_phase{std::string(a.text_or("NAME", ""))});
}

caf::message parse_samples(const xml_node* arg, const std::string& command) {
  auto* node = require(arg, "SAMPLES", command);
  attributes none(node, {});
  samples_request r;
  for (auto* c = node->first_node(); c != nullptr; c = c->next_sibling()) {
    refuse_text(c, node);
    if (c->type() != rapidxml::node_element) continue;
    if (!iequals(name_of(c), "S"))
      bad_argument("<SAMPLES> holds only <S> elements, not " + tag(name_of(c)));
    if (r.samples.size() == max_samples)
      fail(dm_error::limit,
           "a SAMPLES request may carry at most " + std::to_string(max_samples) + " samples");
    expect_leaf(c);
    attributes a(c, {"MI", "START", "END", "VALUE"},
                 "sample " + std::to_string(r.samples.size() + 1) + " <S>");
    sample s;
    s.mi = a.id<mi_handle>("MI");
    s.start = a.number("START");
    s.end = a.number("END");
    s.value = a.number("VALUE");
    if (s.end < s.start)
      bad_argument(a.where() + " ends (END='" + format_number(s.end) +
                   "') before it starts (START='" + format_number(s.start) + "')");
    r.samples.push_back(s);
  }
  return caf::make_message(std::move(r));
}

caf::message parse_data(const xml_node* arg, const std::string& command) {
  attributes a(require_leaf(arg, "DATA", command), {"MI", "PHASE"});
  data_request r;
  r.mi = a.id<mi_handle>("MI");
  r.phase = a.phase_or_global("PHASE");
  return caf::make_message(r);
}

caf::message parse_log(const xml_node* arg, const std::string& command) {
  if (arg == nullptr) return caf::make_message(write_log{});
  attributes a(require_leaf(arg, "LOG", command), {"FILE"});
  return caf::make_message(write_log{std::string(a.text_or("FILE", ""))});
}

// DyPer names a process `<pid>@<host>`: the pid is what counts here (the engine observes
// processes of its own host).
std::optional<std::uint64_t> parse_pid(std::string_view s) {
  if (auto at = s.find('@'); at != std::string_view::npos && at + 1 < s.size())
    s = s.substr(0, at);
  return parse_id(s);
}

// A process id: a positive decimal integer that fits a pid_t (or DyPer's `<pid>@<host>`).
std::int32_t pid_of(const attributes& a) {
  auto s = a.text("PID");
  auto x = parse_pid(s);
  if (!x || *x == 0 || *x > 0x7fffffff)
    bad_argument("<PROCESS> PID must be a process id (a positive integer), not '" + std::string(s) + "'");
  return static_cast<std::int32_t>(*x);
}

// An optional count within [low, high], a power of two when asked; 0 when absent.
std::uint32_t count_of(const attributes& a, const char* name, std::uint64_t low,
                       std::uint64_t high, bool power_of_two) {
  auto v = a.find(name);
  if (!v) return 0;
  auto x = parse_id(*v);
  if (!x || *x < low || *x > high || (power_of_two && (*x & (*x - 1)) != 0))
    bad_argument("<PROCESS> " + std::string(name) + " must be " +
                 (power_of_two ? "a power of two " : "an integer ") + "from " +
                 std::to_string(low) + " to " + std::to_string(high) + ", not '" +
                 std::string(*v) + "'");
  return static_cast<std::uint32_t>(*x);
}

// SEARCH: the tunables of docs/PROTOCOL.md, each checked for its range here so that a
// search never runs with a threshold it cannot use.
struct search_tunable_attribute {
  const char* name;
  double low;
  bool low_open;  // the value must be greater than `low` (else at least)
  double high;    // inclusive
};
constexpr search_tunable_attribute search_tunable_attributes[] = {
    {"CPU_THRESHOLD", 0, false, 1e9},  {"SYNC_THRESHOLD", 0, false, 1e9},
    {"IO_THRESHOLD", 0, false, 1e9},   {"SMALL_IO_BYTES", 0, false, 1e18},
    {"HYSTERESIS", 0, false, 0.99},    {"SUFFICIENT_TIME", 0, true, 1e6},
    {"MAX_PENDING", 1, false, 1e6},    {"MAX_ACTIVE", 1, false, 1e9},
    {"COST_BUDGET", 0, true, 1},
};

caf::message parse_search(const xml_node* arg, const std::string& command) {
  std::initializer_list<const char*> known{
      "PHASE", "ACTION", "FOLLOW", "CPU_THRESHOLD", "SYNC_THRESHOLD", "IO_THRESHOLD", "SMALL_IO_BYTES",
      "HYSTERESIS", "SUFFICIENT_TIME", "MAX_PENDING", "MAX_ACTIVE", "COST_BUDGET"};
  attributes a(require_leaf(arg, "SEARCH", command), known);
  search_request r;
  r.phase = a.phase_type_or_global("PHASE");
  auto action = a.text_or("ACTION", "START");
  if (iequals(action, "START")) r.action = search_action::start;
  else if (iequals(action, "PAUSE")) r.action = search_action::pause;
  else if (iequals(action, "RESUME")) r.action = search_action::resume;
  else if (iequals(action, "STOP")) r.action = search_action::stop;
  else
    bad_argument("attribute ACTION of <SEARCH> must be START, PAUSE, RESUME or STOP, not " +
                 quoted(action));
  for (auto& t : search_tunable_attributes) {
    if (!a.find(t.name)) continue;
    double v = a.number(t.name);
    bool whole = std::string_view(t.name).substr(0, 4) == "MAX_";
    if ((t.low_open ? v <= t.low : v < t.low) || v > t.high || (whole && v != std::floor(v)))
      bad_argument("attribute " + std::string(t.name) + " of <SEARCH> must be " +
                   (whole ? "a whole number " : "a number ") + (t.low_open ? "above " : "from ") +
                   format_number(t.low) + " to " + format_number(t.high) + ", not " +
                   format_number(v));
    r.tunables[t.name] = v;
  }
  r.follow = a.boolean_or("FOLLOW", false);
  if (r.follow && (r.phase != phase_type::current || r.action != search_action::start))
    bad_argument("attribute FOLLOW of <SEARCH> belongs to ACTION='START' PHASE='CURRENT'");
  return caf::make_message(std::move(r));
}

caf::message parse_shg(const xml_node* arg, const std::string& command) {
  shg_request r;
  if (arg == nullptr) return caf::make_message(r);
  attributes a(require_leaf(arg, "SHG", command), {"SEARCH"});
  if (a.find("SEARCH")) {
    auto s = a.text("SEARCH");
    auto id = parse_id(s);
    if (!id) bad_argument("attribute SEARCH of <SHG> must be a search id, not " + quoted(s));
    r.has_search = true;
    r.search = *id;
  }
  return caf::make_message(r);
}

caf::message parse_attach(const xml_node* arg, const std::string& command) {
  attributes a(require_leaf(arg, "PROCESS", command),
               {"PID", "SCHEMA", "FORCE", "LANES", "CAPACITY"});
  attach_request r{pid_of(a), std::string(a.text_or("SCHEMA", "")), a.boolean_or("FORCE", false)};
  r.lanes = count_of(a, "LANES", 1, 1024, false);
  r.capacity = count_of(a, "CAPACITY", 64, 16777216, true);
  return caf::make_message(r);
}

caf::message parse_detach(const xml_node* arg, const std::string& command) {
  attributes a(require_leaf(arg, "PROCESS", command), {"PID"});
  return caf::make_message(detach_request{pid_of(a)});
}

// WATCH, UNWATCH, PROFILE, STACKS: `<PROCESS PID='n'/>`.
template <class Request>
caf::message parse_process_command(const xml_node* arg, const std::string& command) {
  attributes a(require_leaf(arg, "PROCESS", command), {"PID"});
  return caf::make_message(Request{pid_of(a)});
}

// CALLGRAPH: no argument (every watched process) or `<PROCESS PID='n'/>`.
caf::message parse_callgraph(const xml_node* arg, const std::string& command) {
  if (arg == nullptr) return caf::make_message(callgraph_request{});
  attributes a(require_leaf(arg, "PROCESS", command), {"PID"});
  return caf::make_message(callgraph_request{pid_of(a)});
}

// The DM commands. Names are compared after upper-casing the COMMAND attribute.
struct command_entry {
  const char* name;
  command_parser parse;
};
const command_entry dm_commands[] = {
    {"DEFINE", parse_define},
    {"METRICS", no_argument<list_metrics>},
    {"RESOURCES", no_argument<list_resources>},
    {"PHASES", no_argument<list_phases>},
    {"STATUS", no_argument<status_query>},
    {"SAMPLERATE", no_argument<samplerate_query>},
    {"STREAM", no_argument<open_stream>},  // the caller fills in the sink
    {"CLOSE", parse_close},
    {"ENABLE", parse_enable},
    {"DISABLE", parse_disable},
    {"SETFLAGS", parse_flags},
    {"CLEARFLAGS", parse_flags},
    {"PHASE", parse_phase},
    {"SAMPLES", parse_samples},
    {"DATA", parse_data},
    {"LOG", parse_log},
    {"ATTACH", parse_attach},
    {"DETACH", parse_detach},
    {"PROCESSES", no_argument<list_processes>},
    {"FRAMES", no_argument<frames_stats_query>},
    {"PING", no_argument<ping>},
    {"WATCH", parse_process_command<watch_request>},
    {"UNWATCH", parse_process_command<unwatch_request>},
    {"PROFILE", parse_process_command<profile_request>},
    {"STACKS", parse_process_command<stacks_request>},
    {"SEARCH", parse_search},
    {"SHG", parse_shg},
    {"CALLGRAPH", parse_callgraph},
};

std::string inner_xml(const xml_node* n);  // in the printing section

// A request for a process: `<DYPER PID='pid' COMMAND>` or `<DYPATCH PID='pid' COMMAND>`.
// The command reads its own argument (dyper/process_commands.cpp), so the envelope's
// content is kept as XML text; whether the pid is a known process is the registry's call.
caf::message parse_process_command(const xml_node* root, const parsed_request& out,
                                   bool dypatch) {
  attributes envelope(root, {"PID", "COMMAND"});
  auto id = parse_pid(out.target);
  if (!id || *id == 0 || *id > static_cast<std::uint64_t>(INT32_MAX))
    fail(dm_error::unknown_target, "no process " + quoted(out.target) + " is known");
  process_command c;
  c.pid = static_cast<std::int32_t>(*id);
  c.dypatch = dypatch;
  c.command = out.command;
  c.argument = std::string(trim(inner_xml(root)));
  return caf::make_message(std::move(c));
}

// The envelope `<DYPER PID COMMAND>` around one argument element.
void parse_envelope(const xml_node* root, parsed_request& out) {
  // PID and COMMAND are taken before anything is judged, so that even a refused request's
  // error reply is addressed to the target it was sent to.
  auto* pid = root->first_attribute("PID", 3, false);
  auto* cmd = root->first_attribute("COMMAND", 7, false);
  if (pid != nullptr) out.target = value_of(pid);
  if (cmd != nullptr) out.command = upper_case(value_of(cmd));
  bool dypatch = iequals(name_of(root), "DYPATCH");
  if (!iequals(name_of(root), "DYPER") && !dypatch)
    fail(dm_error::unknown_command,
         "requests are <DYPER PID='..' COMMAND='..'> or <DYPATCH ..> elements; " +
             tag(name_of(root)) + " requests are not supported");
  if (!dypatch && cmd != nullptr && out.command == "WHO") {
    // WHO is for any target, and DyPer sends it without PID (`<DYPER COMMAND='WHO'/>`).
    attributes envelope(root, {"PID", "COMMAND"});
    out.request = no_argument<who_request>(argument_of(root, out.command), out.command);
    return;
  }
  if (pid == nullptr) bad_argument("the request has no PID attribute naming its target");
  if (cmd == nullptr) bad_argument("the request has no COMMAND attribute");
  if (dypatch || !iequals(out.target, "DM")) {
    out.request = parse_process_command(root, out, dypatch);
    return;
  }
  attributes envelope(root, {"PID", "COMMAND"});  // refuses unknown or repeated attributes
  for (auto& c : dm_commands)
    if (out.command == c.name) {
      out.request = c.parse(argument_of(root, out.command), out.command);
      return;
    }
  fail(dm_error::unknown_command, "unknown command " + quoted(out.command) + " for target DM");
}

// ---------------------------------------------------------------------------------------
// Printing.

// Escapes text for an attribute value or element text. Line breaks become character
// references so that every printed message stays on one line (the wire framing and replay
// files are line based); XML parsers turn them back into the same characters.
constexpr std::pair<char, const char*> entities[] = {
    {'&', "&amp;"},  {'<', "&lt;"},   {'>', "&gt;"},   {'\'', "&apos;"},
    {'"', "&quot;"}, {'\n', "&#10;"}, {'\r', "&#13;"},
};

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

}  // namespace

std::string xml_escaped(std::string_view s) {
  std::string out;
  append_escaped(out, s);
  return out;
}

namespace {

std::string escaped(std::string_view s) {
  return xml_escaped(s);
}

// The content of an element as XML text (elements, their attributes and text, escaped
// again), for the process commands that read their argument themselves.
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

// Builds one element: attributes in call order, then either `/>` (leaf) or a body and the
// closing tag (wrap). Container elements always use wrap, even when empty, so their form
// does not depend on their content.
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

std::string ids(const std::vector<stream_handle>& xs) {
  return join(xs, " ", [](stream_handle h) { return std::to_string(h.id); });
}
std::string ids(const std::vector<phase_handle>& xs) {
  return join(xs, " ", [](phase_handle h) { return std::to_string(h.id); });
}

std::string phase_text(const phase_ref& p) {
  return p.named ? std::to_string(p.id.id) : to_string(p.type);
}

// ---- requests: the command name and its argument element ("" for none) ----

struct printed_request {
  const char* command;
  std::string argument;
};

printed_request request_parts(const define_metric& x) {
  return {"DEFINE", element("METRIC")
                        .text("NAME", x.name)
                        .text("STYLE", to_string(x.style))
                        .text("UNITS", x.units)
                        .leaf()};
}
printed_request request_parts(const define_resource& x) {
  return {"DEFINE", element("RESOURCE").text("NAME", x.name).leaf()};
}
printed_request request_parts(const list_metrics&) {
  return {"METRICS", ""};
}
printed_request request_parts(const list_resources&) {
  return {"RESOURCES", ""};
}
printed_request request_parts(const list_phases&) {
  return {"PHASES", ""};
}
printed_request request_parts(const status_query&) {
  return {"STATUS", ""};
}
printed_request request_parts(const samplerate_query&) {
  return {"SAMPLERATE", ""};
}
printed_request request_parts(const open_stream&) {
  return {"STREAM", ""};
}
printed_request request_parts(const close_stream& x) {
  return {"CLOSE", element("STREAM").id("ID", x.stream).leaf()};
}
printed_request request_parts(const enable_request& x) {
  // An empty focus means "/" (dm_messages.hpp); it reads back as {"/"}.
  auto focus = x.focus.empty() ? std::string("/")
                               : join(x.focus, ",", [](const std::string& s) { return s; });
  return {"ENABLE", element("ENABLE")
                        .id("STREAM", x.stream)
                        .text("METRIC", x.metric)
                        .text("FOCUS", focus)
                        .text("PHASE", phase_text(x.phase))
                        .flags(x.flags)
                        .leaf()};
}
printed_request request_parts(const disable_request& x) {
  return {"DISABLE", element("DISABLE")
                         .id("STREAM", x.stream)
                         .id("MI", x.mi)
                         .text("PHASE", to_string(x.phase))
                         .leaf()};
}
printed_request request_parts(const flags_request& x) {
  element e("FLAGS");
  e.id("MI", x.mi);
  for (auto& f : flag_attributes)  // only the addressed flags, as the parser expects
    if (x.named.*f.member) e.flag(f.name, true);
  return {x.set ? "SETFLAGS" : "CLEARFLAGS", e.leaf()};
}
printed_request request_parts(const start_phase& x) {
  return {"PHASE", x.name.empty() ? std::string() : element("PHASE").text("NAME", x.name).leaf()};
}
printed_request request_parts(const samples_request& x) {
  return {"SAMPLES", element("SAMPLES").wrap(join(x.samples, "", [](const sample& s) {
            return element("S")
                .id("MI", s.mi)
                .number("START", s.start)
                .number("END", s.end)
                .number("VALUE", s.value)
                .leaf();
          }))};
}
printed_request request_parts(const write_log& x) {
  return {"LOG", x.file.empty() ? std::string() : element("LOG").text("FILE", x.file).leaf()};
}
printed_request request_parts(const attach_request& x) {
  element e("PROCESS");
  e.count("PID", static_cast<std::uint64_t>(x.pid));
  if (!x.schema.empty()) e.text("SCHEMA", x.schema);
  e.flag("FORCE", x.force);
  if (x.lanes) e.count("LANES", x.lanes);
  if (x.capacity) e.count("CAPACITY", x.capacity);
  return {"ATTACH", e.leaf()};
}
printed_request request_parts(const detach_request& x) {
  return {"DETACH", element("PROCESS").count("PID", static_cast<std::uint64_t>(x.pid)).leaf()};
}
printed_request request_parts(const list_processes&) {
  return {"PROCESSES", ""};
}
printed_request request_parts(const frames_stats_query&) {
  return {"FRAMES", ""};
}
printed_request request_parts(const ping&) {
  return {"PING", ""};
}
printed_request request_parts(const who_request&) {
  return {"WHO", ""};
}
printed_request pid_command(const char* command, std::int32_t pid) {
  return {command, element("PROCESS").count("PID", static_cast<std::uint64_t>(pid)).leaf()};
}
printed_request request_parts(const watch_request& x) { return pid_command("WATCH", x.pid); }
printed_request request_parts(const unwatch_request& x) {
  return pid_command("UNWATCH", x.pid);
}
printed_request request_parts(const profile_request& x) {
  return pid_command("PROFILE", x.pid);
}
printed_request request_parts(const stacks_request& x) { return pid_command("STACKS", x.pid); }
printed_request request_parts(const search_request& x) {
  static const char* actions[] = {"START", "PAUSE", "RESUME", "STOP"};
  element e("SEARCH");
  e.text("PHASE", to_string(x.phase)).text("ACTION", actions[static_cast<int>(x.action)]);
  if (x.follow) e.flag("FOLLOW", true);
  for (auto& t : search_tunable_attributes)
    if (auto i = x.tunables.find(t.name); i != x.tunables.end()) e.number(t.name, i->second);
  return {"SEARCH", e.leaf()};
}
printed_request request_parts(const shg_request& x) {
  if (!x.has_search) return {"SHG", ""};
  return {"SHG", element("SHG").count("SEARCH", x.search).leaf()};
}
printed_request request_parts(const callgraph_request& x) {
  if (x.pid == 0) return {"CALLGRAPH", ""};
  return pid_command("CALLGRAPH", x.pid);
}
printed_request request_parts(const data_request& x) {
  return {"DATA", element("DATA").id("MI", x.mi).text("PHASE", phase_text(x.phase)).leaf()};
}

// ---- replies: the body inside <DYPER_REPLY> ----

std::string reply_body(const metric_info& x) {
  return element("METRIC")
      .id("ID", x.id)
      .text("NAME", x.name)
      .text("STYLE", to_string(x.style))
      .text("UNITS", x.units)
      .leaf();
}
std::string reply_body(const resource_info& x) {
  return element("RESOURCE").id("ID", x.id).text("NAME", x.name).text("PARENT", x.parent).leaf();
}
std::string reply_body(const phase_info& x) {
  return element("PHASE")
      .id("ID", x.id)
      .text("NAME", x.name)
      .number("START", x.start)
      .number("END", x.end)
      .number("WIDTH", x.width)
      .leaf();
}
std::string reply_body(const metric_list& x) {
  return element("METRICS").wrap(
      join(x.metrics, "", [](const metric_info& m) { return reply_body(m); }));
}
std::string reply_body(const resource_list& x) {
  return element("RESOURCES").wrap(join(x.resources, "", [](const resource_info& r) {
    return reply_body(r);
  }));
}
std::string reply_body(const phase_list& x) {
  return element("PHASES").wrap(
      join(x.phases, "", [](const phase_info& p) { return reply_body(p); }));
}
std::string reply_body(const stream_opened& x) {
  return element("STREAM").id("ID", x.stream).leaf();
}
std::string reply_body(const ok_reply&) {
  return element("OK").leaf();
}
std::string reply_body(const samples_ack& x) {
  return element("OK").count("COUNT", x.count).count("DROPPED", x.dropped).leaf();
}
std::string reply_body(const mi_info& x) {
  return element("MI")
      .id("ID", x.id)
      .text("METRIC", x.metric)
      .text("FOCUS", x.focus)
      .text("STATE", to_string(x.state))
      .flags(x.flags)
      .leaf();
}
std::string reply_body(const histogram_data& x) {
  // LAST is the index of the last bucket, so -1 for no values (signed on purpose).
  auto last = static_cast<long long>(x.values.size()) - 1;
  return element("HISTOGRAM")
      .id("MI", x.mi)
      .number("START", x.start)
      .number("WIDTH", x.width)
      .count("NBINS", x.nbins)
      .text("LAST", std::to_string(last))
      .wrap(join(x.values, " ", [](double v) { return format_number(v); }));
}
std::string reply_body(const status_info& x) {
  auto mi = [](const mi_status& s) {
    std::string histograms = s.has_global ? "GLOBAL" : "";
    if (s.has_current) histograms += histograms.empty() ? "CURRENT" : " CURRENT";
    return element("MI")
        .id("ID", s.id)
        .text("METRIC", s.metric)
        .text("FOCUS", s.focus)
        .text("GLOBAL_USERS", ids(s.global_users))
        .text("CURRENT_USERS", ids(s.current_users))
        .flags(s.flags)
        .flag("COLLECTING", s.collecting)
        .text("HISTOGRAMS", histograms)
        .text("ARCHIVED", ids(s.archived))
        .leaf();
  };
  return element("STATUS")
      .number("NOW", x.now)
      .number("SAMPLEINTERVAL", x.interval)
      .id("PHASE", x.phase)
      .wrap(join(x.mis, "", mi) + join(x.components, "", [](const std::string& c) {
              return element("COMPONENT").text("NAME", c).leaf();
            }));
}
std::string reply_body(const search_info& x) {
  return element("SEARCH")
      .count("ID", x.id)
      .text("PHASE", to_string(x.phase))
      .id("PHASEID", x.phase_id)
      .text("STATE", x.state)
      .count("NODES", x.nodes)
      .flag("COSTLIMITED", x.cost_limited)
      .leaf();
}
// The attributes of one SHG node, in the order NODE and SHGNODE print them.
element& shg_node_attributes(element& e, const shg_node_info& n) {
  return e.count("SEARCH", n.search)
      .count("ID", n.id)
      .text("PARENT", n.has_parent ? std::to_string(n.parent) : std::string())
      .text("HYPOTHESIS", n.hypothesis)
      .text("CODE", n.code)
      .text("MACHINE", n.machine)
      .text("SYNCOBJECT", n.syncobject)
      .text("STATE", n.state)
      .flag("ACTIVE", n.active)
      .number("VALUE", n.value)
      .number("THRESHOLD", n.threshold)
      .number("SINCE", n.since);
}
std::string reply_body(const shg_reply& x) {
  return element("SHG").wrap(join(x.nodes, "", [](const shg_node_info& n) {
    element e("NODE");
    return shg_node_attributes(e, n).leaf();
  }));
}
std::string reply_body(const log_written& x) {
  return element("LOG").text("FILE", x.file).count("BYTES", x.bytes).leaf();
}
std::string reply_body(const process_info& x) {
  return element("PROCESS")
      .count("PID", static_cast<std::uint64_t>(x.pid))
      .text("NAME", x.name)
      .text("EXECUTABLE", x.executable)
      .text("RESOURCE", x.resource)
      .text("FRAMES", join(x.frames, " ", [](const std::string& f) { return f; }))
      .flag("ACTIVE", x.active)
      .flag("WATCHED", x.watched)
      .leaf();
}
std::string reply_body(const process_list& x) {
  return element("PROCESSES").wrap(
      join(x.processes, "", [](const process_info& p) { return reply_body(p); }));
}
std::string reply_body(const frames_stats& x) {
  return element("FRAMES").wrap(join(x.frame_types, "", [](const frame_type_stats& t) {
    return element("FRAMETYPE")
        .count("PID", static_cast<std::uint64_t>(t.pid))
        .text("PROCESS", t.process)
        .text("TYPE", t.frame_type)
        .count("READ", t.frames)
        .count("LOST", t.lost)
        .count("TORN", t.torn)
        .count("LATE", t.late)
        .count("NOLANE", t.no_lane_drops)
        .wrap(join(t.fields, "", [](const field_summary& f) {
          return element("FIELD")
              .text("NAME", f.name)
              .count("COUNT", f.count)
              .number("MIN", f.min)
              .number("MAX", f.max)
              .number("SUM", f.sum)
              .leaf();
        }));
  }));
}
std::string reply_body(const pong&) {
  return "PONG";  // DyPer's answer, as text
}
// DyPer answers WHO with one reply per process; here one reply lists every process, each
// as a PROCESS element directly inside DYPER_REPLY (an empty reply when there is none).
std::string reply_body(const who_reply& x) {
  return join(x.processes, "", [](const process_info& p) {
    return element("PROCESS")
        .count("ID", static_cast<std::uint64_t>(p.pid))
        .flag("ACTIVE", p.active)
        .text("NAME", p.name)
        .leaf();
  });
}
// DyPer's REPORT CPU section: MONTIME and LAST in seconds (engine time), like every time of
// the command language.
std::string reply_body(const cpu_profile_report& x) {
  auto item = [](const profile_entry& i) {
    element e("ITEM");
    e.text("NAME", i.name).count("TOTAL", i.total).count("BASE", i.base);
    if (!i.file.empty()) e.text("FILE", i.file);
    if (!i.type.empty()) e.text("TYPE", i.type);
    return e.leaf();
  };
  element counters("COUNTERS");
  counters.count("PID", static_cast<std::uint64_t>(x.pid))
      .number("MONTIME", x.montime)
      .count("SAMPLES", x.samples)
      .count("ACTIVE", x.active)
      .number("LAST", x.last)
      .number("CHECKTIME", x.checktime)
      .number("COST", x.cost);
  if (x.ended) counters.text("ENDED", "true");
  return counters.wrap(element("TOTALS")
                .count("STACKS", x.stacks)
                .count("ACTIVE", x.active)
                .count("DETAILED", x.detailed)
                .leaf() +
            join(x.items, "", item));
}
// DyPer's SHOWSTACK: FUNCTION, FILE, LINE, MODULE (DyPer's CLASS/METHOD are Java's) and the
// pc in hexadecimal.
std::string reply_body(const stacks_report& x) {
  auto frame = [](const stack_entry& f) {
    char pc[24];
    std::snprintf(pc, sizeof pc, "0x%llx", static_cast<unsigned long long>(f.pc));
    return element("STACK")
        .text("FUNCTION", f.function)
        .text("FILE", f.file)
        .count("LINE", static_cast<std::uint64_t>(f.line > 0 ? f.line : 0))
        .text("MODULE", f.module)
        .text("PC", pc)
        .leaf();
  };
  auto thread = [&](const thread_entry& t) {
    return element("THREAD")
        .count("ID", static_cast<std::uint64_t>(t.tid))
        .text("NAME", t.name)
        .text("STATE", t.state)
        .wrap(join(t.stack, "", frame));
  };
  element threads("THREADS");
  threads.count("PID", static_cast<std::uint64_t>(x.pid)).number("TIME", x.time);
  if (x.ended) threads.text("ENDED", "true");
  return threads.wrap(join(x.threads, "", thread));
}
std::string reply_body(const callgraph_report& x) {
  element graph("CALLGRAPH");
  if (x.pid != 0) graph.count("PID", static_cast<std::uint64_t>(x.pid));
  graph.count("STACKS", x.stacks);
  if (x.ended) graph.text("ENDED", "true");
  auto entry = [](const callgraph_entry& e) {
    return element("ENTRY").text("NAME", e.name).count("SAMPLES", e.samples).leaf();
  };
  auto edge = [](const callgraph_edge& e) {
    return element("EDGE")
        .text("CALLER", e.caller)
        .text("CALLEE", e.callee)
        .count("SAMPLES", e.samples)
        .leaf();
  };
  return graph.wrap(join(x.entries, "", entry) + join(x.edges, "", edge));
}
// Printed with its own envelope by print_reply; listed for the gateway's reply handlers.
std::string reply_body(const process_command_reply& x) {
  return x.body;
}

std::string reply_body(const samplerate_info& x) {
  return element("SAMPLERATE").number("INTERVAL", x.interval).leaf();
}

// ---- stream events: the whole <DYPER .../> element ----

std::string event_text(const data_event& x) {
  return element("DYPER").id("DATA", x.stream).wrap(join(x.values, "", [](const data_value& v) {
    return element("V")
        .id("MI", v.mi)
        .text("PHASE", to_string(v.phase))
        .count("BUCKET", v.bucket)
        .number("VALUE", v.value)
        .leaf();
  }));
}
std::string event_text(const fold_event& x) {
  return element("DYPER")
      .id("FOLD", x.stream)
      .text("PHASE", to_string(x.phase))
      .number("WIDTH", x.width)
      .leaf();
}
std::string event_text(const new_phase_event& x) {
  auto& p = x.phase;
  return element("DYPER")
      .id("NEWPHASE", x.stream)
      .id("ID", p.id)
      .text("NAME", p.name)
      .number("START", p.start)
      .number("WIDTH", p.width)
      .leaf();
}
std::string event_text(const samplerate_event& x) {
  return element("DYPER").id("SAMPLERATE", x.stream).number("INTERVAL", x.interval).leaf();
}
std::string event_text(const new_metric_event& x) {
  auto& m = x.metric;
  return element("DYPER")
      .id("NEWMETRIC", x.stream)
      .id("ID", m.id)
      .text("NAME", m.name)
      .text("STYLE", to_string(m.style))
      .text("UNITS", m.units)
      .leaf();
}
std::string event_text(const new_resource_event& x) {
  auto& r = x.resource;
  return element("DYPER")
      .id("NEWRESOURCE", x.stream)
      .id("ID", r.id)
      .text("NAME", r.name)
      .text("PARENT", r.parent)
      .leaf();
}
std::string event_text(const shg_node_event& x) {
  element e("DYPER");
  e.id("SHGNODE", x.stream);
  return shg_node_attributes(e, x.node).leaf();
}
std::string event_text(const component_removed_event& x) {
  return element("DYPER").id("COMPONENTREMOVED", x.stream).text("NAME", x.name).leaf();
}

// ---- input checks before parsing ----

// The offset of the first byte that is not part of well-formed UTF-8 (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF), or nothing when all of `text` is.
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

// ---- dispatch on the message's single element ----

// Calls f with the message's element if the message holds exactly one of Ts; false otherwise.
template <class... Ts, class F>
bool visit(type_list<Ts...>, const caf::message& m, F&& f) {
  return ((m.match_elements<Ts>() && (f(m.get_as<Ts>(0)), true)) || ...);
}

}  // namespace

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

parsed_request parse_request(std::string_view text) {
  parsed_request out;
  if (text.size() > max_request_bytes) {
    out.error = make_dm_error(dm_error::limit,
                              "a request may hold at most " + std::to_string(max_request_bytes) +
                                  " bytes, this one holds " + std::to_string(text.size()));
    return out;
  }
  // RapidXML parses in place and stops at the first NUL, so it gets a NUL-terminated copy,
  // and a NUL inside the text is refused rather than silently cutting the request short.
  if (text.find('\0') != std::string_view::npos) {
    out.error = make_dm_error(dm_error::bad_xml, "the request contains a NUL character");
    return out;
  }
  if (auto bad = first_invalid_utf8(text)) {
    out.error = make_dm_error(dm_error::bad_xml, "the request is not valid UTF-8 (byte " +
                                                     std::to_string(*bad) + ")");
    return out;
  }
  if (nests_too_deep(text)) {
    out.error = make_dm_error(
        dm_error::limit, "elements may nest at most " + std::to_string(max_depth) + " levels deep");
    return out;
  }
  std::vector<char> buffer(text.begin(), text.end());
  buffer.push_back('\0');
  // The document holds a 64 KiB memory pool: keep it off the (actor thread's) stack.
  auto doc = std::make_unique<rapidxml::xml_document<char>>();
  try {
    doc->parse<rapidxml::parse_validate_closing_tags>(buffer.data());
    const xml_node* root = nullptr;
    for (auto* n = doc->first_node(); n != nullptr; n = n->next_sibling()) {
      if (n->type() != rapidxml::node_element) continue;
      if (root != nullptr)
        fail(dm_error::bad_xml, "a request is exactly one element, but this one has " +
                                    tag(name_of(root)) + " followed by " + tag(name_of(n)));
      root = n;
    }
    if (root == nullptr) fail(dm_error::bad_xml, "the request holds no element");
    refuse_nul(root);
    parse_envelope(root, out);
  } catch (const rapidxml::parse_error& e) {
    out.error = make_dm_error(
        dm_error::bad_xml, std::string("malformed XML at byte ") +
                               std::to_string(e.where<char>() - buffer.data()) + ": " + e.what());
  } catch (const parse_failure& e) {
    out.error = e.error;
  }
  if (out.error) out.request = caf::message{};
  return out;
}

std::string print_request(const std::string& target, const caf::message& request) {
  if (request.match_elements<process_command>()) {
    auto& c = request.get_as<process_command>(0);
    element envelope(c.dypatch ? "DYPATCH" : "DYPER");
    envelope.text("PID", target).text("COMMAND", c.command);
    return c.argument.empty() ? envelope.leaf() : envelope.wrap(c.argument);
  }
  std::string out;
  visit(request_types{}, request, [&](const auto& x) {
    auto [command, argument] = request_parts(x);
    element envelope("DYPER");
    envelope.text("PID", target).text("COMMAND", command);
    out = argument.empty() ? envelope.leaf() : envelope.wrap(argument);
  });
  return out;  // "" for a message that is not a request
}

std::string print_reply(const std::string& target, const caf::message& reply) {
  if (reply.match_elements<caf::error>()) return print_error(target, reply.get_as<caf::error>(0));
  if (reply.match_elements<process_command_reply>()) {
    auto& r = reply.get_as<process_command_reply>(0);
    element envelope(r.dypatch ? "DYPATCH_REPLY" : "DYPER_REPLY");
    envelope.text("ID", target);
    if (!r.error.empty()) return envelope.text("ERROR", r.error).wrap(escaped(r.body));
    return envelope.wrap(r.body);
  }
  std::string body;
  if (!visit(reply_types{}, reply, [&](const auto& x) { body = reply_body(x); }))
    return print_error(target,
                       make_dm_error(dm_error::internal,
                                     "the engine produced a reply the XML codec cannot print: " +
                                         caf::to_string(reply)));
  return element("DYPER_REPLY").text("ID", target).wrap(body);
}

std::string print_reply_body(const caf::message& reply) {
  std::string body;
  visit(reply_types{}, reply, [&](const auto& x) { body = reply_body(x); });
  return body;
}

std::string print_error(const std::string& target, const caf::error& error) {
  return element("DYPER_REPLY")
      .text("ID", target)
      .text("ERROR", error_code_name(dm_error_code(error)))
      .wrap(escaped(dm_error_reason(error)));
}

std::string print_event(const caf::message& event) {
  std::string out;
  visit(event_types{}, event, [&](const auto& x) { out = event_text(x); });
  return out;
}

std::string format_number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[32];  // the longest shortest form of a double is 24 characters
  auto result = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, result.ptr);
}

}  // namespace perfdm
