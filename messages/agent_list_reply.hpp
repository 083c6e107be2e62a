// AGENT's reply for perfdm's own agents (frames) as the agent writes it, from its struct:
// every agent installed so far. It reads back with its parser (RapidXML). DyPer's own agent
// classes are answered `OK` instead, as DyPer's agent answers them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfdm {

struct agent_list_reply {
  std::vector<std::string> agents;  // their CLASS names, in the order installed
  bool operator==(const agent_list_reply& o) const { return agents == o.agents; }
};

// `<AGENTS><AGENT CLASS='c'/>…</AGENTS>`.
std::string print_agent_list_reply(const agent_list_reply& x);
std::optional<agent_list_reply> parse_agent_list_reply(std::string_view text);

}  // namespace perfdm
