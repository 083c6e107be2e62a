// DyPer's unsolicited process messages as XML (process_announcement): START when a process
// is attached, END when it is detached or exits, and the periodic REPORT with its <MONITOR>.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "messages/process_command_messages.hpp"

namespace perfdm {

// The engine's announcement of process `pid`, its `xml` printed from the other fields:
// `<DYPER START='pid'/>`, `<DYPER END='pid'/>`, `<DYPER REPORT='pid' TIME='ms'>body</DYPER>`.
process_announcement make_announcement(process_announcement::kind_t kind, std::int32_t pid,
                                       std::int64_t time_ms = 0, std::string body = {});

// The same as a DyPer agent writes it to its controller, naming the process by its agent id
// (`<pid>@<host>`): START and END end in " />" as DyPer's agent spells them.
std::string print_agent_announcement(process_announcement::kind_t kind, std::string_view id,
                                     std::int64_t time_ms = 0, std::string_view body = {});

}  // namespace perfdm
