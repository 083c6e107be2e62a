#include "log/log_print_text.hpp"

#include <charconv>
#include <cmath>

namespace perfdm {

namespace {

const char hex_digits[] = "0123456789abcdef";

void append_hex_byte(std::string& out, unsigned char c) {
  out += hex_digits[c >> 4];
  out += hex_digits[c & 15];
}

bool needs_escape(unsigned char c) { return c < 0x20 || c == 0x7f || c == '\\'; }

// Length of the valid UTF-8 sequence starting at s[i], or 0.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  std::size_t n;
  unsigned char lo = 0x80, hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (b(i + k) < 0x80 || b(i + k) > 0xbf) return 0;
  }
  return n;
}

}  // namespace

void log_text::append_escaped(std::string& out, std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && !needs_escape(static_cast<unsigned char>(s[i]))) ++i;
  if (i == s.size()) {
    out.append(s);
    return;
  }
  out.append(s.substr(0, i));
  for (; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\\': out += "\\\\"; break;
      default:
        if (needs_escape(c)) {
          out += "\\x";
          append_hex_byte(out, c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
}

void log_text::append_hex(std::string& out, std::string_view s) {
  for (unsigned char c : s) append_hex_byte(out, c);
}

// Bytes that are not UTF-8 are read as Latin-1 (0xe9 is U+00E9), so that no byte of a name or
// a command line is lost when nlohmann-json writes the string.
std::string log_text::json_utf8(std::string_view s) {
  std::string text;
  text.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      text += static_cast<char>(c);
      ++i;
    } else if (const std::size_t n = utf8_sequence(s, i)) {
      text.append(s.substr(i, n));
      i += n;
    } else {
      text += static_cast<char>(0xc0 | (c >> 6));
      text += static_cast<char>(0x80 | (c & 0x3f));
      ++i;
    }
  }
  return text;
}

namespace {

const char* not_finite_name(double f) { return std::isnan(f) ? "nan" : f > 0 ? "inf" : "-inf"; }

}  // namespace

void log_text::append_value(std::string& out, const log_value& v) {
  switch (v.kind) {
    case log_value::integer: append_number(out, v.i); break;
    case log_value::real:
      if (std::isfinite(v.f)) {
        append_number(out, v.f);
      } else {
        out += not_finite_name(v.f);
      }
      break;
    case log_value::text: append_escaped(out, v.s); break;
  }
}

nlohmann::ordered_json log_text::json_value(const log_value& v) {
  switch (v.kind) {
    case log_value::integer: return v.i;
    case log_value::real:
      if (std::isfinite(v.f)) return v.f;
      return not_finite_name(v.f);
    case log_value::text: break;
  }
  return json_utf8(v.s);
}

std::string log_escape_text(std::string_view bytes) {
  std::string r;
  log_text::append_escaped(r, bytes);
  return r;
}

std::string log_name_text(const log_name& name) {
  std::string r;
  if (name.printable()) {
    log_text::append_escaped(r, name.bytes);
  } else {
    r = "<hex:";
    log_text::append_hex(r, name.bytes);
    r += '>';
  }
  return r;
}

}  // namespace perfdm
