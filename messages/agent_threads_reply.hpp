// USETHREAD's reply as the agent writes it, from its struct: whether a thread not named is
// used, and every thread with its choice. It reads back with its parser (RapidXML).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfdm {

struct thread_use {
  std::string id;  // the thread id, in decimal
  bool use = true;
  bool operator==(const thread_use& o) const { return id == o.id && use == o.use; }
};

struct agent_threads_reply {
  bool use_by_default = true;  // THREAD_DEFAULT
  std::vector<thread_use> threads;
  bool operator==(const agent_threads_reply& o) const {
    return use_by_default == o.use_by_default && threads == o.threads;
  }
};

// `<THREADS DEFAULT='true'><THREAD ID='tid' USE='false'/>…</THREADS>`.
std::string print_agent_threads_reply(const agent_threads_reply& x);
// The reply of print_agent_threads_reply's text; nothing when `text` is not one.
std::optional<agent_threads_reply> parse_agent_threads_reply(std::string_view text);

}  // namespace perfdm
