// A readable rendering of replies and stream events, for people watching a session
// (`perfdm demo`, `perfdm replay --readable`). The XML form stays the contract.
#pragma once

#include <string>

#include "cli/xml_session.hpp"

namespace perfdm {

std::string readable(const session_line& line);

}  // namespace perfdm
