// What the data manager's recording (`perfdm engine --record`, docs/PROTOCOL.md §6) needs to
// hear besides the requests themselves: who is sending (the origin printed before each
// recorded request) and the requests a front end answered without the data manager.
#pragma once

#include <string>

#include "messages/inspect_macros.hpp"

namespace perfdm {

// The sender names itself for the recording: "stdin", "tcp 7", "source /Process/app{42}".
// `replayable` false: its requests are only commented (an internal reader such as the log
// writer, whose reads are not a front end's).
struct record_origin {
  std::string label;
  bool replayable = true;
};
PERFDM_INSPECT(record_origin, x.label, x.replayable)

// A request the sender answered without the data manager, recorded in its place in the
// sender's order: one refused before it could be read (replayable: the same text gives the
// same error in replay), or LOG, which a front end serves itself (recorded as a comment).
struct record_unsent {
  std::string text;
  bool replayable = true;
};

PERFDM_INSPECT(record_unsent, x.text, x.replayable)

}  // namespace perfdm
