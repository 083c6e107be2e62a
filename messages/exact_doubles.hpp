// How a double crosses the network between processes: as its bit pattern.
//
// CAF 0.17's binary serializer packs a double through IEEE 754 arithmetic that does not
// round-trip: NaN ("no data" in a histogram bucket, a share not measured) arrives as -1, a
// denormal as another number, -0 as 0, and an infinity never leaves (the packing loops
// forever). Every double of a message is therefore inspected through wire_field(), which
// hands CAF's serializers its 64 bits and everything else (printing) the number itself.
#pragma once

#include <caf/deserializer.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/serializer.hpp>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace perfdm {

struct exact_double {
  double& x;
};
struct exact_double_vector {
  std::vector<double>& x;
};
template <class Key>
struct exact_double_map {
  std::map<Key, double>& x;
};

inline std::uint64_t bits_of(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}
inline double double_of(std::uint64_t bits) {
  double x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

template <class Inspector>
constexpr bool saves_bytes = std::is_base_of<caf::serializer, Inspector>::value;
template <class Inspector>
constexpr bool loads_bytes = std::is_base_of<caf::deserializer, Inspector>::value;

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, exact_double& d) {
  if constexpr (saves_bytes<Inspector>) {
    auto bits = bits_of(d.x);
    return f(bits);
  } else if constexpr (loads_bytes<Inspector>) {
    std::uint64_t bits = 0;
    auto err = f(bits);
    if (!err) d.x = double_of(bits);
    return err;
  } else {
    return f(d.x);
  }
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, exact_double_vector& d) {
  if constexpr (saves_bytes<Inspector>) {
    std::vector<std::uint64_t> bits;
    bits.reserve(d.x.size());
    for (double v : d.x) bits.push_back(bits_of(v));
    return f(bits);
  } else if constexpr (loads_bytes<Inspector>) {
    std::vector<std::uint64_t> bits;
    auto err = f(bits);
    if (err) return err;
    d.x.clear();
    d.x.reserve(bits.size());
    for (auto b : bits) d.x.push_back(double_of(b));
    return err;
  } else {
    return f(d.x);
  }
}

template <class Inspector, class Key>
typename Inspector::result_type inspect(Inspector& f, exact_double_map<Key>& d) {
  if constexpr (saves_bytes<Inspector>) {
    std::vector<std::pair<Key, std::uint64_t>> bits;
    for (auto& [k, v] : d.x) bits.emplace_back(k, bits_of(v));
    return f(bits);
  } else if constexpr (loads_bytes<Inspector>) {
    std::vector<std::pair<Key, std::uint64_t>> bits;
    auto err = f(bits);
    if (err) return err;
    d.x.clear();
    for (auto& [k, b] : bits) d.x.emplace(k, double_of(b));
    return err;
  } else {
    return f(d.x);
  }
}

// A field as CAF inspects it: doubles (alone, in a vector, as map values) by their bits,
// anything else as it is.
template <class T>
T&& wire_field(T&& x) {
  return std::forward<T>(x);
}
inline exact_double wire_field(double& x) { return {x}; }
inline exact_double_vector wire_field(std::vector<double>& x) { return {x}; }
template <class Key>
exact_double_map<Key> wire_field(std::map<Key, double>& x) {
  return {x};
}

// inspect() of a struct's fields under its type's name (PERFDM_INSPECT).
template <class Inspector, class... Ts>
typename Inspector::result_type inspect_fields(Inspector& f, const char* type_name, Ts&&... xs) {
  return f(caf::meta::type_name(type_name), wire_field(std::forward<Ts>(xs))...);
}

}  // namespace perfdm
