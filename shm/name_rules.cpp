#include "shm/name_rules.hpp"

namespace perfdm::shm {

namespace {
bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
}  // namespace

bool is_identifier(std::string_view s) {
  if (s.empty() || s.size() > max_name_length || !is_letter(s[0])) return false;
  for (const char c : s)
    if (!is_letter(c) && !is_digit(c)) return false;
  return true;
}

bool is_reserved_name(std::string_view s) {
  return s.substr(0, 7) == "perfdm_";
}

bool is_valid_units(std::string_view s) {
  if (s.empty() || s.size() > max_units_length || s.front() == ' ' || s.back() == ' ') return false;
  for (const char c : s)
    if (c < 0x20 || c > 0x7e || c == '(' || c == ')') return false;
  return true;
}

}  // namespace perfdm::shm
