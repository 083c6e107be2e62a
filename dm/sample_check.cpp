#include "dm/sample_check.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

#include "messages/dm_error.hpp"
#include "messages/source_messages.hpp"

namespace perfdm {

namespace {

std::string within_limit() {
  return std::to_string(static_cast<long long>(max_time_seconds)) + " s of 0";
}

}  // namespace

std::optional<caf::error> check_sample(const sample& s) {
  auto valid_time = [](double t) { return std::isfinite(t) && std::fabs(t) <= max_time_seconds; };
  if (!valid_time(s.start) || !valid_time(s.end))
    return make_dm_error(dm_error::bad_argument,
                         "sample times must be finite and within " + within_limit());
  if (s.end < s.start)
    return make_dm_error(dm_error::bad_argument, "a sample cannot end before it starts");
  if (!std::isfinite(s.value))
    return make_dm_error(dm_error::bad_argument, "a sample value must be finite");
  return std::nullopt;
}

std::optional<caf::error> check_watermark(time_ns complete_until) {
  if (complete_until != no_watermark && std::llabs(complete_until) > to_ns(max_time_seconds))
    return make_dm_error(dm_error::bad_argument, "a watermark must be within " + within_limit());
  return std::nullopt;
}

}  // namespace perfdm
