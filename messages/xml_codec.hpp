// The XML command language of PROTOCOL.md <-> the message structs of dm_messages.hpp.
// Parsing uses RapidXML; printing writes the canonical one-line form (single quotes,
// upper-case names, numbers in their shortest round-trip form, NaN as `nan`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <caf/error.hpp>
#include <caf/make_message.hpp>
#include <caf/message.hpp>

namespace perfdm {

// Requests longer than this are refused with LIMIT before any parsing.
inline constexpr std::size_t max_request_bytes = 16 * 1024 * 1024;

// One request read from the command language.
struct parsed_request {
  std::string target;   // the PID attribute ("DM" for the data manager); "" when unreadable
  std::string command;  // the COMMAND attribute, upper case; "" when unreadable
  caf::message request; // one request struct of dm_messages.hpp; empty when `error` is set
  caf::error error;     // BAD_XML, UNKNOWN_COMMAND, UNKNOWN_TARGET, BAD_ARGUMENT or LIMIT
};

parsed_request parse_request(std::string_view text);

// The argument of the process commands FLAMEGRAPH and TIMELINE (XML text, "" for none) as a
// flamegraph_request or timeline_request (messages/flame_messages.hpp) for `pid`.
parsed_request parse_flame_argument(std::int32_t pid, const std::string& command,
                                    std::string_view argument);

// The canonical line for a request struct; parse_request() of it gives the struct back.
std::string print_request(const std::string& target, const caf::message& request);

// The canonical line for a request to the data manager (target "DM").
template <class Request>
std::string print_dm_request(Request request) {
  return print_request("DM", caf::make_message(std::move(request)));
}

// `<DYPER_REPLY ID='target'>...</DYPER_REPLY>` for a reply struct.
std::string print_reply(const std::string& target, const caf::message& reply);

// What print_reply puts inside `<DYPER_REPLY>` for a reply struct ("" if it is not one).
std::string print_reply_body(const caf::message& reply);

// `<DYPER_REPLY ID='target' ERROR='CODE'>reason</DYPER_REPLY>`.
std::string print_error(const std::string& target, const caf::error& error);

// `<DYPER DATA='s'>...</DYPER>` and the other stream events; "" if `event` is not one.
std::string print_event(const caf::message& event);

// `s` without the spaces, tabs, CRs and LFs around it (request lines and XML text).
std::string_view trim(std::string_view s);

// Text escaped for an XML attribute value or element text (one line: line breaks become
// character references).
std::string xml_escaped(std::string_view s);

// Shortest round-trip decimal form of a number; `nan`, `inf`, `-inf` for the others.
std::string format_number(double x);

}  // namespace perfdm
