#include "dyper/process_variables.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "messages/agent_settings_replies.hpp"
#include "messages/xml_codec.hpp"

namespace perfdm {

namespace {

enum class var_kind { integer, boolean, fraction };
struct variable {
  const char* name;
  var_kind kind;
  const char* fallback;
};
const variable variables[] = {
    {"CHECKTIME", var_kind::integer, "10"},
    {"DISABLETIME", var_kind::integer, "5000"},
    {"REPORTTIME", var_kind::integer, "0"},
    {"MAXDEPTH", var_kind::integer, "128"},
    {"MONITOR", var_kind::boolean, "false"},
    // DyPer's second switch for the periodic REPORTs: they go while MONITOR or REPORTING.
    {"REPORTING", var_kind::boolean, "false"},
    {"SHOWSTACK", var_kind::boolean, "false"},
    {"CONTENTION", var_kind::boolean, "false"},
    {"CPUTIME", var_kind::boolean, "false"},
    {"FULLMONITORING", var_kind::boolean, "false"},
    {"THREAD_DEFAULT", var_kind::boolean, "true"},
    // REPORT's COUNTERS list the items counted at least this often.
    {"MIN_COUNTER", var_kind::integer, "0"},
    {"CLASS_DETAIL_MIN_TOTAL", var_kind::integer, "250"},
    {"CLASS_DETAIL_MINIMUM", var_kind::integer, "10"},
    {"CLASS_DETAIL_THRESHOLD", var_kind::fraction, "0.025"},
    {"CLASS_DETAIL_STOP_THRESHOLD", var_kind::fraction, "0.005"},
    {"METHOD_DETAIL_MIN_TOTAL", var_kind::integer, "250"},
    {"METHOD_DETAIL_MINIMUM", var_kind::integer, "10"},
    {"METHOD_DETAIL_THRESHOLD", var_kind::fraction, "0.025"},
    {"METHOD_DETAIL_STOP_THRESHOLD", var_kind::fraction, "0.005"},
};

const variable* find_variable(const std::string& name) {
  for (auto& v : variables)
    if (upper(name) == v.name) return &v;
  return nullptr;
}

const variable& variable_named(const std::string& name) {
  if (auto* v = find_variable(name)) return *v;
  bad_argument("unknown variable '" + name + "'");
}

// The canonical text of a value for `v`, or BAD_ARGUMENT.
std::string canonical_value(const variable& v, const std::string& text) {
  switch (v.kind) {
    case var_kind::integer: {
      std::int64_t x = 0;
      auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
      if (text.empty() || ec != std::errc{} || p != text.data() + text.size() || x < 0 ||
          (std::string(v.name) == "MAXDEPTH" && x == 0))
        bad_argument(std::string(v.name) + "='" + text + "' is not a " +
                     (std::string(v.name) == "MAXDEPTH" ? "positive" : "non-negative") +
                     " integer");
      return std::to_string(x);
    }
    case var_kind::boolean:
      if (auto b = parse_flag(text)) return *b ? "true" : "false";
      bad_argument(std::string(v.name) + "='" + text + "' is not a boolean");
    case var_kind::fraction: {
      char* end = nullptr;
      double x = text.empty() || text.find_first_not_of("0123456789.eE+-") != std::string::npos
                     ? -1
                     : std::strtod(text.c_str(), &end);
      if (end != text.c_str() + text.size() || !std::isfinite(x) || x < 0 || x > 1)
        bad_argument(std::string(v.name) + "='" + text + "' is not a number in [0, 1]");
      return format_number(x);
    }
  }
  bad_argument("unreachable");
}

}  // namespace

std::map<std::string, std::string> default_variables() {
  std::map<std::string, std::string> out;
  for (auto& v : variables) out[v.name] = v.fallback;
  return out;
}

std::string run_set(std::map<std::string, std::string>& vars, const argument& arg) {
  auto* e = arg.element({"SETTINGS", "VAR"}, true);
  std::vector<const xml_node*> given =
      upper(e->name()) == "VAR" ? std::vector<const xml_node*>{e} : children(e, {"VAR"});
  // Every known value is checked before any is applied: a bad one leaves the settings as
  // they were. Unknown names are ignored (DyPer's agent ignores them too).
  std::vector<std::pair<std::string, std::string>> checked;
  std::vector<std::string> ignored;
  for (auto* v : given) {
    auto name = need_attr(v, "NAME");
    auto* var = find_variable(name);
    if (var == nullptr) {
      ignored.push_back(name);
      continue;
    }
    checked.emplace_back(var->name, canonical_value(*var, need_attr(v, "VALUE")));
  }
  agent_settings_reply out;
  for (auto& [name, value] : checked) {
    vars[name] = value;
    out.variables.push_back({name, value});
  }
  out.ignored = std::move(ignored);
  return print_agent_settings_reply(out);
}

std::string run_get(const std::map<std::string, std::string>& vars, const argument& arg) {
  auto* e = arg.element({"VAR", "SETTINGS"}, false);
  std::vector<std::string> names;
  if (e == nullptr) {
    for (auto& v : variables) names.push_back(v.name);
  } else {
    auto given = upper(e->name()) == "VAR" ? std::vector<const xml_node*>{e} : children(e, {"VAR"});
    for (auto* v : given) names.push_back(variable_named(need_attr(v, "NAME")).name);
  }
  if (e != nullptr && upper(e->name()) == "VAR")
    return print_agent_variable({names[0], vars.at(names[0])});
  agent_settings_reply out;
  for (auto& n : names) out.variables.push_back({n, vars.at(n)});
  return print_agent_settings_reply(out);
}

}  // namespace perfdm
