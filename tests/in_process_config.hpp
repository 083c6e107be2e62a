// For tests that run the data manager's actors in the test's own process: an actor system
// that knows every perfdm message type and keeps CAF's console logger quiet.
#pragma once

#include <caf/actor_system_config.hpp>
#include <caf/atom.hpp>

#include "messages/type_registry.hpp"

namespace perfdm::test {

struct in_process_config : caf::actor_system_config {
  in_process_config() {
    register_message_types(*this);
    set("logger.console", caf::atom("none"));
  }
};

}  // namespace perfdm::test
