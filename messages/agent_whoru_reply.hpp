// WHORU's reply as the agent writes it, from its struct: the process's executable, command
// line, environment and start time. It reads back with its parser (RapidXML).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfdm {

struct agent_whoru_reply {
  std::string executable;
  std::vector<std::string> command_line;  // argv: START, then each ARG
  std::vector<std::pair<std::string, std::string>> environment;  // KEY, value
  std::int64_t start_ns = 0;  // the process's start, ns since the Unix epoch
  bool operator==(const agent_whoru_reply& o) const {
    return executable == o.executable && command_line == o.command_line &&
           environment == o.environment && start_ns == o.start_ns;
  }
};

// `<EXECUTABLE>path</EXECUTABLE><START>argv0</START><ARG>a</ARG>…<ENV KEY='k'>v</ENV>…
// <TIME MILLIS='ms' NANO='ns'/>`, START left out for an empty command line.
std::string print_agent_whoru_reply(const agent_whoru_reply& x);
// The reply of print_agent_whoru_reply's text; nothing when `text` is not one (MILLIS is
// not NANO's milliseconds, an ARG comes before START, …).
std::optional<agent_whoru_reply> parse_agent_whoru_reply(std::string_view text);

}  // namespace perfdm
