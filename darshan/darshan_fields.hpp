// Field readers over a record's or a header's bytes in the log's byte order (a log written on
// ppc64 is big-endian). Plain C++, for the Darshan reader's files only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace perfdm::darshan {

inline std::uint64_t bswap(std::uint64_t v) { return __builtin_bswap64(v); }

struct fields {
  const unsigned char* p;
  bool swap;
  std::uint64_t u64(std::size_t at) const {
    std::uint64_t v;
    std::memcpy(&v, p + at, 8);
    return swap ? bswap(v) : v;
  }
  std::int64_t i64(std::size_t at) const { return static_cast<std::int64_t>(u64(at)); }
  std::uint32_t u32(std::size_t at) const {
    std::uint32_t v;
    std::memcpy(&v, p + at, 4);
    return swap ? __builtin_bswap32(v) : v;
  }
  double f64(std::size_t at) const {
    std::uint64_t u = u64(at);
    double d;
    std::memcpy(&d, &u, 8);
    return d;
  }
};

}  // namespace perfdm::darshan
