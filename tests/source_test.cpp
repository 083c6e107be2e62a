// Data sources (frame ingest actors, later daemons): the data manager tells each registered
// source which metric instances are collecting and the sampling interval, on registration
// and after every change (S1-S5: "every change is sent to the data sources"), and takes its
// samples without refusing MIs that were deleted under it.
#include <catch2/catch.hpp>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/data_manager_actor.hpp"
#include "messages/dm_error.hpp"
#include "messages/source_messages.hpp"
#include "messages/type_registry.hpp"
#include "tests/in_process_config.hpp"

using namespace perfdm;

namespace {

using config = test::in_process_config;

struct fixture {
  config cfg;
  caf::actor_system sys{cfg};
  caf::actor dm = spawn_data_manager(sys);
  caf::scoped_actor client{sys};  // a front end: its stream events arrive here
  caf::scoped_actor source{sys};  // a data source

  ~fixture() { client->send_exit(dm, caf::exit_reason::user_shutdown); }

  template <class Reply, class Request>
  Reply ask(Request req) {
    Reply out;
    client->request(dm, std::chrono::seconds(20), std::move(req))
        .receive([&](Reply& r) { out = std::move(r); },
                 [&](caf::error& e) { FAIL("error reply: " << dm_error_reason(e)); });
    return out;
  }

  caf::error ask_error(caf::message req) {
    caf::error out;
    client->request(dm, std::chrono::seconds(20), std::move(req))
        .receive([&](caf::message&) { FAIL("expected an error"); },
                 [&](caf::error& e) { out = e; });
    return out;
  }

  // The next source_update the source receives (events for the client are elsewhere).
  source_update next_update() {
    source_update out;
    bool got = false;
    source->receive([&](source_update& u) { out = std::move(u); got = true; },
                    caf::after(std::chrono::seconds(20)) >> [] {});
    REQUIRE(got);
    return out;
  }

  bool no_update_pending() {
    bool none = true;
    source->receive([&](source_update&) { none = false; },
                    caf::after(std::chrono::milliseconds(50)) >> [] {});
    return none;
  }
};

}  // namespace

TEST_CASE("S4 sources hear the collecting set and the interval on registration and on enable") {
  fixture f;
  f.ask<metric_info>(define_metric{"work.requests", metric_style::counter, "requests"});
  f.ask<resource_info>(define_resource{"/Process/demo{42}"});
  auto stream = f.ask<stream_opened>(open_stream{caf::actor_cast<caf::actor>(f.client)}).stream;

  f.source->send(f.dm, source_register{caf::actor_cast<caf::actor>(f.source), {}});
  auto first = f.next_update();
  CHECK(first.mis.empty());
  CHECK(first.interval == Approx(0.2));

  auto mi = f.ask<mi_info>(enable_request{stream, "work.requests", {"/Process/demo{42}"},
                                          phase_ref{phase_type::global, false, {}}, {}});
  auto u = f.next_update();
  REQUIRE(u.mis.size() == 1);
  CHECK(u.mis[0].mi == mi.id);
  CHECK(u.mis[0].metric == "work.requests");
  CHECK(u.mis[0].focus == std::vector<std::string>{"/Process/demo{42}"});

  // A second enable of the same pair changes nothing a source needs to know.
  f.ask<mi_info>(enable_request{stream, "work.requests", {"/Process/demo{42}"},
                                phase_ref{phase_type::global, false, {}}, {}});
  CHECK(f.no_update_pending());
}

TEST_CASE("D3 sources hear that an MI stopped collecting, and nothing for requests that change nothing") {
  fixture f;
  f.ask<metric_info>(define_metric{"work.requests", metric_style::counter, ""});
  auto stream = f.ask<stream_opened>(open_stream{caf::actor_cast<caf::actor>(f.client)}).stream;
  f.source->send(f.dm, source_register{caf::actor_cast<caf::actor>(f.source), {}});
  f.next_update();
  auto mi = f.ask<mi_info>(
      enable_request{stream, "work.requests", {}, phase_ref{phase_type::global, false, {}}, {}});
  auto on = f.next_update();
  REQUIRE(on.mis.size() == 1);
  CHECK(on.mis[0].focus == std::vector<std::string>{"/"});

  f.ask<metric_list>(list_metrics{});
  CHECK(f.no_update_pending());

  f.ask<mi_info>(disable_request{stream, mi.id, phase_type::global});
  CHECK(f.next_update().mis.empty());
}

TEST_CASE("S4 a first CURRENT enable in a later phase changes the interval the sources are told") {
  fixture f;
  f.ask<metric_info>(define_metric{"m", metric_style::counter, ""});
  auto stream = f.ask<stream_opened>(open_stream{caf::actor_cast<caf::actor>(f.client)}).stream;
  f.source->send(f.dm, source_register{caf::actor_cast<caf::actor>(f.source), {}});
  f.next_update();
  auto mi = f.ask<mi_info>(
      enable_request{stream, "m", {}, phase_ref{phase_type::global, false, {}}, {}});
  f.next_update();
  f.ask<samples_ack>(samples_request{{sample{mi.id, 0, 300, 1}}});  // folds the global base
  auto folded = f.next_update();
  CHECK(folded.interval == Approx(0.4));  // S2: global fold, no current histogram
  f.ask<phase_info>(start_phase{"p1"});
  f.ask<mi_info>(enable_request{stream, "m", {}, phase_ref{phase_type::current, false, {}}, {}});
  auto current = f.next_update();
  CHECK(current.interval == Approx(0.2));  // S4: the new phase's current width
}

TEST_CASE("H4 a source's samples for a deleted MI are dropped and counted, the rest applied") {
  fixture f;
  f.ask<metric_info>(define_metric{"a", metric_style::counter, ""});
  f.ask<metric_info>(define_metric{"b", metric_style::counter, ""});
  auto stream = f.ask<stream_opened>(open_stream{caf::actor_cast<caf::actor>(f.client)}).stream;
  auto global = phase_ref{phase_type::global, false, {}};
  auto a = f.ask<mi_info>(enable_request{stream, "a", {}, global, {}});
  auto b = f.ask<mi_info>(enable_request{stream, "b", {}, global, {}});
  f.ask<mi_info>(disable_request{stream, a.id, phase_type::global});  // MI a is deleted

  // From a front end the request is refused whole (H4) ...
  auto err = f.ask_error(caf::make_message(
      samples_request{{sample{a.id, 0, 0.1, 1}, sample{b.id, 0, 0.1, 2}}}));
  CHECK(dm_error_code(err) == dm_error::unknown_handle);
  // ... from a source the sample for the deleted MI is dropped and the other one applied.
  auto ack = f.ask<samples_ack>(
      source_samples{{sample{a.id, 0, 0.1, 1}, sample{b.id, 0, 0.1, 2}, sample{mi_handle{99}, 0, 0.1, 3}}});
  CHECK(ack.count == 1);
  CHECK(ack.dropped == 2);
  f.ask<samples_ack>(source_samples{{sample{b.id, 0.1, 0.3, 4}}});
  auto h = f.ask<histogram_data>(data_request{b.id, global});
  REQUIRE(h.values.size() >= 1);
  CHECK(h.values[0] == Approx(2 + 4 * 0.5));
}

TEST_CASE("a source that terminates is forgotten by the data manager") {
  fixture f;
  f.ask<metric_info>(define_metric{"m", metric_style::counter, ""});
  auto stream = f.ask<stream_opened>(open_stream{caf::actor_cast<caf::actor>(f.client)}).stream;
  {
    caf::scoped_actor gone{f.sys};
    gone->send(f.dm, source_register{caf::actor_cast<caf::actor>(gone), {}});
    gone->receive([](source_update&) {});
  }
  // The data manager keeps serving, and a later change reaches the live source only.
  f.source->send(f.dm, source_register{caf::actor_cast<caf::actor>(f.source), {}});
  f.next_update();
  f.ask<mi_info>(enable_request{stream, "m", {}, phase_ref{phase_type::global, false, {}}, {}});
  CHECK(f.next_update().mis.size() == 1);
}
