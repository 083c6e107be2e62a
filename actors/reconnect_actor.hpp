// Failover: a child of a relay that went down connects to the relay's own upstream.
// Connecting (CAF's remote_actor) blocks, so it runs on a detached actor of its own, which
// tries until `budget` has passed since it started and then tells `reply_to`:
// (reconnect_atom, caf::actor upstream) on success, (reconnect_atom, caf::error) otherwise.
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/expected.hpp>
#include <chrono>
#include <functional>
#include <string>

namespace perfdm {

using reconnect_atom = caf::atom_constant<caf::atom("reconnect")>;

// Connects to the engine or relay published at "HOST:PORT", waiting at most the given time.
using connect_function =
    std::function<caf::expected<caf::actor>(const std::string& address, std::chrono::milliseconds)>;

// How long a child tries to reach its relay's upstream before it gives up (and exits 1 as a
// child of the engine does when the engine goes away); each attempt waits at most a second,
// and a refused one is tried again 200 ms later.
inline constexpr std::chrono::milliseconds reconnect_budget{3000};

void spawn_reconnect(caf::actor_system& sys, connect_function connect, std::string address,
                     std::chrono::milliseconds budget, caf::actor reply_to);

}  // namespace perfdm
