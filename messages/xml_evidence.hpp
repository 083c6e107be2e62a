// EVIDENCE in the command language (messages/evidence_messages.hpp): its parser and the
// argument element its printer writes, kept apart from the codec's other commands.
#pragma once

#include <caf/message.hpp>
#include <string>

#include "messages/evidence_messages.hpp"
#include "messages/xml_parse_support.hpp"

namespace perfdm::xml {

caf::message parse_evidence(const xml_node* arg, const std::string& command);
// `<EVIDENCE …>…</EVIDENCE>` on one line.
std::string evidence_argument(const evidence_note& x);

}  // namespace perfdm::xml
