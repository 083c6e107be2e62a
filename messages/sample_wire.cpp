#include "messages/sample_wire.hpp"

#include <cstring>

#include "messages/exact_doubles.hpp"

namespace perfdm {

namespace {

static_assert(sizeof(double) == 8 && sizeof(std::uint64_t) == 8);

void put(char* at, std::uint64_t v) {
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  std::memcpy(at, &v, 8);
}

std::uint64_t get(const char* at) {
  std::uint64_t v;
  std::memcpy(&v, at, 8);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

}  // namespace

std::vector<char> pack_samples(const std::vector<sample>& samples) {
  std::vector<char> out(samples.size() * sample_wire_bytes);
  char* at = out.data();
  for (auto& s : samples) {
    put(at, s.mi.id);
    put(at + 8, bits_of(s.start));
    put(at + 16, bits_of(s.end));
    put(at + 24, bits_of(s.value));
    at += sample_wire_bytes;
  }
  return out;
}

bool unpack_samples(const std::vector<char>& bytes, std::vector<sample>& out) {
  if (bytes.size() % sample_wire_bytes != 0) return false;
  out.resize(bytes.size() / sample_wire_bytes);
  const char* at = bytes.data();
  for (auto& s : out) {
    s = sample{mi_handle{get(at)}, double_of(get(at + 8)), double_of(get(at + 16)),
               double_of(get(at + 24))};
    at += sample_wire_bytes;
  }
  return true;
}

}  // namespace perfdm
