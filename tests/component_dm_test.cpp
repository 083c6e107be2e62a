// The data manager with component sources (daemons; here two actors in one process): their
// samples are aggregated (Paradyn), STATUS lists them, and one that goes down is removed, with
// COMPONENTREMOVED on every open stream, while the data continues from the other.
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <catch2/catch.hpp>
#include <limits>
#include <optional>

#include "actors/data_manager_actor.hpp"
#include "messages/dm_error.hpp"
#include "messages/source_messages.hpp"
#include "messages/type_registry.hpp"
#include "messages/xml_codec.hpp"
#include "tests/in_process_config.hpp"

using namespace perfdm;

namespace {

using config = test::in_process_config;

struct fixture {
  config cfg;
  caf::actor_system sys{cfg};
  caf::actor dm = spawn_data_manager(sys);
  caf::scoped_actor client{sys};                    // a front end: its stream events arrive here
  std::optional<caf::scoped_actor> a{sys}, b{sys};  // two component sources

  ~fixture() { client->send_exit(dm, caf::exit_reason::user_shutdown); }

  template <class Reply, class Request>
  Reply ask(Request req) {
    Reply out;
    client->request(dm, std::chrono::seconds(20), std::move(req))
        .receive([&](Reply& r) { out = std::move(r); },
                 [&](caf::error& e) { FAIL("error reply: " << dm_error_reason(e)); });
    return out;
  }

  void registered(caf::scoped_actor& source, const std::string& name) {
    source->send(dm, source_register{caf::actor_cast<caf::actor>(source), name});
    bool got = false;
    source->receive([&](source_update&) { got = true; },
                    caf::after(std::chrono::seconds(20)) >> [] {});
    REQUIRE(got);
  }

  samples_ack send(caf::scoped_actor& source, std::vector<sample> samples) {
    samples_ack out;
    bool got = false;
    source->request(dm, std::chrono::seconds(20), source_samples{std::move(samples)})
        .receive([&](samples_ack& x) { out = x, got = true; },
                 [&](caf::error& e) { FAIL("error reply: " << dm_error_reason(e)); });
    REQUIRE(got);
    return out;
  }

  // A COUNTER metric `name`, collected for the whole program on a stream of the client's:
  // its MI.
  mi_handle counter_mi(const std::string& name) {
    ask<metric_info>(define_metric{name, metric_style::counter, ""});
    auto stream = ask<stream_opened>(open_stream{caf::actor_cast<caf::actor>(client)}).stream;
    return ask<mi_info>(
               enable_request{stream, name, {}, phase_ref{phase_type::global, false, {}}, {}})
        .id;
  }

  std::vector<double> buckets(mi_handle mi) {
    return ask<histogram_data>(data_request{mi, phase_ref{phase_type::global, false, {}}}).values;
  }

  // Waits (up to 20 s) for COMPONENTREMOVED, skipping the stream's other events.
  std::string next_removed() {
    std::string name;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (name.empty() && std::chrono::steady_clock::now() < deadline)
      client->receive([&](component_removed_event& e) { name = e.name; }, [](data_event&) {},
                      [](new_metric_event&) {},
                      caf::after(std::chrono::milliseconds(100)) >> [] {});
    return name;
  }
};

}  // namespace

TEST_CASE("components: the DM aggregates two component sources and removes one that goes down",
          "[aggregator][dm]") {
  fixture f;
  auto mi = f.counter_mi("work.requests");
  f.registered(*f.a, "node-a:1");
  f.registered(*f.b, "node-b:2");
  auto status = f.ask<status_info>(status_query{});
  CHECK(status.components == std::vector<std::string>{"node-a:1", "node-b:2"});
  CHECK(print_reply_body(caf::make_message(status)).find("<COMPONENT NAME='node-b:2'/>") !=
        std::string::npos);

  // Both report the first bucket; from then on both are components of the MI.
  f.send(*f.a, {sample{mi, 0, 0.2, 1}});
  f.send(*f.b, {sample{mi, 0, 0.2, 2}});
  CHECK(f.buckets(mi) == std::vector<double>{3});
  // a alone is ahead: nothing of [0.2, 0.4) is in yet.
  f.send(*f.a, {sample{mi, 0.2, 0.4, 10}});
  CHECK(f.buckets(mi).size() == 1);
  f.send(*f.b, {sample{mi, 0.2, 0.4, 5}});
  CHECK(f.buckets(mi) == std::vector<double>{3, 15});

  // a reports on; b dies having reported half of what a did, and is removed.
  f.send(*f.a, {sample{mi, 0.4, 0.6, 3}});
  f.send(*f.b, {sample{mi, 0.4, 0.5, 7}});
  CHECK(f.buckets(mi) == std::vector<double>{3, 15, 1.5 + 7});  // [0.4, 0.5) is complete
  f.b.reset();
  CHECK(f.next_removed() == "node-b:2");
  // What b sent is kept, and a alone moves the aggregate on.
  CHECK(f.buckets(mi) == std::vector<double>{3, 15, 10});
  f.send(*f.a, {sample{mi, 0.6, 0.8, 4}});
  CHECK(f.buckets(mi) == std::vector<double>{3, 15, 10, 4});
  CHECK(f.ask<status_info>(status_query{}).components == std::vector<std::string>{"node-a:1"});

  // Unregistering removes a component too.
  f.a.value()->send(f.dm, source_unregister{caf::actor_cast<caf::actor>(*f.a)});
  CHECK(f.next_removed() == "node-a:1");
  CHECK(f.ask<status_info>(status_query{}).components.empty());
}

TEST_CASE("components: a component's invalid samples are refused whole", "[aggregator][dm]") {
  fixture f;
  auto mi = f.counter_mi("m");
  f.registered(*f.a, "node-a:1");
  bool refused = false;
  f.a.value()
      ->request(f.dm, std::chrono::seconds(20),
                source_samples{{sample{mi, 0, 0.2, 1}, sample{mi, 0.3, 0.2, 1}}})
      .receive([](samples_ack&) {},
               [&](caf::error& e) { refused = dm_error_code(e) == dm_error::bad_argument; });
  CHECK(refused);
  f.send(*f.a, {sample{mi, 0, 0.2, 4}});
  CHECK(f.buckets(mi) == std::vector<double>{4});
}

TEST_CASE("components: a watermark out of range is refused whole, a valid one lets data in",
          "[aggregator][dm]") {
  fixture f;
  auto mi = f.counter_mi("m");
  f.registered(*f.a, "node-a:1");
  f.registered(*f.b, "node-b:1");
  f.send(*f.a, {sample{mi, 0, 0.2, 1}});
  f.send(*f.b, {sample{mi, 0, 0.2, 2}, sample{mi, 0.2, 0.4, 3}});
  CHECK(f.buckets(mi) == std::vector<double>{3});  // node-a holds [0.2, 0.4) back
  auto mark = [&](time_ns until) {
    bool refused = false;
    f.a.value()
        ->request(f.dm, std::chrono::seconds(20), source_samples{{sample{mi, 0.2, 0.3, 9}}, until})
        .receive([](samples_ack&) {},
                 [&](caf::error& e) { refused = dm_error_code(e) == dm_error::bad_argument; });
    return refused;
  };
  CHECK(mark(std::numeric_limits<time_ns>::max()));  // neither the sample nor the mark went in
  CHECK(f.buckets(mi) == std::vector<double>{3});
  CHECK_FALSE(mark(to_ns(0.4)));  // node-a: [0.2, 0.3) and nothing more before 0.4
  CHECK(f.buckets(mi) == std::vector<double>{3, 12});
}
