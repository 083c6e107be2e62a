#include "messages/dm_error.hpp"

#include <caf/message.hpp>
#include <caf/sec.hpp>

namespace perfdm {

const char* error_code_name(dm_error x) {
  switch (x) {
    case dm_error::bad_xml: return "BAD_XML";
    case dm_error::unknown_command: return "UNKNOWN_COMMAND";
    case dm_error::unknown_target: return "UNKNOWN_TARGET";
    case dm_error::bad_argument: return "BAD_ARGUMENT";
    case dm_error::unknown_handle: return "UNKNOWN_HANDLE";
    case dm_error::not_allowed: return "NOT_ALLOWED";
    case dm_error::limit: return "LIMIT";
    case dm_error::internal: return "INTERNAL";
  }
  return "INTERNAL";
}

caf::error make_dm_error(dm_error code, std::string reason) {
  return caf::error(static_cast<std::uint8_t>(code), dm_error_category,
                    caf::make_message(std::move(reason)));
}

dm_error dm_error_code(const caf::error& e) {
  if (e.category() != dm_error_category || e.code() < 1 ||
      e.code() > static_cast<std::uint8_t>(dm_error::internal))
    return dm_error::internal;
  return static_cast<dm_error>(e.code());
}

std::string dm_error_reason(const caf::error& e) {
  if (e.category() == dm_error_category && e.context().match_elements<std::string>())
    return e.context().get_as<std::string>(0);
  return "engine error: " + caf::to_string(e);
}

}  // namespace perfdm
