// TOPOLOGY: the codec (request round trip, the printed tree), the
// reply's serialisation across the network, a link's figures (dm/link_meter) and the tree
// put together from the children's answers (dm/topology_tree), and a node's answer when a
// child below does not answer (actors/topology_probe.hpp, in one process).
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/deep_to_string.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <catch2/catch.hpp>
#include <chrono>

#include "actors/topology_probe.hpp"

#include "tree/link_meter.hpp"
#include "tree/topology_tree.hpp"
#include "messages/topology_messages.hpp"
#include "messages/xml_codec.hpp"

using namespace perfdm;

namespace {

topology_node node(const std::string& name, const std::string& kind, bool has_parent = false,
                   std::uint32_t parent = 0) {
  topology_node n;
  n.has_parent = has_parent;
  n.parent = parent;
  n.name = name;
  n.host = "h-" + name;
  n.kind = kind;
  return n;
}

constexpr time_ns ms = 1'000'000;

}  // namespace

TEST_CASE("TOPOLOGY parses, and prints back to the same request", "[topology][xml]") {
  auto p = parse_request("<DYPER PID='DM' COMMAND='topology'/>");
  REQUIRE_FALSE(p.error);
  CHECK(p.command == "TOPOLOGY");
  REQUIRE(p.request.match_elements<topology_query>());
  auto text = print_request("DM", p.request);
  CHECK(text == "<DYPER PID='DM' COMMAND='TOPOLOGY'/>");
  auto back = parse_request(text);
  REQUIRE_FALSE(back.error);
  CHECK(back.request.match_elements<topology_query>());
  // TOPOLOGY takes no argument.
  auto bad = parse_request("<DYPER PID='DM' COMMAND='TOPOLOGY'><NODE/></DYPER>");
  CHECK(bad.error);
}

TEST_CASE("TOPOLOGY prints the tree nested, LAG_S empty without a watermark",
          "[topology][xml]") {
  topology_reply r;
  auto engine = node("e:1", "engine");
  engine.samples_per_s = 300;
  engine.components = 2;
  r.nodes.push_back(engine);
  auto relay = node("relay-a", "relay", true, 0);
  relay.samples_per_s = 300;
  relay.has_lag = true;
  relay.lag_s = 0.0125;
  relay.components = 2;
  r.nodes.push_back(relay);
  auto d1 = node("node-1", "daemon", true, 1);
  d1.samples_per_s = 150.5;
  d1.components = 1;
  d1.sources = 1;
  r.nodes.push_back(d1);
  auto d2 = node("node-2", "", true, 1);  // did not answer
  r.nodes.push_back(d2);
  CHECK(print_reply("DM", caf::make_message(r)) ==
        "<DYPER_REPLY ID='DM'><TOPOLOGY>"
        "<NODE NAME='e:1' HOST='h-e:1' KIND='engine' SAMPLES_PER_S='300' LAG_S='' COMPONENTS='2' "
        "SOURCES='0'>"
        "<NODE NAME='relay-a' HOST='h-relay-a' KIND='relay' SAMPLES_PER_S='300' LAG_S='0.0125' "
        "COMPONENTS='2' SOURCES='0'>"
        "<NODE NAME='node-1' HOST='h-node-1' KIND='daemon' SAMPLES_PER_S='150.5' LAG_S='' "
        "COMPONENTS='1' SOURCES='1'></NODE>"
        "<NODE NAME='node-2' HOST='h-node-2' KIND='' SAMPLES_PER_S='0' LAG_S='' COMPONENTS='0' "
        "SOURCES='0'></NODE>"
        "</NODE></NODE></TOPOLOGY></DYPER_REPLY>");
  CHECK(print_reply("DM", caf::make_message(topology_reply{})) ==
        "<DYPER_REPLY ID='DM'><TOPOLOGY></TOPOLOGY></DYPER_REPLY>");
  // Names are escaped like every attribute.
  CHECK(print_reply_body(caf::make_message(topology_reply{{node("a'<b", "daemon")}}))
            .find("NAME='a&apos;&lt;b'") != std::string::npos);
}

TEST_CASE("a topology reply and probe cross the network unchanged", "[topology]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  topology_reply in{{node("e", "engine"), node("d", "daemon", true, 0)}};
  in.nodes[1].has_lag = true;
  in.nodes[1].lag_s = -0.25;
  in.nodes[1].samples_per_s = 12.5;
  in.nodes[1].components = 1;
  in.nodes[1].sources = 3;
  std::vector<char> buf;
  topology_probe sent{125};
  caf::binary_serializer sink{sys, buf};
  REQUIRE(!sink(in, sent));
  topology_reply out;
  topology_probe probe;
  caf::binary_deserializer source{sys, buf};
  REQUIRE(!source(out, probe));
  CHECK(caf::deep_to_string(out) == caf::deep_to_string(in));
  CHECK(out.nodes[1].lag_s == -0.25);
  CHECK(probe.budget_ms == 125);
}

TEST_CASE("a link meter counts samples per second over the last 5 s", "[topology]") {
  link_meter m{0};
  CHECK(m.samples_per_s(0) == 0);
  CHECK_FALSE(m.lag_s(0).has_value());
  // 100 samples every 100 ms for 10 s: 1000 samples/s.
  for (time_ns t = 100 * ms; t <= 10'000 * ms; t += 100 * ms) m.note(t, 100, true, t - 20 * ms);
  CHECK(m.samples_per_s(10'000 * ms) == Approx(1000).epsilon(0.05));
  REQUIRE(m.lag_s(10'000 * ms).has_value());
  CHECK(*m.lag_s(10'000 * ms) == Approx(0.020));
  // Nothing more: the rate falls to 0 once the window passed, and the lag is unknown.
  CHECK(m.samples_per_s(12'000 * ms) < 1000);
  CHECK(m.samples_per_s(16'000 * ms) == 0);
  CHECK_FALSE(m.lag_s(16'000 * ms).has_value());
}

TEST_CASE("a young link's rate covers its life, at least half a second", "[topology]") {
  link_meter m{2'000 * ms};
  m.note(3'000 * ms, 500, false, 0);
  // One second old, 500 samples: 500/s, not 100/s over the whole window.
  CHECK(m.samples_per_s(3'000 * ms) == Approx(500));
  CHECK_FALSE(m.lag_s(3'000 * ms).has_value());  // no watermark came
  link_meter young{3'000 * ms};
  young.note(3'001 * ms, 10, false, 0);
  CHECK(young.samples_per_s(3'001 * ms) == Approx(20));  // 10 over half a second
}

TEST_CASE("a lag is the mean of arrival minus watermark over the window", "[topology]") {
  link_meter m{0};
  m.note(1'000 * ms, 0, true, 900 * ms);  // 0.1 s
  m.note(1'100 * ms, 0, true, 800 * ms);  // 0.3 s
  REQUIRE(m.lag_s(1'200 * ms).has_value());
  CHECK(*m.lag_s(1'200 * ms) == Approx(0.2));
  // The first two left the window: the lag is the latest's.
  m.note(7'000 * ms, 0, true, 6'990 * ms);
  CHECK(*m.lag_s(7'000 * ms) == Approx(0.01));
}

TEST_CASE("the tree is grafted from the children's answers at any depth", "[topology]") {
  std::vector<topology_node> tree{node("e", "engine")};
  // A relay's answer: itself, a daemon and a relay below it, a daemon below that relay.
  std::vector<topology_node> relay_answer{node("r-self", "relay"), node("d1", "daemon", true, 0),
                                          node("r2", "relay", true, 0),
                                          node("d2", "daemon", true, 2)};
  relay_answer[1].samples_per_s = 7;  // measured by the relay
  topology_node known = node("relay-a", "");
  known.samples_per_s = 42;
  known.has_lag = true;
  known.lag_s = 0.01;
  graft(tree, 0, relay_answer, known);
  // A daemon beside it that did not answer in time.
  topology_node silent = node("d3", "");
  silent.samples_per_s = 3;
  graft(tree, 0, {}, silent);
  count_components(tree);

  REQUIRE(tree.size() == 6);
  CHECK(tree[1].name == "relay-a");  // the parent's name for it
  CHECK(tree[1].kind == "relay");    // its own word for what it is
  CHECK(tree[1].host == "h-r-self");
  CHECK(tree[1].samples_per_s == 42);
  CHECK(tree[1].lag_s == 0.01);
  CHECK(tree[1].parent == 0);
  CHECK(tree[2].name == "d1");
  CHECK(tree[2].parent == 1);
  CHECK(tree[2].samples_per_s == 7);
  CHECK(tree[4].name == "d2");
  CHECK(tree[4].parent == 3);
  CHECK(tree[5].name == "d3");
  CHECK(tree[5].kind == "");
  CHECK(tree[5].host == "h-d3");
  CHECK(tree[5].parent == 0);
  CHECK(tree[0].components == 2);
  CHECK(tree[1].components == 2);
  CHECK(tree[3].components == 1);
  CHECK(tree[5].components == 0);
}

TEST_CASE("a malformed answer still grafts as a tree", "[topology]") {
  std::vector<topology_node> tree{node("e", "engine")};
  // The second node names itself as parent, the third a node after it: both hang under the
  // child's own node.
  std::vector<topology_node> answer{node("r", "relay"), node("x", "daemon", true, 1),
                                    node("y", "daemon", true, 7)};
  graft(tree, 0, answer, node("r", ""));
  count_components(tree);
  REQUIRE(tree.size() == 4);
  CHECK(tree[2].parent == 1);
  CHECK(tree[3].parent == 1);
  CHECK(tree[0].components == 2);
  CHECK(print_reply_body(caf::make_message(topology_reply{tree})).find("NAME='y'") !=
        std::string::npos);
}

TEST_CASE("a child that does not answer is listed as known, within the budget", "[topology]") {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  // A child that takes the probe and never answers (a hung node), and one that does.
  auto silent = sys.spawn([](caf::event_based_actor* self) -> caf::behavior {
    return {[=](topology_probe&) -> caf::response_promise { return self->make_response_promise(); }};
  });
  auto daemon = sys.spawn([]() -> caf::behavior {
    return {[](topology_probe&) { return topology_reply{{node("d-self", "daemon")}}; }};
  });
  auto relay = sys.spawn([=](caf::event_based_actor* self) -> caf::behavior {
    return {[=](topology_query) {
      auto quiet = node("quiet", "");
      quiet.samples_per_s = 4;
      std::vector<topology_child> children{{silent, quiet}, {daemon, node("loud", "")}};
      return answer_topology(self, node("me", "relay"), std::move(children), 400);
    }};
  });
  caf::scoped_actor asker{sys};
  const auto start = std::chrono::steady_clock::now();
  topology_reply r;
  asker->request(relay, std::chrono::seconds(10), topology_query{})
      .receive([&](topology_reply& x) { r = std::move(x); },
               [&](caf::error& e) { FAIL("no answer: " << sys.render(e)); });
  const auto took = std::chrono::steady_clock::now() - start;
  CHECK(took < std::chrono::milliseconds(2000));  // half of 400 ms per child, not for ever
  REQUIRE(r.nodes.size() == 3);
  CHECK(r.nodes[0].name == "me");
  CHECK(r.nodes[1].name == "loud");  // in the order of their names
  CHECK(r.nodes[1].kind == "daemon");
  CHECK(r.nodes[1].host == "h-d-self");
  CHECK(r.nodes[2].name == "quiet");
  CHECK(r.nodes[2].kind == "");  // did not answer: what its parent knows
  CHECK(r.nodes[2].samples_per_s == 4);
  CHECK(r.nodes[0].components == 1);
  anon_send_exit(silent, caf::exit_reason::user_shutdown);
  anon_send_exit(daemon, caf::exit_reason::user_shutdown);
  anon_send_exit(relay, caf::exit_reason::user_shutdown);
}
