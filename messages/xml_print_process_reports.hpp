// What a process's reports print inside <DYPER_REPLY> (PROFILE, STACKS, CALLGRAPH,
// FLAMEGRAPH, TIMELINE): part of the codec's printer (messages/xml_print.cpp).
#pragma once

#include <string>

#include "messages/callgraph_messages.hpp"
#include "messages/flame_messages.hpp"
#include "messages/native_messages.hpp"

namespace perfdm::xml {

std::string reply_body(const cpu_profile_report& x);
std::string reply_body(const stacks_report& x);
std::string reply_body(const callgraph_report& x);
std::string reply_body(const flamegraph_report& x);
std::string reply_body(const timeline_report& x);

}  // namespace perfdm::xml
