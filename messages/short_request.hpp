// The short form of a request that `perfdm client` (and a person at a terminal) types:
// `COMMAND [ELEMENT] [NAME=VALUE ...]`, e.g. `ENABLE STREAM=0 METRIC=cpu`, as the XML of the
// command language (docs/PROTOCOL.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace perfdm {

// The XML request of a short form, `COMMAND [ELEMENT] [NAME=VALUE ...]` for `target`: the
// argument element is ELEMENT if given (a word without '='), else the one COMMAND takes
// (FLAGS for SETFLAGS/CLEARFLAGS, STREAM for CLOSE, PROCESS for ATTACH, DETACH, WATCH,
// UNWATCH, PROFILE, STACKS, METRIC for DEFINE, else COMMAND itself); no attributes and no
// ELEMENT: no argument. One word starting with '<' is XML already and is returned as it is.
// Nothing, with `why`, when the words are not a request.
std::optional<std::string> short_request_xml(const std::vector<std::string>& words,
                                             const std::string& target, std::string& why);

}  // namespace perfdm
