// Per-node daemons against a central engine, all real processes on 127.0.0.1: two daemons,
// each attached to its own workload, forward to `perfdm engine --publish`; a client enables
// work.requests over the whole program and over each process. The whole-program MI is the
// sum of both (Paradyn's aggregation); after `kill -9` of one daemon the engine keeps
// serving, the client hears COMPONENTREMOVED, and the data continues from the other; after
// one daemon's workload exits (the daemon runs on), its watermark lets the data continue too.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <regex>
#include <sstream>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/live_engine_test_support.hpp"
#include "tests/remote_test_support.hpp"

using namespace perfdm;
using remote_test::eventually;
using remote_test::process;
using remote_test::published_engine;
using remote_test::run_client;
using remote_test::start_client;

namespace {

std::unique_ptr<process> start_daemon(const published_engine& engine, const std::string& name,
                                      std::vector<std::string> extra) {
  std::vector<std::string> argv{PERFDM_BINARY,    "daemon", "--upstream",
                                engine.address(), "--name", name};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return std::make_unique<process>(argv, "", "daemon");
}

bool forwarding(const process& daemon) {
  return daemon.err().find("forwarding to") != std::string::npos;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Every bucket of MI `mi` (DATA through a client), an empty one as NaN.
std::vector<double> buckets(const published_engine& engine, int mi) {
  auto r = run_client(engine.address(), {"DATA", "MI=" + std::to_string(mi)});
  std::smatch m;
  std::vector<double> out;
  if (!std::regex_search(r.out, m, std::regex(">([^<]*)</HISTOGRAM>"))) return out;
  std::istringstream in(m[1].str());
  for (std::string word; in >> word;) out.push_back(std::strtod(word.c_str(), nullptr));
  return out;
}

// Bucket indexes in [from, to) with data in every one of `hs`.
std::vector<std::size_t> common(const std::vector<std::vector<double>>& hs, std::size_t from,
                                std::size_t to) {
  std::vector<std::size_t> out;
  for (std::size_t k = from; k < to; ++k) {
    bool all = true;
    for (auto& h : hs) all = all && k < h.size() && !std::isnan(h[k]);
    if (all) out.push_back(k);
  }
  return out;
}

// Waits until MI 0 (the whole program) and MI 1 (node-1's process) have at least 3 complete
// buckets with data from bucket `from` on (the last two, still filling, left out), then checks
// that in each the whole program is node-1's alone.
void check_whole_is_node1_from(const published_engine& engine, std::size_t from) {
  std::vector<std::vector<double>> hs;
  std::vector<std::size_t> after;
  REQUIRE(eventually([&] {
    hs = {buckets(engine, 0), buckets(engine, 1)};
    auto last = std::min(hs[0].size(), hs[1].size());
    after = common(hs, from, last < 2 ? 0 : last - 2);
    return after.size() >= 3;
  }));
  for (auto k : after) {
    INFO("bucket " << k);
    CHECK(hs[0][k] == Approx(hs[1][k]).epsilon(1e-9));
    CHECK(hs[0][k] > 0);
  }
}

}  // namespace

TEST_CASE("daemons: the engine aggregates two daemons, one killed is removed, the other goes on",
          "[daemon][remote]") {
  published_engine engine;
  test::workload w1, w2;
  auto d1 = start_daemon(engine, "node-1", {"--attach", std::to_string(w1.pid)});
  auto d2 = start_daemon(engine, "node-2", {"--attach", std::to_string(w2.pid)});
  REQUIRE(eventually([&] { return forwarding(*d1) && forwarding(*d2); }));
  auto status = run_client(engine.address(), {"STATUS"});
  CHECK(status.out.find("<COMPONENT NAME='node-1'/><COMPONENT NAME='node-2'/>") !=
        std::string::npos);

  // MI 0: the whole program (both daemons); MIs 1 and 2: one process each.
  auto focus = [](const test::workload& w) {
    return " FOCUS=/Process/perfdm_workload{" + std::to_string(w.pid) + "}";
  };
  auto watcher = start_client(engine.address(), {"--watch"},
                              "STREAM\n"
                              "ENABLE STREAM=$STREAM METRIC=work.requests\n"
                              "ENABLE STREAM=$STREAM METRIC=work.requests" +
                                  focus(w1) +
                                  "\n"
                                  "ENABLE STREAM=$STREAM METRIC=work.requests" +
                                  focus(w2) + "\n");
  REQUIRE(eventually([&] { return count(watcher->out(), "<DYPER_REPLY") == 4; }));
  auto mis = remote_test::status_mis(run_client(engine.address(), {"STATUS"}).out);
  REQUIRE(mis.size() == 3);
  CHECK(mis["0"].find("FOCUS='/'") != std::string::npos);

  // Each complete bucket of the whole program is the sum of the two processes' (the first
  // bucket with data, where the MIs started at slightly different times, and the last, still
  // filling, are left out).
  std::vector<std::vector<double>> hs;
  std::vector<std::size_t> compared;
  REQUIRE(eventually([&] {
    hs = {buckets(engine, 0), buckets(engine, 1), buckets(engine, 2)};
    auto last = std::min({hs[0].size(), hs[1].size(), hs[2].size()});
    compared = common(hs, 0, last < 2 ? 0 : last - 2);
    return compared.size() >= 4;
  }));
  compared.erase(compared.begin());
  double sum = 0;
  for (auto k : compared) {
    INFO("bucket " << k);
    CHECK(hs[0][k] == Approx(hs[1][k] + hs[2][k]).epsilon(1e-9));
    CHECK(hs[1][k] > 0);
    CHECK(hs[2][k] > 0);
    sum += hs[0][k];
  }
  CHECK(sum > 0);

  // kill -9 of one daemon: the watcher hears it, the engine keeps serving, and only node-1
  // is a component from now on.
  d2->signal(SIGKILL);
  CHECK(d2->wait() == -1);
  REQUIRE(eventually([&] {
    return watcher->out().find("<DYPER COMPONENTREMOVED='0' NAME='node-2'/>") != std::string::npos;
  }));
  status = run_client(engine.address(), {"STATUS"});
  CHECK(status.status == 0);
  CHECK(status.out.find("<COMPONENT NAME='node-1'/>") != std::string::npos);
  CHECK(status.out.find("node-2") == std::string::npos);

  // The data continues from node-1: later buckets of the whole program are node-1's alone.
  check_whole_is_node1_from(engine, buckets(engine, 0).size() + 1);
  CHECK(d1->exited() == false);
}

TEST_CASE("daemons: a daemon whose process exited does not hold the aggregate back",
          "[daemon][remote]") {
  published_engine engine;
  test::workload w1, w2;
  auto d1 = start_daemon(engine, "node-1", {"--attach", std::to_string(w1.pid)});
  auto d2 = start_daemon(engine, "node-2", {"--attach", std::to_string(w2.pid)});
  REQUIRE(eventually([&] { return forwarding(*d1) && forwarding(*d2); }));
  // MI 0: the whole program (both daemons); MI 1: node-1's process alone.
  auto watcher = start_client(engine.address(), {"--watch"},
                              "STREAM\n"
                              "ENABLE STREAM=$STREAM METRIC=work.requests\n"
                              "ENABLE STREAM=$STREAM METRIC=work.requests FOCUS=/Process/"
                              "perfdm_workload{" +
                                  std::to_string(w1.pid) + "}\n");
  REQUIRE(eventually([&] { return count(watcher->out(), "<DYPER_REPLY") == 3; }));
  REQUIRE(eventually([&] { return buckets(engine, 0).size() >= 3; }));

  // node-2's workload exits (killed; the daemon runs on). MI 1, which only node-1 drives,
  // is at the present: buckets from two past its end hold nothing of the dead process.
  kill(w2.pid, SIGKILL);
  REQUIRE(eventually([&] { return w2.exited(); }));
  const auto killed_at = std::max(buckets(engine, 0).size(), buckets(engine, 1).size()) + 2;
  // The whole program goes on with node-1's data alone, although node-2 is still a component.
  check_whole_is_node1_from(engine, killed_at);
  CHECK(d1->exited() == false);
  CHECK(d2->exited() == false);
  CHECK(run_client(engine.address(), {"STATUS"}).out.find("<COMPONENT NAME='node-2'/>") !=
        std::string::npos);
  // The stream carried data all along: a COMPONENTREMOVED would be among it.
  CHECK(watcher->out().find("<DYPER DATA='0'>") != std::string::npos);
  CHECK(watcher->out().find("COMPONENTREMOVED") == std::string::npos);
}

TEST_CASE("daemons: an unreachable upstream or a bad address is a clear error", "[daemon]") {
  {
    process d({PERFDM_BINARY, "daemon", "--upstream", "not an address"}, "", "daemon");
    CHECK(d.wait() == 2);
    CHECK(d.err().find("is not HOST:PORT") != std::string::npos);
  }
  {
    // Port 1 on loopback: nothing listens there.
    process d({PERFDM_BINARY, "daemon", "--upstream", "127.0.0.1:1", "--connect-timeout", "5"}, "",
              "daemon");
    CHECK(d.wait() == 2);
    CHECK(d.err().find("cannot reach the engine at 127.0.0.1:1") != std::string::npos);
  }
}

TEST_CASE("daemons: 32 daemons started at once all register with the engine", "[daemon]") {
  // A cluster starts its daemons together. Each used to probe the engine's port with a TCP
  // connect-and-close first; the engine's CAF then sometimes lost the handshake of the
  // connection that got the probe's descriptor number: about 1 in 25 daemons waited, unheard,
  // until its heartbeat timeout and left ("did not register").
  published_engine engine;
  std::vector<std::unique_ptr<process>> daemons;
  for (int k = 1; k <= 32; ++k)
    daemons.push_back(start_daemon(engine, "node-" + std::to_string(k), {}));
  REQUIRE(eventually([&] {
    return std::all_of(daemons.begin(), daemons.end(),
                       [](auto& d) { return forwarding(*d) || d->exited(); });
  }));
  for (auto& d : daemons) {
    INFO(d->err());
    CHECK(forwarding(*d));
  }
}

TEST_CASE("daemons: connections closing at the engine while 16 daemons start: each registers",
          "[daemon]") {
  // Connect-and-close on the engine's port, over and over, while daemons connect: the
  // engine's CAF then loses some daemons' handshakes (a connection is named by its descriptor
  // number, which each close frees for the next accept). Such a daemon loses its connection
  // before it is registered, and connects again a second later (twice at most).
  published_engine engine;
  std::atomic<bool> stop{false};
  std::thread closer([&] {
    sockaddr_in at{};
    at.sin_family = AF_INET;
    at.sin_port = htons(engine.port());
    at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    while (!stop) {
      int fd = socket(AF_INET, SOCK_STREAM, 0);
      if (fd < 0) break;
      connect(fd, reinterpret_cast<sockaddr*>(&at), sizeof at);
      close(fd);
    }
  });
  std::vector<std::unique_ptr<process>> daemons;
  for (int k = 1; k <= 16; ++k)
    daemons.push_back(start_daemon(engine, "node-" + std::to_string(k),
                                   {"--heartbeat-ms", "300", "--timeout-ms", "1500"}));
  std::this_thread::sleep_for(std::chrono::seconds(1));
  stop = true;
  closer.join();
  REQUIRE(eventually([&] {
    return std::all_of(daemons.begin(), daemons.end(),
                       [](auto& d) { return forwarding(*d) || d->exited(); });
  }));
  int again = 0;
  for (auto& d : daemons) {
    INFO(d->err());
    CHECK(forwarding(*d));
    again += d->err().find("connecting again") != std::string::npos;
  }
  WARN(again << " of 16 daemons connected again");
}

TEST_CASE("daemons: an ATTACH the daemon cannot make is reported, the daemon still serves",
          "[daemon][remote]") {
  published_engine engine;
  // No such process (pids are below 2^22 on Linux).
  auto d = start_daemon(engine, "node-x", {"--attach", "99999999"});
  REQUIRE(eventually([&] { return forwarding(*d); }));
  CHECK(d->err().find("cannot attach process 99999999") != std::string::npos);
  CHECK(run_client(engine.address(), {"STATUS"}).out.find("<COMPONENT NAME='node-x'/>") !=
        std::string::npos);
  d->signal(SIGTERM);
  CHECK(d->wait() == 1);  // it ran, but not everything it was asked could be done
}

TEST_CASE("daemons: SIGTERM detaches, sends what was read and leaves the engine cleanly",
          "[daemon][remote]") {
  published_engine engine;
  test::workload w;
  auto d = start_daemon(engine, "node-t", {"--attach", std::to_string(w.pid)});
  REQUIRE(eventually([&] { return forwarding(*d); }));
  auto watcher = start_client(engine.address(), {"--watch"},
                              "STREAM\nENABLE STREAM=$STREAM METRIC=work.requests\n");
  REQUIRE(eventually([&] { return count(watcher->out(), "<DYPER_REPLY") == 2; }));
  REQUIRE(eventually([&] { return buckets(engine, 0).size() >= 3; }));
  d->signal(SIGTERM);
  CHECK(d->wait() == 0);
  CHECK(eventually([&] {
    return watcher->out().find("<DYPER COMPONENTREMOVED='0' NAME='node-t'/>") != std::string::npos;
  }));
  auto status = run_client(engine.address(), {"STATUS"}).out;
  CHECK(status.find("<DYPER_REPLY ID='DM'><STATUS NOW='") != std::string::npos);
  CHECK(status.find("<COMPONENT") == std::string::npos);
  // The workload runs on, no longer attached: a new daemon can attach it again.
  auto again = start_daemon(engine, "node-u", {"--attach", std::to_string(w.pid)});
  REQUIRE(eventually([&] { return forwarding(*again); }));  // its stderr says it forwards
  CHECK(again->err().find("cannot attach") == std::string::npos);
}
