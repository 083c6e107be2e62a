// See reconnect_actor.hpp.
#include "actors/reconnect_actor.hpp"

#include <caf/blocking_actor.hpp>
#include <caf/send.hpp>
#include <thread>

namespace perfdm {

void spawn_reconnect(caf::actor_system& sys, connect_function connect, std::string address,
                     std::chrono::milliseconds budget, caf::actor reply_to) {
  sys.spawn<caf::detached>([=](caf::blocking_actor*) {
    using clock = std::chrono::steady_clock;
    const auto until = clock::now() + budget;
    caf::error last = caf::make_error(caf::sec::cannot_connect_to_node);
    while (clock::now() < until) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - clock::now());
      auto got = connect(address, std::min(left, std::chrono::milliseconds(1000)));
      if (got && *got) {
        caf::anon_send(reply_to, reconnect_atom::value, std::move(*got));
        return;
      }
      if (!got) last = got.error();
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    caf::anon_send(reply_to, reconnect_atom::value, std::move(last));
  });
}

}  // namespace perfdm
