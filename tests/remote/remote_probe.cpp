// A peer with the wrong typed interface, for the refusal tests (tests/remote_client_test.cpp):
//   remote_probe connect PORT   connects to an engine as a client whose interface says STATUS
//                               answers PONG; prints what CAF said and exits 0 if refused
//   remote_probe publish        publishes such an actor on 127.0.0.1 and prints
//                               `published on PORT`, then serves until killed
// and, with perfdm's own interface, a data source as a per-node daemon is one:
//   remote_probe source PORT    registers a source with the engine, prints the first
//                               source_update that lists a collecting MI (`update INTERVAL
//                               MI=METRIC ...`), sends one sample of 1 over [0, 0.5) to each
//                               such MI and prints `ack COUNT DROPPED`; exits 0 when all worked
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "messages/dm_messages.hpp"
#include "messages/remote_interface.hpp"
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
  if (mode == "source" && argc == 3) {
    auto port = static_cast<std::uint16_t>(std::atoi(argv[2]));
    auto dm = sys.middleman().remote_actor<perfdm::remote_dm_actor>("127.0.0.1", port);
    if (!dm) {
      std::cout << "refused: " << sys.render(dm.error()) << std::endl;
      return 1;
    }
    caf::scoped_actor self{sys};
    auto source = caf::actor_cast<caf::actor>(self);
    bool registered = false;
    self->request(*dm, std::chrono::seconds(20), perfdm::source_register{source, {}})
        .receive([&](perfdm::ok_reply) { registered = true; },
                 [&](caf::error& e) { std::cout << "error " << sys.render(e) << std::endl; });
    if (!registered) return 1;
    // The engine sends the set now and after every change; wait for one with an MI.
    perfdm::source_update update;
    for (bool have = false; !have;) {
      bool timed_out = false;
      self->receive([&](perfdm::source_update& u) { update = std::move(u); },
                    caf::after(std::chrono::seconds(20)) >> [&] { timed_out = true; });
      if (timed_out) return 1;
      have = !update.mis.empty();
    }
    std::cout << "update " << update.interval;
    perfdm::source_samples batch;
    for (auto& m : update.mis) {
      std::cout << " " << m.mi.id << "=" << m.metric;
      batch.samples.push_back({m.mi, 0, 0.5, 1});
    }
    std::cout << std::endl;
    bool acked = false;
    self->request(*dm, std::chrono::seconds(20), batch)
        .receive(
            [&](perfdm::samples_ack& a) {
              std::cout << "ack " << a.count << " " << a.dropped << std::endl;
              acked = true;
            },
            [&](caf::error& e) { std::cout << "error " << sys.render(e) << std::endl; });
    self->request(*dm, std::chrono::seconds(20), perfdm::source_unregister{source})
        .receive([](perfdm::ok_reply) {}, [](caf::error&) {});
    return acked ? 0 : 1;
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
