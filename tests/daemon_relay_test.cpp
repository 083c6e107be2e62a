// A daemon's relay in one process, between a data manager and a local source (actors, no
// network): the source hears every source update (enable, interval changes) through it, its
// definitions reach the data manager, and its samples go upstream in batches, by count and
// by time, as one component.
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "actors/daemon_relay_actor.hpp"
#include "actors/data_manager_actor.hpp"
#include "messages/dm_error.hpp"
#include "messages/source_messages.hpp"
#include "messages/type_registry.hpp"
#include "tests/in_process_config.hpp"

using namespace perfdm;

namespace perfdm {
// Polls `condition` for up to 20 s (a loaded machine is slow, never wrong).
template <class F>
bool test_eventually(F&& condition) {
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < end) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return condition();
}
}  // namespace perfdm

namespace {

using config = test::in_process_config;

struct fixture {
  config cfg;
  caf::actor_system sys{cfg};
  caf::actor dm = spawn_data_manager(sys);
  caf::actor relay = spawn_daemon_relay(sys, dm, {"node-r", 4, std::chrono::milliseconds(5), {}});
  caf::scoped_actor client{sys};
  caf::scoped_actor source{sys};  // a local source of the daemon

  ~fixture() {
    client->send_exit(relay, caf::exit_reason::user_shutdown);
    client->send_exit(dm, caf::exit_reason::user_shutdown);
  }

  template <class Reply, class Request>
  Reply ask(const caf::actor& to, Request req) {
    Reply out;
    client->request(to, std::chrono::seconds(20), std::move(req))
        .receive([&](Reply& r) { out = std::move(r); },
                 [&](caf::error& e) { FAIL("error reply: " << dm_error_reason(e)); });
    return out;
  }

  source_update next_update() {
    source_update out;
    bool got = false;
    source->receive([&](source_update& u) { out = std::move(u), got = true; },
                    caf::after(std::chrono::seconds(20)) >> [] {});
    REQUIRE(got);
    return out;
  }

  std::vector<double> buckets(mi_handle mi) {
    return ask<histogram_data>(dm, data_request{mi, phase_ref{}}).values;
  }

  std::uint64_t batches() {
    std::uint64_t out = 0;
    client->request(relay, std::chrono::seconds(20), relay_stats_atom::value)
        .receive([&](std::uint64_t, std::uint64_t b, std::uint64_t) { out = b; },
                 [](caf::error&) {});
    return out;
  }
};

}  // namespace

TEST_CASE("relay: updates reach the local source, definitions and batched samples go upstream",
          "[daemon][relay]") {
  fixture f;
  f.ask<ok_reply>(f.relay, relay_ready_atom::value);
  CHECK(f.ask<status_info>(f.dm, status_query{}).components == std::vector<std::string>{"node-r"});
  f.source->send(f.relay, source_register{caf::actor_cast<caf::actor>(f.source), {}});
  CHECK(f.next_update().mis.empty());

  // A definition through the relay is the data manager's.
  auto r = f.ask<resource_info>(f.relay, define_resource{"/Process/w{1}"});
  CHECK(r.name == "/Process/w{1}");
  f.ask<metric_info>(f.relay, define_metric{"m", metric_style::counter, ""});
  auto stream = f.ask<stream_opened>(f.dm, open_stream{caf::actor_cast<caf::actor>(f.client)});
  auto mi =
      f.ask<mi_info>(f.dm, enable_request{stream.stream, "m", {"/Process/w{1}"}, phase_ref{}, {}})
          .id;
  auto on = f.next_update();
  REQUIRE(on.mis.size() == 1);
  CHECK(on.mis[0].mi == mi);

  // Fewer samples than a batch go after the flush period.
  auto ack = f.ask<samples_ack>(f.relay, source_samples{{sample{mi, 0, 0.2, 1}}});
  CHECK(ack.count == 1);
  REQUIRE(perfdm::test_eventually([&] { return f.buckets(mi).size() == 1; }));
  CHECK(f.batches() == 1);
  // A full batch goes at once: 4 samples of [0.2, 1.0).
  std::vector<sample> four;
  for (int i = 1; i <= 4; ++i) four.push_back(sample{mi, 0.2 * i, 0.2 * (i + 1), 2});
  f.ask<samples_ack>(f.relay, source_samples{four});
  CHECK(f.batches() == 2);
  REQUIRE(perfdm::test_eventually([&] { return f.buckets(mi).size() == 5; }));
  CHECK(f.buckets(mi) == std::vector<double>{1, 2, 2, 2, 2});

  // An interval change (S2: the global base folds) reaches the local source.
  f.ask<samples_ack>(f.relay, source_samples{{sample{mi, 299, 300, 1}}});
  CHECK(f.next_update().interval == Approx(0.4));
  // And a DISABLE that deletes the MI: the source stops collecting it.
  f.ask<mi_info>(f.dm, disable_request{stream.stream, mi, phase_type::global});
  CHECK(f.next_update().mis.empty());
}

TEST_CASE("relay: a local source that ended no longer holds the aggregate back upstream",
          "[daemon][relay]") {
  fixture f;
  f.ask<ok_reply>(f.relay, relay_ready_atom::value);
  f.source->send(f.relay, source_register{caf::actor_cast<caf::actor>(f.source), {}});
  f.next_update();
  // A second component, straight at the data manager: another node's daemon.
  caf::scoped_actor other{f.sys};
  other->send(f.dm, source_register{caf::actor_cast<caf::actor>(other), "node-o"});
  f.ask<resource_info>(f.relay, define_resource{"/Process/w{1}"});
  f.ask<metric_info>(f.relay, define_metric{"m", metric_style::counter, ""});
  auto stream = f.ask<stream_opened>(f.dm, open_stream{caf::actor_cast<caf::actor>(f.client)});
  auto mi = f.ask<mi_info>(f.dm, enable_request{stream.stream, "m", {"/"}, phase_ref{}, {}}).id;
  f.next_update();

  auto send_samples = [&](caf::scoped_actor& from, const caf::actor& to,
                          std::vector<sample> samples) {
    bool acked = false;
    from->request(to, std::chrono::seconds(20), source_samples{std::move(samples)})
        .receive([&](samples_ack&) { acked = true; },
                 [&](caf::error& e) { FAIL("error reply: " << dm_error_reason(e)); });
    REQUIRE(acked);
  };
  auto sent_watermark = [&] {
    time_ns out = no_watermark;
    f.client->request(f.relay, std::chrono::seconds(20), relay_watermark_atom::value)
        .receive([&](time_ns w) { out = w; }, [](caf::error&) {});
    return out;
  };
  // The local source reported [0, 0.2) (its daemon joins the MI with it); then the other node
  // joins and reports on to 0.6.
  send_samples(f.source, f.relay, {sample{mi, 0, 0.2, 1}});
  REQUIRE(perfdm::test_eventually([&] { return f.buckets(mi) == std::vector<double>{1}; }));
  send_samples(other, f.dm,
               {sample{mi, 0, 0.2, 2}, sample{mi, 0.2, 0.4, 3}, sample{mi, 0.4, 0.6, 4}});
  // While the local source lives, it holds the relay's watermark, and so the aggregate, at 0.2.
  REQUIRE(perfdm::test_eventually([&] { return sent_watermark() == to_ns(0.2); }));
  REQUIRE(perfdm::test_eventually([&] { return f.buckets(mi) == std::vector<double>{3}; }));
  // Its process exits: the source unregisters, the daemon runs on with nothing to send, and
  // its watermark (its engine time now, which passes 0.6 soon) lets the other node's data go
  // in, pro-rated as the watermark moves but none of it lost.
  f.source->send(f.relay, source_unregister{caf::actor_cast<caf::actor>(f.source)});
  std::vector<double> b;
  REQUIRE(perfdm::test_eventually([&] {
    b = f.buckets(mi);
    return b.size() == 3 && b[2] == Approx(4);
  }));
  CHECK(b[0] == 3);
  CHECK(b[1] == Approx(3));
  CHECK(sent_watermark() >= to_ns(0.6));
  CHECK(f.ask<status_info>(f.dm, status_query{}).components.size() == 2);
}

TEST_CASE("relay: an upstream gone before it answered the registration ends the wait for ready",
          "[daemon][relay]") {
  config cfg;
  caf::actor_system sys{cfg};
  // An engine that takes the registration and goes away before answering it (its connection
  // was lost).
  auto upstream = std::make_unique<caf::scoped_actor>(sys);
  auto relay = spawn_daemon_relay(sys, caf::actor_cast<caf::actor>(*upstream),
                                  {"node-g", 4, std::chrono::milliseconds(5), {}});
  bool registered = false;
  (*upstream)->receive([&](source_register& r) { registered = r.component == "node-g"; },
                       caf::after(std::chrono::seconds(20)) >> [] {});
  REQUIRE(registered);

  caf::scoped_actor daemon{sys};
  auto ready = daemon->request(relay, std::chrono::seconds(30), relay_ready_atom::value);
  // The relay took the first request once it answers a later one from the same sender.
  bool answered = false;
  daemon->request(relay, std::chrono::seconds(20), relay_stats_atom::value)
      .receive([&](std::uint64_t, std::uint64_t, std::uint64_t) { answered = true; },
               [](caf::error&) {});
  REQUIRE(answered);

  upstream.reset();
  std::string why;
  ready.receive([&](ok_reply) { why = "ready"; }, [&](caf::error& e) { why = sys.render(e); });
  INFO(why);
  CHECK(why.find("remote_link_unreachable") != std::string::npos);  // not request_timeout
}
