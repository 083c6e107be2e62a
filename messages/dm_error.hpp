// The error codes of PROTOCOL.md, carried as caf::error so a failed request travels back
// to its sender (locally or across the network) like any reply.
#pragma once

#include <cstdint>
#include <string>

#include <caf/atom.hpp>
#include <caf/error.hpp>

namespace perfdm {

enum class dm_error : std::uint8_t {
  bad_xml = 1,
  unknown_command,
  unknown_target,
  bad_argument,
  unknown_handle,
  not_allowed,
  limit,
  internal,
};

inline constexpr caf::atom_value dm_error_category = caf::atom("perfdm");

// The wire name, e.g. "UNKNOWN_HANDLE".
const char* error_code_name(dm_error x);

caf::error make_dm_error(dm_error code, std::string reason);

// The code of an error made by make_dm_error; errors from CAF itself map to INTERNAL.
dm_error dm_error_code(const caf::error& e);

// The human-readable reason of an error made by make_dm_error (or CAF's rendering of others).
std::string dm_error_reason(const caf::error& e);

}  // namespace perfdm
