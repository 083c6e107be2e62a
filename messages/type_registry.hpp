// Registers every message type with a CAF config. Must run before the actor_system exists,
// on both sides of a network connection (ARCHITECTURE.md, "Facts about CAF").
#pragma once

#include <caf/actor_system_config.hpp>

namespace perfdm {

void register_message_types(caf::actor_system_config& cfg);

}  // namespace perfdm
