// Two replies written as DyPer's agent writes them, from their structs: INSTRUMENT's
// `<PATCH TIME='ms'/>` (the body of the process's DYPER_REPLY) and the agent's answer to WHO,
// which names the agent itself. Each reads back with its parser (RapidXML).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace perfdm {

// INSTRUMENT took effect (the frames are attached, or detached) at `time_ms`, milliseconds
// since the Unix epoch.
struct patch_reply {
  std::int64_t time_ms = 0;
};

// `<PATCH TIME='ms'/>`.
std::string print_patch_reply(const patch_reply& x);
// The reply of print_patch_reply's text; nothing when `text` is not one.
std::optional<patch_reply> parse_patch_reply(std::string_view text);

// The agent `id` (`<pid>@<host>`) answers WHO: it is the one active process it speaks for.
struct agent_who_reply {
  std::string id;
};

// `<DYPER_REPLY ID='id'><DYPER_REPLY ID='id' ACTIVE='true' /></DYPER_REPLY>`, the inner
// element ending in " />" as DyPer's agent spells it.
std::string print_agent_who_reply(const agent_who_reply& x);
// The reply of print_agent_who_reply's text; nothing when `text` is not one (the two IDs
// differ, the inner reply is not ACTIVE='true', or it is no such XML).
std::optional<agent_who_reply> parse_agent_who_reply(std::string_view text);

}  // namespace perfdm
