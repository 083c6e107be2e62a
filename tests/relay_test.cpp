// Relay trees of daemons, all real processes on 127.0.0.1: `perfdm relay` between
// the engine and its daemons aggregates them (the engine's aggregation) into one component;
// a relay under a relay works the same (any depth); when the engine goes away, relays and
// daemons below all leave, in bounded time, with status 1; when a relay goes away, its
// children go on at its upstream, with nothing lost (failover).
#include <catch2/catch.hpp>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <thread>

#include "tests/live_engine_test_support.hpp"
#include "tests/relay_test_support.hpp"
#include "tests/remote_test_support.hpp"
#include "tests/skip_test.hpp"

using namespace perfdm;
using remote_test::eventually;
using remote_test::process;
using remote_test::published_engine;
using remote_test::run_client;
using remote_test::start_client;
using namespace perfdm::relay_test;

namespace {

// Enables work.requests over the whole program (MI 0) and over each workload (MIs 1, 2),
// then checks that at least 3 complete buckets of the whole are the sum of the two.
void check_whole_is_sum(const published_engine& engine, const test::workload& w1,
                        const test::workload& w2) {
  auto watcher = watch_whole_and_each(engine.address(), w1, w2);
  std::vector<std::vector<double>> hs;
  std::vector<std::size_t> compared;
  REQUIRE(eventually([&] {
    hs = {buckets(engine.address(), 0), buckets(engine.address(), 1),
          buckets(engine.address(), 2)};
    auto last = std::min({hs[0].size(), hs[1].size(), hs[2].size()});
    compared.clear();
    // The first bucket with data (the MIs started at slightly different times) and the last
    // two, still filling, are left out.
    for (std::size_t k = 0; k + 2 < last; ++k)
      if (!std::isnan(hs[0][k]) && !std::isnan(hs[1][k]) && !std::isnan(hs[2][k]))
        compared.push_back(k);
    return compared.size() >= 4;
  }));
  compared.erase(compared.begin());
  for (auto k : compared) {
    INFO("bucket " << k);
    CHECK(hs[0][k] == Approx(hs[1][k] + hs[2][k]).epsilon(1e-9));
    CHECK(hs[1][k] > 0);
    CHECK(hs[2][k] > 0);
  }
}

}  // namespace

TEST_CASE("relay: two daemons through a relay are one component, aggregated as the engine does",
          "[relay][remote]") {
  published_engine engine;
  relay_process relay(engine.address(), "relay-a");
  test::workload w1, w2;
  auto d1 = start_daemon(relay.address(), "node-1", w1);
  auto d2 = start_daemon(relay.address(), "node-2", w2);
  REQUIRE(eventually([&] { return forwarding(*d1) && forwarding(*d2); }));
  auto status = run_client(engine.address(), {"STATUS"});
  CHECK(status.out.find("<COMPONENT NAME='relay-a'/>") != std::string::npos);
  CHECK(status.out.find("node-1") == std::string::npos);
  check_whole_is_sum(engine, w1, w2);

  // The engine goes away: the relay, then the daemons below it, leave with status 1.
  engine.proc().signal(SIGKILL);
  CHECK(relay.proc().wait() == 1);
  CHECK(relay.proc().err().find("went away") != std::string::npos);
  CHECK(d1->wait() == 1);
  CHECK(d2->wait() == 1);
}

TEST_CASE("relay: a relay under a relay (two levels) carries the data the same",
          "[relay][remote]") {
  published_engine engine;
  relay_process top(engine.address(), "relay-top");
  relay_process left(top.address(), "relay-left");
  test::workload w1, w2;
  auto d1 = start_daemon(left.address(), "node-1", w1);
  auto d2 = start_daemon(top.address(), "node-2", w2);  // a daemon beside a relay
  REQUIRE(eventually([&] { return forwarding(*d1) && forwarding(*d2); }));
  auto status = run_client(engine.address(), {"STATUS"});
  CHECK(status.out.find("<COMPONENT NAME='relay-top'/>") != std::string::npos);
  CHECK(status.out.find("relay-left") == std::string::npos);
  check_whole_is_sum(engine, w1, w2);
  // TOPOLOGY sees through both levels: relay-top holds relay-left (holding node-1) and node-2.
  auto t = run_client(engine.address(), {"TOPOLOGY"}).out;
  INFO(t);
  CHECK(std::regex_search(
      t, std::regex("<NODE NAME='relay-top' HOST='[^']*' KIND='relay'[^>]* COMPONENTS='2'[^>]*>"
                    "<NODE NAME='node-2' [^>]*KIND='daemon'[^>]*></NODE>"
                    "<NODE NAME='relay-left' [^>]*KIND='relay'[^>]* COMPONENTS='1'[^>]*>"
                    "<NODE NAME='node-1' [^>]*KIND='daemon'[^>]*></NODE></NODE></NODE>")));
  // The top relay stops: its children, a relay and a daemon, go on at the engine (failover)...
  top.proc().signal(SIGTERM);
  CHECK(top.proc().wait() == 0);
  REQUIRE(eventually([&] {
    return left.proc().err().find("reconnected to " + engine.address()) != std::string::npos &&
           d2->err().find("reconnected to " + engine.address()) != std::string::npos;
  }));
  status = run_client(engine.address(), {"STATUS"});
  CHECK(status.out.find("<COMPONENT NAME='node-2'/><COMPONENT NAME='relay-left'/>") !=
        std::string::npos);
  // ... and with the engine gone, everything below leaves with status 1 (nowhere else to go).
  engine.proc().signal(SIGKILL);
  CHECK(left.proc().wait() == 1);
  CHECK(d1->wait() == 1);
  CHECK(d2->wait() == 1);
}

TEST_CASE("relay: a bad address or an unreachable upstream is a clear error", "[relay]") {
  {
    process r({PERFDM_BINARY, "relay", "--upstream", "nowhere", "--publish", "0"}, "", "relay");
    CHECK(r.wait() == 2);
    CHECK(r.err().find("is not HOST:PORT") != std::string::npos);
  }
  {
    process r({PERFDM_BINARY, "relay", "--upstream", "127.0.0.1:1", "--publish", "0",
               "--connect-timeout", "5"},
              "", "relay");
    CHECK(r.wait() == 2);
    CHECK(r.err().find("cannot reach the upstream at 127.0.0.1:1") != std::string::npos);
  }
}

TEST_CASE("relay: daemons in UTS namespaces of their own are separate hosts under /Machine",
          "[relay][remote]") {
  if (std::system("unshare -u true 2>/dev/null") != 0)
    return skip_test("unshare -u is not permitted here (needs CAP_SYS_ADMIN)");
  published_engine engine;
  relay_process relay(engine.address(), "relay-h");
  process sleeper({"/bin/sleep", "60"}, "", "relay_sleeper");
  auto host_daemon = [&](const std::string& host) {
    return std::make_unique<process>(
        std::vector<std::string>{"/usr/bin/unshare", "-u", "/bin/sh", "-c",
                                 "hostname " + host + " && exec " + PERFDM_BINARY +
                                     " daemon --upstream " + relay.address() + " --pid " +
                                     std::to_string(sleeper.pid())},
        "", "relay_host_daemon");
  };
  auto a = host_daemon("perfdm-test-host-a");
  auto b = host_daemon("perfdm-test-host-b");
  REQUIRE(eventually([&] { return forwarding(*a) && forwarding(*b); }));
  // Each daemon's default component name is its own host's.
  CHECK(a->err().find("component perfdm-test-host-a:") != std::string::npos);
  REQUIRE(eventually([&] {
    auto r = run_client(engine.address(), {"RESOURCES"}).out;
    return r.find("/Machine/perfdm-test-host-a/") != std::string::npos &&
           r.find("/Machine/perfdm-test-host-b/") != std::string::npos;
  }));
}


TEST_CASE("relay: TOPOLOGY shows the relay, its daemons and their links, and a killed daemon leaves it",
          "[relay][remote][topology]") {
  published_engine engine;
  relay_process relay(engine.address(), "relay-t");
  test::workload w1, w2;
  auto d1 = start_daemon(relay.address(), "node-t1", w1);
  auto d2 = start_daemon(relay.address(), "node-t2", w2);
  REQUIRE(eventually([&] { return forwarding(*d1) && forwarding(*d2); }));
  auto topology = [&] { return run_client(engine.address(), {"TOPOLOGY"}).out; };

  // The tree: the engine, the relay below it, both daemons below the relay.
  std::string t;
  REQUIRE(eventually([&] {
    t = topology();
    return t.find("NAME='node-t1'") != std::string::npos &&
           t.find("NAME='node-t2'") != std::string::npos;
  }));
  INFO(t);
  CHECK(std::regex_search(
      t, std::regex("<TOPOLOGY><NODE NAME='[^']*' HOST='[^']*' KIND='engine'[^>]*>"
                    "<NODE NAME='relay-t' HOST='[^']*' KIND='relay'[^>]*>"
                    "(<NODE NAME='node-t[12]' HOST='[^']*' KIND='daemon'[^>]*></NODE>){2}"
                    "</NODE></NODE></TOPOLOGY>")));
  CHECK(node_attribute(t, "relay-t", "COMPONENTS") == "2");
  CHECK(node_attribute(t, "node-t1", "SOURCES") == "1");  // its attached workload
  // The relay's watermark goes up every flush, data or not: its link has a lag.
  CHECK_FALSE(node_attribute(t, "relay-t", "LAG_S").empty());

  // Once data flows, every link carries samples.
  auto watcher = start_client(engine.address(), {"--watch"},
                              "STREAM\nENABLE STREAM=$STREAM METRIC=work.requests\n");
  REQUIRE(eventually([&] {
    t = topology();
    for (auto name : {"relay-t", "node-t1", "node-t2"}) {
      auto rate = node_attribute(t, name, "SAMPLES_PER_S");
      if (rate.empty() || std::stod(rate) <= 0) return false;
    }
    return true;
  }));
  // Asked of the relay, TOPOLOGY is the engine's (the relay passes it up).
  CHECK(run_client(relay.address(), {"TOPOLOGY"}).out.find("KIND='engine'") != std::string::npos);

  // A daemon killed is gone from the tree; the other stays.
  d1->signal(SIGKILL);
  REQUIRE(eventually([&] {
    t = topology();
    return t.find("NAME='node-t1'") == std::string::npos;
  }));
  CHECK(t.find("NAME='node-t2'") != std::string::npos);
  CHECK(node_attribute(t, "relay-t", "COMPONENTS") == "1");
}

namespace {

// The sum a daemon says it forwarded for MI `mi` as it stopped ("forwarded sums by MI: 0=…").
double forwarded_sum(const process& daemon, int mi) {
  std::smatch m;
  auto text = daemon.err();
  if (!std::regex_search(text, m, std::regex("forwarded sums by MI:[^\n]*\\b" +
                                             std::to_string(mi) + "=([-0-9.e+]+)")))
    return -1;
  return std::stod(m[1].str());
}

// The sum of MI `mi`'s buckets (an empty one prints nan, and counts nothing).
double histogram_total(const std::string& engine, int mi) {
  auto r = run_client(engine, {"DATA", "MI=" + std::to_string(mi)});
  std::smatch m;
  if (!std::regex_search(r.out, m, std::regex(">([^<]*)</HISTOGRAM>"))) return -1;
  std::istringstream in(m[1].str());
  double t = 0;
  for (std::string word; in >> word;) {
    double v = std::strtod(word.c_str(), nullptr);
    if (v == v) t += v;
  }
  return t;
}

}  // namespace

TEST_CASE("relay: kill -9 of a relay: its daemons go on at the engine, streams are told, "
          "COUNTER sums exact",
          "[relay][remote]") {
  published_engine engine;
  // The relay holds what it aggregated up to 400 ms before sending it up, so the kill loses
  // some: the daemons must send it again.
  relay_process relay(engine.address(), "relay-a", {"--flush-ms", "400"});
  test::workload w1({"6"}), w2({"6"});  // they end by themselves, the daemons run on
  auto d1 = start_daemon(relay.address(), "node-1", w1);
  auto d2 = start_daemon(relay.address(), "node-2", w2);
  REQUIRE(eventually([&] { return forwarding(*d1) && forwarding(*d2); }));
  auto watcher = start_client(engine.address(), {"--watch"},
                              "STREAM\nENABLE STREAM=$STREAM METRIC=work.requests\n");
  REQUIRE(eventually([&] { return count(watcher->out(), "<DYPER_REPLY") == 2; }));
  REQUIRE(eventually([&] { return buckets(engine.address(), 0).size() >= 3; }));

  // Not right after a flush (a new bucket shows one just happened): the relay then holds
  // what it aggregated since, which is lost with it.
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  relay.proc().signal(SIGKILL);
  const auto killed = std::chrono::steady_clock::now();
  CHECK(relay.proc().wait() == -1);
  // Both daemons reconnect to the relay's upstream within the bound (3 s, PROTOCOL.md §11).
  REQUIRE(eventually([&] {
    return d1->err().find("reconnected to " + engine.address()) != std::string::npos &&
           d2->err().find("reconnected to " + engine.address()) != std::string::npos;
  }));
  CHECK(std::chrono::steady_clock::now() - killed < std::chrono::seconds(3));
  CHECK(d1->exited() == false);
  CHECK(d2->exited() == false);
  // The stream hears the relay leave, then each daemon join.
  REQUIRE(eventually([&] {
    auto out = watcher->out();
    auto removed = out.find("<DYPER COMPONENTREMOVED='0' NAME='relay-a'/>");
    return removed != std::string::npos &&
           out.find("<DYPER COMPONENTADDED='0' NAME='node-1'/>", removed) != std::string::npos &&
           out.find("<DYPER COMPONENTADDED='0' NAME='node-2'/>", removed) != std::string::npos;
  }));
  auto status = run_client(engine.address(), {"STATUS"}).out;
  CHECK(status.find("<COMPONENT NAME='node-1'/><COMPONENT NAME='node-2'/>") != std::string::npos);
  CHECK(status.find("relay-a") == std::string::npos);
  // The data continues past the kill.
  const auto at_kill = buckets(engine.address(), 0).size();
  REQUIRE(eventually([&] { return buckets(engine.address(), 0).size() >= at_kill + 3; }));

  // Once the workloads ended and the daemons stopped, the engine's whole-program COUNTER
  // holds exactly what the daemons forwarded: nothing the relay held was lost, nothing
  // it had passed on was counted twice.
  bool ended1 = false, ended2 = false;  // (a workload is reaped once: ask each until it ends)
  REQUIRE(eventually([&] {
    ended1 = ended1 || w1.exited();
    ended2 = ended2 || w2.exited();
    return ended1 && ended2;
  }));
  d1->signal(SIGTERM);
  d2->signal(SIGTERM);
  CHECK(d1->wait() == 0);
  CHECK(d2->wait() == 0);
  const double expected = forwarded_sum(*d1, 0) + forwarded_sum(*d2, 0);
  INFO(d1->err() << d2->err());
  REQUIRE(forwarded_sum(*d1, 0) > 0);
  REQUIRE(forwarded_sum(*d2, 0) > 0);
  double got = 0;
  eventually([&] {
    got = histogram_total(engine.address(), 0);
    return got == Approx(expected).epsilon(1e-9);
  });
  CHECK(got == Approx(expected).epsilon(1e-9));
}

TEST_CASE("relay: one search over the processes of daemons on three hosts folds the alike and names the outlier",
          "[relay][remote][pc-cluster]") {
  if (std::system("unshare -u true 2>/dev/null") != 0)
    return skip_test("unshare -u is not permitted here (needs CAP_SYS_ADMIN)");
  // One process per host, as an MPI job on three nodes: two compute, the third (the outlier)
  // waits for a lock. Host a's and b's daemons are behind a relay, host c's joins directly.
  const std::string job = std::string(PERFDM_PC_WORKLOADS) + "/cluster_job";
  process ja({job, "1", "60"}, "", "cluster_job_a");
  process jb({job, "1", "60"}, "", "cluster_job_b");
  process jc({job, "1", "60", "outlier"}, "", "cluster_job_c");
  process search({PERFDM_BINARY, "search", "--publish", "127.0.0.1:0", "--daemons", "3",
                  "--daemons-wait", "15", "--seconds", "8", "--json"},
                 "", "cluster_search");
  int port = 0;
  REQUIRE(eventually([&] { return (port = remote_test::published_port(search)) != 0; }));
  const std::string upstream = "127.0.0.1:" + std::to_string(port);
  relay_process relay(upstream, "relay-ab");
  auto host_daemon = [&](const std::string& host, const std::string& up, const process& p) {
    return std::make_unique<process>(
        std::vector<std::string>{"/usr/bin/unshare", "-u", "/bin/sh", "-c",
                                 "hostname " + host + " && exec " + PERFDM_BINARY +
                                     " daemon --upstream " + up + " --pid " +
                                     std::to_string(p.pid())},
        "", "cluster_daemon");
  };
  auto a = host_daemon("perfdm-test-node-a", relay.address(), ja);
  auto b = host_daemon("perfdm-test-node-b", relay.address(), jb);
  auto c = host_daemon("perfdm-test-node-c", upstream, jc);
  CHECK(search.wait() == 0);
  auto out = search.out();
  INFO(search.err());
  INFO(out);
  CHECK(search.err().find("3 of 3 daemons joined") != std::string::npos);
  // Every process of every host was searched.
  for (auto* p : {&ja, &jb, &jc})
    CHECK(out.find("{\"pid\":" + std::to_string(p->pid()) + ",\"machine\":\"/Machine/") !=
          std::string::npos);
  auto folded_at = out.find("\"folded\":[");
  REQUIRE(folded_at != std::string::npos);
  auto folded = out.substr(folded_at);
  // The two computing processes read once, the outlier apart, named by its host.
  std::smatch m;
  REQUIRE(std::regex_search(
      folded, m,
      std::regex("\"hypothesis\":\"CPUbound\",\"focus\":\\{\"code\":\"/Code/cluster_job/relax\""
                 "[^{}]*\\}[^\\[]*\"processes\":2,\"of\":3,\"pids\":\\[[0-9,]+\\],\"outliers\":"
                 "\\[\\{\"pid\":(\\d+),\"process\":\"([^\"]*)\"")));
  CHECK(m[1].str() == std::to_string(jc.pid()));
  CHECK(m[2].str() == "perfdm-test-node-c:cluster_job{" + std::to_string(jc.pid()) + "}");
  // The outlier's trouble, measured on its own host: its threads wait for the lock, and over
  // several hosts the search names the process that waits (sync goes down /Machine there).
  CHECK(std::regex_search(
      folded, std::regex("\"text\":\"ExcessiveSyncWaitingTime [^\"]* from hold_and_wait")));
  CHECK(folded.find("\"process\":\"perfdm-test-node-c:cluster_job{" + std::to_string(jc.pid()) +
                    "}\",\"text\":\"ExcessiveSyncWaitingTime ") != std::string::npos);
}

TEST_CASE("relay: one search over two hosts whose processes have the same pid counts two processes",
          "[relay][remote][pc-cluster]") {
  if (std::system("unshare -u -p -f --mount-proc --kill-child true 2>/dev/null") != 0)
    return skip_test("unshare -u -p is not permitted here (needs CAP_SYS_ADMIN)");
  // Two containers on two hosts: each daemon in its own UTS and pid namespace starts its
  // cluster_job there, so both jobs have the same small pid. They are two processes; with the
  // engine's own (--pid), three.
  const std::string job = std::string(PERFDM_PC_WORKLOADS) + "/cluster_job";
  process own({job, "1", "60"}, "", "pidns_own_job");
  const auto recording = remote_test::temp_path("pidns_search.replay");
  process search({PERFDM_BINARY, "search", "--publish", "127.0.0.1:0", "--daemons", "2",
                  "--daemons-wait", "10", "--seconds", "6", "--json", "--pid",
                  std::to_string(own.pid()), "--record", recording},
                 "", "pidns_search");
  int port = 0;
  REQUIRE(eventually([&] { return (port = remote_test::published_port(search)) != 0; }));
  const std::string upstream = "127.0.0.1:" + std::to_string(port);
  // sh is the namespace's pid 1, then hostname (2) and the job (3), then the daemon: 4 on
  // host a, 5 on host b (after /bin/true). The daemons' pids must differ: CAF names a node by
  // its machine (its network interfaces, shared here) and pid, and two daemons of one name
  // would be one node to the engine. --kill-child: the test's SIGKILL to unshare ends the
  // namespace, job and all.
  auto container = [&](const std::string& host, const std::string& before_daemon) {
    return std::make_unique<process>(
        std::vector<std::string>{"/usr/bin/unshare", "-u", "-p", "-f", "--mount-proc",
                                 "--kill-child", "/bin/sh", "-c",
                                 "hostname " + host + "; " + job + " 1 60 & " + before_daemon +
                                     PERFDM_BINARY + " daemon --upstream " + upstream +
                                     " --pid $!"},
        "", "pidns_daemon");
  };
  auto a = container("perfdm-pidns-a", "");
  auto b = container("perfdm-pidns-b", "/bin/true; ");
  CHECK(search.wait() == 0);
  auto out = search.out();
  INFO(search.err());
  INFO(a->err() << b->err());
  INFO(out);
  CHECK(search.err().find("2 of 2 daemons joined") != std::string::npos);
  // Both processes were searched, each on its host, with the same pid.
  std::smatch m;
  REQUIRE(std::regex_search(
      out, m,
      std::regex("\\{\"pid\":(\\d+),\"machine\":\"/Machine/perfdm-pidns-a/cluster_job\\{(\\d+)\\}\"\\}")));
  const std::string pid = m[1].str();
  CHECK(m[2].str() == pid);
  CHECK(out.find("{\"pid\":" + pid + ",\"machine\":\"/Machine/perfdm-pidns-b/cluster_job{" + pid +
                 "}\"}") != std::string::npos);
  // Alike, they fold: three processes of three (the daemons' two of the same pid, not one).
  auto folded_at = out.find("\"folded\":[");
  REQUIRE(folded_at != std::string::npos);
  auto folded = out.substr(folded_at);
  REQUIRE(std::regex_search(
      folded, m,
      std::regex("\"hypothesis\":\"CPUbound\",\"focus\":\\{\"code\":\"/Code/cluster_job/relax\""
                 "[^{}]*\\}[^\\[]*\"processes\":3,\"of\":3,\"pids\":\\[([0-9,]+)\\][^\\]]*\\][^\\]]*"
                 "\"hosts\":\\[([^\\]]*)\\]")));
  auto pids = "," + m[1].str() + ",";
  CHECK(count(pids, "," + pid + ",") == 2);
  CHECK(pids.find("," + std::to_string(own.pid()) + ",") != std::string::npos);
  CHECK(m[2].str().find("\"perfdm-pidns-a\",\"perfdm-pidns-b\"") != std::string::npos);
  // The recording tells the daemons' processes apart by HOST; the engine's own has none.
  auto recorded = remote_test::slurp(recording);
  std::filesystem::remove(recording);
  CHECK(recorded.find("<P PID='" + pid + "' HOST='perfdm-pidns-a' N='") != std::string::npos);
  CHECK(recorded.find("<P PID='" + pid + "' HOST='perfdm-pidns-b' N='") != std::string::npos);
  CHECK(recorded.find("<P PID='" + std::to_string(own.pid()) + "' N='") != std::string::npos);
  CHECK(recorded.find("<P PID='" + std::to_string(own.pid()) + "' HOST=") == std::string::npos);
  // Each finding names its process with its host.
  auto findings_at = out.find("\"findings\":[");
  REQUIRE(findings_at != std::string::npos);
  auto findings = out.substr(findings_at, folded_at - findings_at);
  CHECK(findings.find("perfdm-pidns-a:cluster_job{") != std::string::npos);
  CHECK(findings.find("perfdm-pidns-b:cluster_job{") != std::string::npos);
}
