// What TOPOLOGY prints inside <DYPER_REPLY>: part of the codec's printer
// (messages/xml_print.cpp).
#pragma once

#include <string>

#include "messages/topology_messages.hpp"

namespace perfdm::xml {

// <TOPOLOGY><NODE NAME HOST KIND SAMPLES_PER_S LAG_S COMPONENTS SOURCES>children</NODE>
// </TOPOLOGY>: the nodes nested as the tree, in the reply's order. LAG_S is empty when no
// watermark arrived on the link over the last 5 s (and for the engine, which has no link).
std::string reply_body(const topology_reply& x);

}  // namespace perfdm::xml
