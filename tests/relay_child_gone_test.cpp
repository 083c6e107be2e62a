// A daemon behind a live relay that goes away, all real processes on 127.0.0.1:
// killed, stopped past the relay's connection timeout, or ended. The relay tells its upstream,
// a relay above passes it on, and the engine tells every open stream
// `<DYPER COMPONENTREMOVED='s' NAME='daemon' RELAY='relay/…'/>`; TOPOLOGY no longer lists the
// daemon; the relay's aggregate waits no longer for it, so the other daemons' data goes on.
// A frozen one that resumes fails over to the engine and, the relay having said it lost it,
// goes in there at once.
#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <regex>
#include <thread>

#include "tests/live_engine_test_support.hpp"
#include "tests/relay_test_support.hpp"
#include "tests/remote_test_support.hpp"

using namespace perfdm;
using namespace perfdm::relay_test;
using remote_test::eventually;
using remote_test::process;
using remote_test::published_engine;
using remote_test::run_client;
using remote_test::start_client;

namespace {

std::string removed(const std::string& name, const std::string& relay) {
  return "<DYPER COMPONENTREMOVED='0' NAME='" + name + "' RELAY='" + relay + "'/>";
}

std::string topology(const published_engine& engine) {
  return run_client(engine.address(), {"TOPOLOGY"}).out;
}

using seconds = std::chrono::duration<double>;

}  // namespace

TEST_CASE("relay: a daemon killed behind a live relay is announced, leaves TOPOLOGY, the other's "
          "data goes on",
          "[relay][remote]") {
  published_engine engine;
  relay_process relay(engine.address(), "relay-g");
  test::workload w1, w2;
  auto d1 = start_daemon(relay.address(), "node-g1", w1);
  auto d2 = start_daemon(relay.address(), "node-g2", w2);
  REQUIRE(eventually([&] { return forwarding(*d1) && forwarding(*d2); }));
  // MI 0 the whole program, MI 1 and MI 2 each daemon's workload.
  auto watcher = watch_whole_and_each(engine.address(), w1, w2);
  // Before the kill: complete buckets in which both daemons' data went in (the first such
  // left out: the MIs began at slightly different times). Their whole must be the sum.
  std::vector<std::vector<double>> hs;
  std::vector<std::size_t> both;
  REQUIRE(eventually([&] {
    hs = {buckets(engine.address(), 0), buckets(engine.address(), 1),
          buckets(engine.address(), 2)};
    const auto complete = std::min({hs[0].size(), hs[1].size(), hs[2].size()});
    both.clear();
    for (std::size_t k = 0; k + 2 < complete; ++k)  // the last two may still fill
      if (hs[1][k] > 0 && hs[2][k] > 0) both.push_back(k);
    return both.size() >= 4;
  }));
  both.erase(both.begin());

  d1->signal(SIGKILL);
  const auto killed = std::chrono::steady_clock::now();
  CHECK(d1->wait() == -1);
  // On one host the relay sees the connection close at once; 2 s is the bound asserted here
  // (across hosts: the relay's --timeout-ms, docs/PROTOCOL.md §11).
  REQUIRE(eventually([&] {
    return watcher->out().find(removed("node-g1", "relay-g")) != std::string::npos;
  }));
  const auto told = std::chrono::steady_clock::now() - killed;
  INFO("told after " << seconds(told).count() << " s");
  CHECK(told < std::chrono::seconds(2));
  // Only it: neither the relay nor the other daemon.
  auto events = watcher->out();
  CHECK(count(events, "COMPONENTREMOVED") == 1);
  CHECK(events.find("NAME='node-g2'") == std::string::npos);

  // TOPOLOGY lists only the live daemon, below the relay.
  auto t = topology(engine);
  INFO(t);
  CHECK(t.find("NAME='node-g1'") == std::string::npos);
  CHECK(std::regex_search(
      t, std::regex("<NODE NAME='relay-g' HOST='[^']*' KIND='relay'[^>]*>"
                    "<NODE NAME='node-g2' HOST='[^']*' KIND='daemon'[^>]*></NODE></NODE>")));
  CHECK(node_attribute(t, "relay-g", "COMPONENTS") == "1");

  // The relay's aggregate waits for nothing of the gone daemon: the whole program's buckets
  // go on, and from two buckets after the kill on they are the live daemon's alone; before
  // it, what both sent (nothing lost of the killed one's) is the sum of the two.
  const auto at_kill = buckets(engine.address(), 0).size();
  REQUIRE(eventually([&] {
    hs = {buckets(engine.address(), 0), buckets(engine.address(), 1),
          buckets(engine.address(), 2)};
    return hs[0].size() >= at_kill + 7 && hs[2].size() >= at_kill + 7;
  }));
  const auto last = std::min(hs[0].size(), hs[2].size()) - 2;  // the last two still fill
  std::size_t after = 0, with_data = 0;
  for (std::size_t k = at_kill + 2; k < last; ++k) {
    INFO("bucket " << k << " after the kill");
    CHECK(hs[2][k] == hs[2][k]);  // not NaN: the live daemon's data went in
    CHECK(hs[0][k] == Approx(hs[2][k]).epsilon(1e-9));
    const bool killed_has_data = k < hs[1].size() && hs[1][k] == hs[1][k];  // NaN: empty
    CHECK_FALSE(killed_has_data);
    ++after;
    if (hs[2][k] > 0) ++with_data;
  }
  CHECK(after >= 3);
  CHECK(with_data >= 1);
  for (auto k : both) {
    INFO("bucket " << k << " before the kill");
    CHECK(hs[0][k] == Approx(hs[1][k] + hs[2][k]).epsilon(1e-9));
  }
}

TEST_CASE("relay: a daemon gone two relays down is announced with both relays, one that ends "
          "too",
          "[relay][remote]") {
  published_engine engine;
  relay_process top(engine.address(), "relay-top");
  relay_process mid(top.address(), "relay-mid");
  test::workload w1, w2;
  auto d1 = start_daemon(mid.address(), "node-x1", w1);
  auto d2 = start_daemon(mid.address(), "node-x2", w2);
  REQUIRE(eventually([&] { return forwarding(*d1) && forwarding(*d2); }));
  auto watcher = start_client(engine.address(), {"--watch"},
                              "STREAM\nENABLE STREAM=$STREAM METRIC=work.requests\n");
  REQUIRE(eventually([&] { return count(watcher->out(), "<DYPER_REPLY") == 2; }));
  REQUIRE(eventually([&] { return topology(engine).find("NAME='node-x2'") != std::string::npos; }));

  // Killed: the path names the relays from the engine down.
  d1->signal(SIGKILL);
  REQUIRE(eventually([&] {
    return watcher->out().find(removed("node-x1", "relay-top/relay-mid")) != std::string::npos;
  }));
  auto t = topology(engine);
  CHECK(t.find("NAME='node-x2'") != std::string::npos);
  CHECK(t.find("NAME='node-x1'") == std::string::npos);
  CHECK(node_attribute(t, "relay-mid", "COMPONENTS") == "1");
  CHECK(node_attribute(t, "relay-top", "COMPONENTS") == "1");
  // The other's data goes on through both relays.
  const auto at_kill = buckets(engine.address(), 0).size();
  REQUIRE(eventually([&] { return buckets(engine.address(), 0).size() >= at_kill + 3; }));

  // Ended (SIGTERM: it unregisters) the same.
  d2->signal(SIGTERM);
  CHECK(d2->wait() == 0);
  REQUIRE(eventually([&] {
    return watcher->out().find(removed("node-x2", "relay-top/relay-mid")) != std::string::npos;
  }));
  t = topology(engine);
  INFO(t);
  CHECK(t.find("NAME='relay-mid' HOST='") != std::string::npos);
  CHECK(t.find("KIND='relay'") != std::string::npos);
  CHECK(t.find("KIND='daemon'") == std::string::npos);
  CHECK(node_attribute(t, "relay-mid", "COMPONENTS") == "0");
  // The relays themselves stay: no COMPONENTREMOVED without a RELAY.
  CHECK(count(watcher->out(), "COMPONENTREMOVED") == 2);
  CHECK(mid.proc().exited() == false);
}

TEST_CASE("relay: components joining below relays are announced with their relays, one that "
          "fails over onto a relay after the relay it left",
          "[relay][remote][failover]") {
  published_engine engine;
  relay_process top(engine.address(), "relay-top");
  auto watcher = start_client(engine.address(), {"--watch"}, "STREAM\n");
  REQUIRE(eventually([&] { return count(watcher->out(), "<DYPER_REPLY") == 1; }));
  relay_process mid(top.address(), "relay-mid");
  test::workload w1;
  auto d1 = start_daemon(mid.address(), "node-j1", w1);
  REQUIRE(eventually([&] { return forwarding(*d1); }));
  auto added = [](const std::string& name, const std::string& relay) {
    return "<DYPER COMPONENTADDED='0' NAME='" + name + "' RELAY='" + relay + "'/>";
  };
  REQUIRE(eventually([&] {
    auto out = watcher->out();
    return out.find(added("relay-mid", "relay-top")) != std::string::npos &&
           out.find(added("node-j1", "relay-top/relay-mid")) != std::string::npos;
  }));

  // Its relay killed, the daemon goes on at relay-top: the streams hear the relay go, then
  // the daemon join relay-top, in that order.
  mid.proc().signal(SIGKILL);
  REQUIRE(eventually([&] {
    auto out = watcher->out();
    auto at = out.find(removed("relay-mid", "relay-top"));
    return at != std::string::npos && out.find(added("node-j1", "relay-top"), at) != std::string::npos;
  }));
  auto t = topology(engine);
  INFO(t);
  CHECK(node_attribute(t, "relay-top", "COMPONENTS") == "1");
  CHECK(std::regex_search(t, std::regex("<NODE NAME='node-j1' HOST='[^']*' KIND='daemon'")));
  CHECK(count(watcher->out(), "COMPONENTADDED") == 3);
}

TEST_CASE("relay: a daemon frozen past the relay's connection timeout is announced, and "
          "resumed it goes on at the engine",
          "[relay][remote]") {
  // The relay's timeout holds for its link to the engine too: the engine's heartbeat must be
  // well within it.
  published_engine engine({"--heartbeat-ms", "200"});
  // Short enough for a test, long enough that the live daemon's link holds on a loaded machine.
  const std::vector<std::string> fast = {"--heartbeat-ms", "200", "--timeout-ms", "1500"};
  relay_process relay(engine.address(), "relay-h", fast);
  test::workload w1, w2;
  auto daemon = [&](const std::string& name, const test::workload& w) {
    std::vector<std::string> argv{PERFDM_BINARY, "daemon", "--upstream", relay.address(),
                                  "--name",      name,     "--attach",   std::to_string(w.pid)};
    argv.insert(argv.end(), fast.begin(), fast.end());
    return std::make_unique<process>(argv, "", "relay_daemon");
  };
  auto d1 = daemon("node-h1", w1);
  auto d2 = daemon("node-h2", w2);
  REQUIRE(eventually([&] { return forwarding(*d1) && forwarding(*d2); }));
  auto watcher = watch_whole_and_each(engine.address(), w1, w2);
  REQUIRE(eventually([&] { return buckets(engine.address(), 1).size() >= 2; }));

  // Stopped, it sends no heartbeat: the relay drops the connection after --timeout-ms.
  d1->signal(SIGSTOP);
  const auto stopped = std::chrono::steady_clock::now();
  if (!eventually([&] {
        return watcher->out().find(removed("node-h1", "relay-h")) != std::string::npos;
      }))
    FAIL("not told; relay: " << relay.proc().err() << "\nstream: " << watcher->out());
  const auto told = std::chrono::steady_clock::now() - stopped;
  INFO("told after " << seconds(told).count() << " s");
  CHECK(told >= std::chrono::milliseconds(1200));  // not before it was silent that long
  CHECK(told < std::chrono::milliseconds(1500 + 3000));
  auto stopped_tree = topology(engine);
  CHECK(stopped_tree.find("NAME='node-h2'") != std::string::npos);
  CHECK(stopped_tree.find("NAME='node-h1'") == std::string::npos);
  const auto at_stop = buckets(engine.address(), 0).size();
  REQUIRE(eventually([&] { return buckets(engine.address(), 0).size() >= at_stop + 3; }));

  // Resumed, it finds its connection closed and fails over to the relay's upstream as if the
  // relay had died. The relay lives on and said it lost it, so the engine does not wait for
  // the relay's end: the daemon is announced and its data counts again, beside the relay's.
  d1->signal(SIGCONT);
  REQUIRE(eventually([&] {
    return d1->err().find("reconnected to " + engine.address()) != std::string::npos;
  }));
  REQUIRE(eventually([&] {
    auto out = watcher->out();
    auto at = out.find(removed("node-h1", "relay-h"));
    return out.find("<DYPER COMPONENTADDED='0' NAME='node-h1'/>", at) != std::string::npos;
  }));
  auto t = topology(engine);
  INFO(t);
  CHECK(std::regex_search(t, std::regex("<NODE NAME='node-h1' HOST='[^']*' KIND='daemon'")));
  CHECK(node_attribute(t, "relay-h", "COMPONENTS") == "1");
  const auto at_resume = buckets(engine.address(), 0).size();
  std::vector<std::vector<double>> hs;
  REQUIRE(eventually([&] {
    hs = {buckets(engine.address(), 0), buckets(engine.address(), 1),
          buckets(engine.address(), 2)};
    return std::min({hs[0].size(), hs[1].size(), hs[2].size()}) >= at_resume + 7;
  }));
  const auto last = std::min({hs[0].size(), hs[1].size(), hs[2].size()}) - 2;
  std::size_t compared = 0, resumed_data = 0;
  for (std::size_t k = at_resume + 2; k < last; ++k) {
    INFO("bucket " << k << " after the resume");
    CHECK(hs[1][k] == hs[1][k]);  // not NaN: both daemons' data went in
    CHECK(hs[2][k] == hs[2][k]);
    CHECK(hs[0][k] == Approx(hs[1][k] + hs[2][k]).epsilon(1e-9));
    ++compared;
    if (hs[1][k] > 0) ++resumed_data;
  }
  CHECK(compared >= 3);
  CHECK(resumed_data >= 1);
}
