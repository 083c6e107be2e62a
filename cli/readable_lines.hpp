// A readable rendering of replies and stream events, for people watching a session
// (`perfdm demo`, `perfdm replay --readable`). The XML form stays the contract.
#pragma once

#include <string>

#include "cli/xml_session.hpp"

namespace perfdm {

std::string readable(const session_line& line);

// An error line as one sentence for a person: the engine's reason ("process 999999: cannot
// open /proc/999999/stat: no such process (it exited)"), without the reply's XML.
std::string error_sentence(const session_line& line);

}  // namespace perfdm
