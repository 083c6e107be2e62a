// The rules for names and units shared by the schema parser and the descriptor parser.
#pragma once

#include <cstddef>
#include <string_view>

namespace perfdm::shm {

constexpr std::size_t max_name_length = 128;
constexpr std::size_t max_units_length = 64;

// A C identifier ([A-Za-z_][A-Za-z0-9_]*) of at most max_name_length characters.
bool is_identifier(std::string_view s);

// Names perfdm keeps for itself: perfdm_seq, perfdm_time and everything else starting perfdm_.
bool is_reserved_name(std::string_view s);

// Units: 1..max_units_length printable ASCII characters, no parentheses, no leading or
// trailing space (they travel in the descriptor's one-line field records).
bool is_valid_units(std::string_view s);

}  // namespace perfdm::shm
