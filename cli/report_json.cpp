#include "cli/report_json.hpp"

#include <cmath>
#include <cstdint>

namespace perfdm {

report_json report_number(double x) {
  if (!std::isfinite(x)) return nullptr;
  // 2, not 2.0: as format_number (the XML) writes it.
  if (x == std::trunc(x) && std::fabs(x) < 1e15) return static_cast<std::int64_t>(x);
  return x;
}

report_json report_text(const std::string& s) {
  if (s.empty()) return nullptr;
  return s;
}

std::string report_dump(const report_json& j) {
  return j.dump(-1, ' ', false, report_json::error_handler_t::replace);
}

}  // namespace perfdm
