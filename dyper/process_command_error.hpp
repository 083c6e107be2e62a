// A DyPer process command refused: its DM error code and why.
#pragma once

#include <stdexcept>
#include <string>

#include "messages/dm_error.hpp"

namespace perfdm {

struct process_command_error : std::runtime_error {
  process_command_error(dm_error code, const std::string& reason)
      : std::runtime_error(reason), code(code) {}
  dm_error code;
};

}  // namespace perfdm
