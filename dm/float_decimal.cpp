#include "dm/float_decimal.hpp"

#include <charconv>
#include <cmath>

namespace perfdm {

double float_as_decimal(float x) {
  // NaN and infinities have no decimal; 0 keeps its sign.
  if (!std::isfinite(x) || x == 0.0f) return static_cast<double>(x);
  char text[32];
  // Shortest representation that reads back as exactly this float (C++17 <charconv>).
  auto printed = std::to_chars(text, text + sizeof text, x);
  double out = static_cast<double>(x);
  std::from_chars(text, printed.ptr, out);
  return out;
}

}  // namespace perfdm
