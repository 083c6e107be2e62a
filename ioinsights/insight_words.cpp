#include "ioinsights/insight_words.hpp"

#include <cmath>
#include <cstdio>

namespace perfdm::ioinsights {

namespace {

std::string format(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// One decimal below 10, none above: "1.2", "12".
std::string short_number(double v) { return v < 9.95 ? format("%.1f", v) : format("%.0f", v); }

}  // namespace

std::string percent(double fraction) {
  const double p = fraction * 100;
  if (p == 0) return "0 %";
  if (p < 0.05) return "< 0.1 %";
  if (p < 0.95) return format("%.1f", p) + " %";
  return format("%.0f", p) + " %";
}

std::string count(double n) {
  if (n >= 999950) return short_number(n / 1e6) + " M";
  const long long v = std::llround(n);
  if (v < 1000) return std::to_string(v);
  std::string s = std::to_string(v);
  for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(std::size_t(i), ",");
  return s;
}

std::string bytes(double n) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (n >= 1024 && u < 5) {
    n /= 1024;
    ++u;
  }
  if (u == 0) return format("%.0f", n) + " B";
  return (std::fabs(n - std::round(n)) < 0.05 ? format("%.0f", n) : short_number(n)) + " " + units[u];
}

std::string seconds(double s) {
  if (s <= 0) return "0 s";
  if (s < 0.001) return short_number(s * 1e6) + " µs";
  if (s < 1) return short_number(s * 1e3) + " ms";
  if (s < 3600) return short_number(s) + " s";
  return short_number(s / 3600) + " h";
}

}  // namespace perfdm::ioinsights
