// CLASSES's and GETCLASSES's reply as the agent writes it, from its struct: the code classes
// (shared objects and functions by name or prefix, each with its type). It reads back with
// its parser (RapidXML).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfdm {

// PACKAGE entries name prefixes, CLASS entries whole names.
struct code_class {
  bool package = true;  // PACKAGE (a prefix) or CLASS (one name)
  std::string name;
  std::string type;  // NORMAL, SYSTEM, IO or SYSTEM_IO
  bool operator==(const code_class& o) const {
    return package == o.package && name == o.name && type == o.type;
  }
};

struct agent_classes_reply {
  std::vector<code_class> classes;
  bool operator==(const agent_classes_reply& o) const { return classes == o.classes; }
};

// `<CLASSES><PACKAGE NAME='p' TYPE='t'/><CLASS NAME='n' TYPE='t'/>…</CLASSES>`.
std::string print_agent_classes_reply(const agent_classes_reply& x);
// The reply of print_agent_classes_reply's text; nothing when `text` is not one.
std::optional<agent_classes_reply> parse_agent_classes_reply(std::string_view text);

}  // namespace perfdm
