// The replies of a process's settings as the agent writes them, from their structs: SET and
// GET (the variables), and SETDETAIL (the detail switches). Each reads back with its parser
// (RapidXML); parsing what printing made gives the struct back.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfdm {

// One variable and its canonical text.
struct agent_variable {
  std::string name;
  std::string value;
  bool operator==(const agent_variable& o) const { return name == o.name && value == o.value; }
};

// SET's and GET's reply: the variables applied (SET) or asked (GET), and the names SET does
// not know.
struct agent_settings_reply {
  std::vector<agent_variable> variables;
  std::vector<std::string> ignored;
  bool operator==(const agent_settings_reply& o) const {
    return variables == o.variables && ignored == o.ignored;
  }
};

// `<SETTINGS><VAR NAME='n' VALUE='v'/>…</SETTINGS>`, then `<IGNORED><VAR NAME='n'/>…
// </IGNORED>` when a name was ignored.
std::string print_agent_settings_reply(const agent_settings_reply& x);
// The reply of print_agent_settings_reply's text; nothing when `text` is not one.
std::optional<agent_settings_reply> parse_agent_settings_reply(std::string_view text);

// GET of one variable: `<VAR NAME='n' VALUE='v'/>`.
std::string print_agent_variable(const agent_variable& x);
std::optional<agent_variable> parse_agent_variable(std::string_view text);

// One detail switch of SETDETAIL: an item, for one agent ("" for all), on or off.
struct detail_setting {
  std::string item;
  std::string agent;
  bool value = false;
  bool operator==(const detail_setting& o) const {
    return item == o.item && agent == o.agent && value == o.value;
  }
};

// SETDETAIL's reply: every switch set so far.
struct agent_details_reply {
  std::vector<detail_setting> details;
  bool operator==(const agent_details_reply& o) const { return details == o.details; }
};

// `<SETTINGS><DETAIL ITEM='i' VALUE='true' AGENT='a'/>…</SETTINGS>`.
std::string print_agent_details_reply(const agent_details_reply& x);
std::optional<agent_details_reply> parse_agent_details_reply(std::string_view text);

}  // namespace perfdm
