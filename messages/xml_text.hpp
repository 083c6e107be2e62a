// The text rules the XML codec's parser (messages/xml_parse.cpp) and printer
// (messages/xml_print.cpp) share: ASCII case folding, quoting in messages, the one escaping
// helper, and the persistence flags' attribute names. Internal to the codec.
#pragma once

#include <string>
#include <string_view>

#include "messages/dm_types.hpp"

namespace perfdm::xml {

// Names are ASCII, so a plain ASCII case fold is all we need (and it does not depend on the
// process locale).
char ascii_upper(char c);
bool iequals(std::string_view a, std::string_view b);
std::string upper_case(std::string_view s);
bool is_space(char c);

// `'s'` and `<name>`, as error messages quote values and elements.
std::string quoted(std::string_view s);
std::string tag(std::string_view name);

// Appends `s` escaped for an attribute value or element text. Line breaks become character
// references so that every printed message stays on one line (the wire framing and replay
// files are line based); XML parsers turn them back into the same characters.
void append_escaped(std::string& out, std::string_view s);

// The three persistence flags in their protocol order, so readers and printers share one list.
struct flag_attribute {
  const char* name;
  bool persistence::*member;
};
inline constexpr flag_attribute flag_attributes[] = {
    {"PERSISTENT_DATA", &persistence::data},
    {"PERSISTENT_COLLECTION", &persistence::collection},
    {"PHASE_PERSISTENT_DATA", &persistence::phase_data},
};

// SEARCH: the tunables of docs/PROTOCOL.md, each checked for its range here so that a
// search never runs with a threshold it cannot use.
struct search_tunable_attribute {
  const char* name;
  double low;
  bool low_open;  // the value must be greater than `low` (else at least)
  double high;    // inclusive
};
inline constexpr search_tunable_attribute search_tunable_attributes[] = {
    {"CPU_THRESHOLD", 0, false, 1e9},  {"SYNC_THRESHOLD", 0, false, 1e9},
    {"IO_THRESHOLD", 0, false, 1e9},   {"SMALL_IO_BYTES", 0, false, 1e18},
    {"HYSTERESIS", 0, false, 0.99},    {"SUFFICIENT_TIME", 0, true, 1e6},
    {"MAX_PENDING", 1, false, 1e6},    {"MAX_ACTIVE", 1, false, 1e9},
    {"COST_BUDGET", 0, true, 1},       {"CONFIDENCE", 0.5, false, 0.999999},
};

}  // namespace perfdm::xml
