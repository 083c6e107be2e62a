// A peer with the wrong typed interface, for the refusal tests (tests/remote_client_test.cpp):
//   remote_probe connect PORT   connects to an engine as a client whose interface says STATUS
//                               answers PONG; prints what CAF said and exits 0 if refused
//   remote_probe publish        publishes such an actor on 127.0.0.1 and prints
//                               `published on PORT`, then serves until killed
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "messages/dm_messages.hpp"
#include "messages/type_registry.hpp"

namespace {

// Not perfdm's remote_dm_actor: the reply of STATUS is another type.
using wrong_interface = caf::typed_actor<caf::replies_to<perfdm::status_query>::with<perfdm::pong>>;

wrong_interface::behavior_type wrong_actor() {
  return {[](perfdm::status_query) { return perfdm::pong{}; }};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 64;
  caf::actor_system_config cfg;
  perfdm::register_message_types(cfg);
  cfg.set("logger.console", caf::atom("none"));
  cfg.load<caf::io::middleman>();
  caf::actor_system sys{cfg};
  std::string mode = argv[1];
  if (mode == "connect" && argc == 3) {
    auto port = static_cast<std::uint16_t>(std::atoi(argv[2]));
    auto h = sys.middleman().remote_actor<wrong_interface>("127.0.0.1", port);
    if (h) {
      std::cout << "accepted" << std::endl;
      return 1;
    }
    std::cout << "refused: " << sys.render(h.error()) << std::endl;
    return h.error() == caf::sec::unexpected_actor_messaging_interface ? 0 : 1;
  }
  if (mode == "publish") {
    auto a = sys.spawn(wrong_actor);
    auto port = sys.middleman().publish(a, 0, "127.0.0.1");
    if (!port) return 1;
    std::cout << "published on " << *port << std::endl;
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }
  return 64;
}
