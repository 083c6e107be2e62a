#include "log/log_format.hpp"

#include <zlib.h>

namespace perfdm {

std::uint64_t log_name_id(const void* bytes, std::size_t size) {
  // FNV-1a, 64 bit: offset basis 0xcbf29ce484222325, prime 0x100000001b3.
  std::uint64_t h = 0xcbf29ce484222325ULL;
  const auto* p = static_cast<const unsigned char*>(bytes);
  for (std::size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

bool log_valid_region_name(std::string_view n) {
  if (n.empty() || n.size() > logfmt::module_name_size) return false;
  for (char c : n) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

bool log_bytes_printable(std::string_view bytes) {
  for (unsigned char c : bytes) {
    if (c < 0x20 || c == 0x7f) return false;
  }
  return true;
}

std::uint32_t log_crc32(std::uint32_t crc, const void* data, std::size_t size) {
  const auto* p = static_cast<const Bytef*>(data);
  uLong c = crc;
  while (size > 0) {
    const uInt n = size > (1u << 30) ? (1u << 30) : static_cast<uInt>(size);
    c = ::crc32(c, p, n);
    p += n;
    size -= n;
  }
  return static_cast<std::uint32_t>(c);
}

std::string log_region_label(std::uint32_t id, std::string_view name) {
  std::string s;
  if (!name.empty()) {
    s.append(name);
    s += ' ';
  }
  s += "(id " + std::to_string(id) + ')';
  return s;
}

}  // namespace perfdm
