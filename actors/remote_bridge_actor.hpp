// The actor `perfdm engine --publish` publishes: remote_dm_actor (messages/remote_interface.hpp)
// in front of the data manager, which itself is dynamically typed. Most requests are delegated
// (the data manager answers the remote sender directly: one round trip). Streams are the
// exception: the bridge remembers which sink opened which stream and monitors the sink, so a
// remote client that vanishes (killed, or frozen past the connection timeout, which makes CAF
// kill its proxies) has its streams closed as if it sent CLOSE for each (rule T3), and the
// metric instances it alone used follow D1-D3.
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "messages/remote_interface.hpp"

namespace perfdm {

// `log_writer` answers write_log (LOG), e.g. spawn_dm_log_writer(); none: LOG answers INTERNAL.
remote_dm_actor spawn_remote_bridge(caf::actor_system& sys, caf::actor dm,
                                    caf::actor log_writer = {});

}  // namespace perfdm
