// How `perfdm log` writes bytes and values as text: escaped for the tab-separated rows, as
// hex for names that are not printable, as JSON values (nlohmann-json's; valid UTF-8 kept,
// other bytes read as Latin-1) for JSON Lines.
#pragma once

#include <charconv>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "log/log_print.hpp"

namespace perfdm::log_text {

// Tab, newline, carriage return, backslash and other control bytes as \t \n \r \\ \xHH.
void append_escaped(std::string& out, std::string_view s);
// Two lower-case hex digits per byte.
void append_hex(std::string& out, std::string_view s);
// `s` as the UTF-8 text of a JSON string: valid UTF-8 kept, other bytes read as Latin-1.
std::string json_utf8(std::string_view s);
// A value in a tab-separated row: a number, nan, inf, -inf, or escaped text.
void append_value(std::string& out, const log_value& v);
// A value in a JSON row: a number, the string "nan", "inf" or "-inf", or a string.
nlohmann::ordered_json json_value(const log_value& v);

// An integer or a double in its shortest form that reads back the same.
template <class T>
void append_number(std::string& out, T v) {
  char b[40];
  const auto r = std::to_chars(b, b + sizeof b, v);
  out.append(b, static_cast<std::size_t>(r.ptr - b));
}

}  // namespace perfdm::log_text
