// Darshan's record ids: the 64-bit hash of a record's cleaned name. Darshan uses Bob
// Jenkins' public-domain 64-bit hash (lookup8.c, 1997) with level 0; this is written from
// that algorithm's description, so ids agree with Darshan's for the same name. Also the
// name cleaning Darshan applies to a path before hashing it (darshan_clean_file_path in
// darshan-runtime/lib/darshan-common.c). Plain C++ without dependencies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace perfdm::darshan {

namespace detail {

// Jenkins' 64-bit mix: each of a, b, c is changed by the other two, 12 rounds of
// subtract-subtract-xor-shift with fixed shift amounts.
constexpr void jenkins_mix64(std::uint64_t& a, std::uint64_t& b, std::uint64_t& c) {
  a -= b; a -= c; a ^= (c >> 43);
  b -= c; b -= a; b ^= (a << 9);
  c -= a; c -= b; c ^= (b >> 8);
  a -= b; a -= c; a ^= (c >> 38);
  b -= c; b -= a; b ^= (a << 23);
  c -= a; c -= b; c ^= (b >> 5);
  a -= b; a -= c; a ^= (c >> 35);
  b -= c; b -= a; b ^= (a << 49);
  c -= a; c -= b; c ^= (b >> 11);
  a -= b; a -= c; a ^= (c >> 12);
  b -= c; b -= a; b ^= (a << 18);
  c -= a; c -= b; c ^= (b >> 22);
}

// Bytes [from, from + n) of `k` as a little-endian number (n <= 8). At run time on a
// little-endian machine, one load of the whole word (the I/O library hashes a name at every
// open); at compile time, byte by byte.
constexpr std::uint64_t little_endian(const unsigned char* k, std::size_t n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (!__builtin_is_constant_evaluated() && n == 8) {
    std::uint64_t v = 0;
    __builtin_memcpy(&v, k, 8);
    return v;
  }
#endif
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v |= std::uint64_t{k[i]} << (8 * i);
  return v;
}

}  // namespace detail

// Jenkins' lookup8 hash() of `size` bytes with the given level (Darshan: 0).
// a and b start at the level, c at the golden ratio; each 24-byte block adds three
// little-endian words and mixes; then c takes the total length, the last 0-23 bytes are
// added (bytes 16-22 to c from its second byte up: its low byte holds the length), and a
// final mix gives c.
constexpr std::uint64_t jenkins_hash64(const unsigned char* k, std::size_t size,
                                       std::uint64_t level = 0) {
  std::uint64_t a = level, b = level, c = 0x9e3779b97f4a7c13ULL;
  std::size_t len = size;
  while (len >= 24) {
    a += detail::little_endian(k, 8);
    b += detail::little_endian(k + 8, 8);
    c += detail::little_endian(k + 16, 8);
    detail::jenkins_mix64(a, b, c);
    k += 24;
    len -= 24;
  }
  c += size;
  if (len > 16) c += detail::little_endian(k + 16, len - 16) << 8;
  if (len > 8) b += detail::little_endian(k + 8, len > 16 ? 8 : len - 8);
  a += detail::little_endian(k, len > 8 ? 8 : len);
  detail::jenkins_mix64(a, b, c);
  return c;
}

// The record id of an already cleaned name (Darshan's darshan_core_gen_record_id).
inline std::uint64_t record_id(std::string_view name) {
  return jenkins_hash64(reinterpret_cast<const unsigned char*>(name.data()), name.size(), 0);
}

// The name Darshan records for `path` opened in directory `cwd`: names starting with '<'
// (<STDIN>, <STDOUT>, <STDERR>) and empty names stay as they are; a relative path becomes
// cwd + "/" + path; then every "//" becomes "/" and every "/./" becomes "/". No ".."
// resolution, no symbolic links, no trailing-slash removal.
//
// Written into `out` (`size` bytes, NUL-terminated) in one pass, without allocating: the I/O
// library cleans a name at every open. Darshan removes one character of each "//" until none
// is left, then two of each "/./" until none is left ("/././" becomes "/"); in one pass that
// is: a '/' after a '/' goes, and so does a '.' between a '/' and a '/' (the second '/' then
// goes as the first rule says). Returns the name's length, or `size` when it does not fit.
inline std::size_t clean_path_into(std::string_view path, std::string_view cwd, char* out,
                                   std::size_t size) {
  std::size_t n = 0;
  auto put = [&](char c) {
    if (n + 1 >= size) return false;
    out[n++] = c;
    return true;
  };
  // A name that needs no cleaning (an absolute one without "//" or "/./", most of them) is
  // copied as it is.
  auto clean = [&] {
    for (auto at = path.find('/'); at != std::string_view::npos; at = path.find('/', at + 1)) {
      if (at + 1 < path.size() && path[at + 1] == '/') return false;
      if (at + 2 < path.size() && path[at + 1] == '.' && path[at + 2] == '/') return false;
    }
    return true;
  };
  if (path.empty() || path.front() == '<' || (path.front() == '/' && clean())) {
    if (path.size() >= size) return size;
    path.copy(out, path.size());
    out[path.size()] = '\0';
    return path.size();
  }
  // The name before cleaning: cwd + "/" + path, or path.
  const bool relative = path.front() != '/';
  const std::size_t head = relative ? cwd.size() + 1 : 0, total = head + path.size();
  auto at = [&](std::size_t i) {
    if (i >= head) return path[i - head];
    return i < cwd.size() ? cwd[i] : '/';
  };
  for (std::size_t i = 0; i < total; ++i) {
    const char c = at(i);
    const bool after_slash = n > 0 && out[n - 1] == '/';
    if (c == '/' && after_slash) continue;
    if (c == '.' && after_slash && i + 1 < total && at(i + 1) == '/') continue;
    if (!put(c)) return size;
  }
  out[n] = '\0';
  return n;
}

inline std::string clean_path(std::string_view path, std::string_view cwd) {
  std::string p(cwd.size() + path.size() + 2, '\0');
  p.resize(clean_path_into(path, cwd, p.data(), p.size()));
  return p;
}

}  // namespace perfdm::darshan
