// What every sample and watermark must be before the data manager takes it, whichever
// client sent it (not only the XML one): times that fit the nanosecond clock, an end not
// before the start, a finite value.
#pragma once

#include <caf/error.hpp>
#include <optional>

#include "messages/dm_messages.hpp"
#include "messages/time.hpp"

namespace perfdm {

std::optional<caf::error> check_sample(const sample& s);

// A component's watermark (source_samples::complete_until), unless it is no_watermark.
std::optional<caf::error> check_watermark(time_ns complete_until);

}  // namespace perfdm
