// DyPer's per-process commands (`<DYPER PID='pid' COMMAND=..>`) and DYPATCH requests
// (`<DYPATCH PID='pid' COMMAND=..>`). The codec keeps their argument as XML text: each
// command reads its own argument (dyper/process_commands.cpp), so the codec stays one
// envelope rule for every process command.
#pragma once

#include <caf/actor.hpp>
#include <cstdint>
#include <string>

#include "messages/inspect_macros.hpp"

namespace perfdm {

// A request for one process, known by the pid it was ATTACHed as.
struct process_command {
  std::int32_t pid = 0;
  bool dypatch = false;  // a DYPATCH request (reply element DYPATCH_REPLY)
  std::string command;   // upper case
  std::string argument;  // the envelope's content as XML text; "" when empty
};
PERFDM_INSPECT(process_command, x.pid, x.dypatch, x.command, x.argument)

// The answer: `<DYPER_REPLY ID='pid'>body</DYPER_REPLY>` (DYPATCH_REPLY for DYPATCH). A
// failed DYPATCH request comes back as this with `error` set (a failed DYPER request comes
// back as a caf::error), so that both are answered in their own reply element.
struct process_command_reply {
  bool dypatch = false;
  std::string error;  // the error code name, e.g. "BAD_ARGUMENT"; "" on success
  std::string body;   // XML, or the reason when `error` is set
};
PERFDM_INSPECT(process_command_reply, x.dypatch, x.error, x.body)

// A gateway connection asks for DyPer's unsolicited process messages: `<DYPER START='pid'/>`
// when a process is attached, `<DYPER END='pid'/>` when it is detached or exits, and the
// periodic `<DYPER REPORT='pid' TIME='ms'>…</DYPER>`.
struct process_announcements {
  caf::actor subscriber;
};
PERFDM_INSPECT(process_announcements, x.subscriber)
struct process_announcement {
  enum kind_t : std::uint8_t { start, end, report };
  std::string xml;  // the message as the gateway's clients get it
  // The same in parts, for a connection that names the process otherwise (DyPer's
  // `<pid>@<host>`, actors/dyper_controller_dialer.hpp).
  std::int32_t pid = 0;
  kind_t kind = start;
  std::int64_t time_ms = 0;  // REPORT: its TIME
  std::string body;          // REPORT: the <MONITOR> element
};

PERFDM_INSPECT(process_announcement, x.xml, x.pid, x.kind, x.time_ms, x.body)

}  // namespace perfdm
