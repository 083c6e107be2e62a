// Remote clients end to end: a real `perfdm engine --publish 127.0.0.1:0` process and real
// `perfdm client` processes on loopback (tests/remote_test_support.hpp).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <catch2/catch.hpp>
#include <cstdio>

#include "cli/client_command.hpp"
#include "messages/short_request.hpp"
#include "tests/remote_test_support.hpp"

using namespace perfdm;
using namespace perfdm::remote_test;
using gateway_test::dm;
using gateway_test::replayed;
using gateway_test::walkthrough_and;

namespace {

// The walk-through session of docs/PROTOCOL.md with errors (as the gateway test sends it).
const std::vector<std::string> every_command = walkthrough_and({
    dm("PROCESSES"),
    dm("FRAMES"),
    "<DYPER PID='1234' COMMAND='WHORU'/>",
    dm("ENABLE", "<ENABLE STREAM='9' METRIC='cpu'/>"),
    "<DYPER PID='DM' COMMAND='PING'",  // not XML: refused by the client's codec, as replay does
    dm("CLOSE", "<STREAM ID='0'/>"),
    dm("CLOSE", "<STREAM ID='0'/>"),
});

std::string joined_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (auto& l : lines) out += l + '\n';
  return out;
}

// The number of replies in a client's output so far.
std::size_t replies_in(const std::string& out) {
  std::size_t n = 0;
  for (auto& l : lines_of(out))
    if (l.rfind("<DYPER_REPLY", 0) == 0) ++n;
  return n;
}

std::string status_of(const published_engine& engine) {
  auto r = run_client(engine.address(), {"STATUS"});
  REQUIRE(r.status == 0);
  return r.out;
}

}  // namespace

TEST_CASE("remote: the short form builds the XML of the command language", "[remote]") {
  std::string why;
  auto xml = [&](std::vector<std::string> words, std::string target = "DM") {
    return short_request_xml(words, target, why).value_or("none: " + why);
  };
  CHECK(xml({"METRICS"}) == "<DYPER PID='DM' COMMAND='METRICS'/>");
  CHECK(xml({"status"}) == "<DYPER PID='DM' COMMAND='STATUS'/>");
  CHECK(xml({"ENABLE", "STREAM=0", "metric=cpu", "FOCUS=/a,/b"}) ==
        "<DYPER PID='DM' COMMAND='ENABLE'><ENABLE STREAM='0' METRIC='cpu' "
        "FOCUS='/a,/b'/></DYPER>");
  CHECK(xml({"SETFLAGS", "MI=3", "PERSISTENT_DATA=true"}) ==
        "<DYPER PID='DM' COMMAND='SETFLAGS'><FLAGS MI='3' PERSISTENT_DATA='true'/></DYPER>");
  CHECK(xml({"CLEARFLAGS", "MI=3", "PERSISTENT_DATA=1"}) ==
        "<DYPER PID='DM' COMMAND='CLEARFLAGS'><FLAGS MI='3' PERSISTENT_DATA='1'/></DYPER>");
  CHECK(xml({"CLOSE", "ID=2"}) == "<DYPER PID='DM' COMMAND='CLOSE'><STREAM ID='2'/></DYPER>");
  CHECK(xml({"DEFINE", "NAME=cpu"}) ==
        "<DYPER PID='DM' COMMAND='DEFINE'><METRIC NAME='cpu'/></DYPER>");
  CHECK(xml({"DEFINE", "resource", "NAME=/a"}) ==
        "<DYPER PID='DM' COMMAND='DEFINE'><RESOURCE NAME='/a'/></DYPER>");
  CHECK(xml({"WATCH", "PID=42"}) == "<DYPER PID='DM' COMMAND='WATCH'><PROCESS PID='42'/></DYPER>");
  CHECK(xml({"PHASE"}) == "<DYPER PID='DM' COMMAND='PHASE'/>");
  CHECK(xml({"GET"}, "4711") == "<DYPER PID='4711' COMMAND='GET'/>");
  // Values are escaped: the short form cannot inject XML.
  CHECK(xml({"DEFINE", "NAME=a'b<c>&d"}) ==
        "<DYPER PID='DM' COMMAND='DEFINE'><METRIC NAME='a&apos;b&lt;c&gt;&amp;d'/></DYPER>");
  CHECK(xml({"<DYPER PID='DM' COMMAND='PING'/>"}) == "<DYPER PID='DM' COMMAND='PING'/>");
  // Not requests.
  CHECK(!short_request_xml({}, "DM", why));
  CHECK(!short_request_xml({"MI=3"}, "DM", why));
  CHECK(why.find("COMMAND") != std::string::npos);
  CHECK(!short_request_xml({"ENABLE", "STREAM=0", "METRIC"}, "DM", why));
  CHECK(why.find("'METRIC' is not NAME=VALUE") != std::string::npos);
  CHECK(!short_request_xml({"ENABLE", "=0"}, "DM", why));
}

TEST_CASE("remote: every DM command through perfdm client prints exactly what replay prints",
          "[remote]") {
  published_engine engine;
  auto r = run_client(engine.address(), {}, joined_lines(every_command));
  auto expected = replayed(every_command);
  REQUIRE(expected.size() > every_command.size());  // events as well as replies
  CHECK(lines_of(r.out) == expected);
  CHECK(r.status == 1);  // some replies are errors
  CHECK(r.err.empty());
}

TEST_CASE("remote: the short forms answer as the XML they stand for", "[remote]") {
  // Short form and XML, side by side; $STREAM is the stream this client opened (0).
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"STREAM", dm("STREAM")},
      {"DEFINE METRIC NAME=cpu STYLE=COUNTER UNITS=s",
       dm("DEFINE", "<METRIC NAME='cpu' STYLE='COUNTER' UNITS='s'/>")},
      {"DEFINE RESOURCE NAME=/Process/app", dm("DEFINE", "<RESOURCE NAME='/Process/app'/>")},
      {"METRICS", dm("METRICS")},
      {"RESOURCES", dm("RESOURCES")},
      {"ENABLE STREAM=$STREAM METRIC=cpu FOCUS=/Process/app PHASE=CURRENT PERSISTENT_DATA=true",
       dm("ENABLE",
          "<ENABLE STREAM='0' METRIC='cpu' FOCUS='/Process/app' PHASE='CURRENT' "
          "PERSISTENT_DATA='true'/>")},
      {dm("SAMPLES", "<SAMPLES><S MI='0' START='0' END='0.3' VALUE='3'/></SAMPLES>"),
       dm("SAMPLES", "<SAMPLES><S MI='0' START='0' END='0.3' VALUE='3'/></SAMPLES>")},
      {"DATA MI=0 PHASE=CURRENT", dm("DATA", "<DATA MI='0' PHASE='CURRENT'/>")},
      {"SETFLAGS MI=0 PERSISTENT_COLLECTION=true",
       dm("SETFLAGS", "<FLAGS MI='0' PERSISTENT_COLLECTION='true'/>")},
      {"SAMPLERATE", dm("SAMPLERATE")},
      {"PHASE NAME=busy", dm("PHASE", "<PHASE NAME='busy'/>")},
      {"PHASES", dm("PHASES")},
      {"DATA MI=0 PHASE=0", dm("DATA", "<DATA MI='0' PHASE='0'/>")},
      {"ENABLE STREAM=$STREAM METRIC=cpu FOCUS=/Process/app",
       dm("ENABLE", "<ENABLE STREAM='0' METRIC='cpu' FOCUS='/Process/app'/>")},
      {"STATUS", dm("STATUS")},
      {"DISABLE STREAM=$STREAM MI=0 PHASE=GLOBAL",
       dm("DISABLE", "<DISABLE STREAM='0' MI='0' PHASE='GLOBAL'/>")},
      {"CLEARFLAGS MI=0 PERSISTENT_COLLECTION=true",
       dm("CLEARFLAGS", "<FLAGS MI='0' PERSISTENT_COLLECTION='true'/>")},
      {"PING", dm("PING")},
      {"WHO", dm("WHO")},
      {"PROCESSES", dm("PROCESSES")},
      {"FRAMES", dm("FRAMES")},
      {"CLOSE ID=$STREAM", dm("CLOSE", "<STREAM ID='0'/>")},
  };
  std::vector<std::string> shorts, xmls;
  for (auto& [s, x] : pairs) {
    shorts.push_back(s);
    xmls.push_back(x);
  }
  published_engine engine;
  auto r = run_client(engine.address(), {}, joined_lines(shorts));
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  CHECK(lines_of(r.out) == replayed(xmls));

  // On the command line: words, ';' between requests.
  auto c = run_client(engine.address(), {"PING", ";", "DEFINE", "NAME=mem", ";", "METRICS"});
  CHECK(c.status == 0);
  CHECK(
      lines_of(c.out) ==
      std::vector<std::string>{
          "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>",
          "<DYPER_REPLY ID='DM'><METRIC ID='1' NAME='mem' STYLE='COUNTER' UNITS=''/></DYPER_REPLY>",
          "<DYPER_REPLY ID='DM'><METRICS><METRIC ID='0' NAME='cpu' STYLE='COUNTER' UNITS='s'/>"
          "<METRIC ID='1' NAME='mem' STYLE='COUNTER' UNITS=''/></METRICS></DYPER_REPLY>"});
}

TEST_CASE("remote: LOG writes the engine's log", "[remote]") {
  published_engine engine;
  auto log = temp_path("remote-log.log");
  auto r = run_client(engine.address(), {"DEFINE", "NAME=cpu", ";", "LOG", "FILE=" + log});
  CHECK(r.status == 0);
  std::smatch m;
  auto lines = lines_of(r.out);
  REQUIRE(lines.size() == 2);
  REQUIRE(std::regex_match(lines[1], m,
                           std::regex("<DYPER_REPLY ID='DM'><LOG FILE='(.*)' "
                                      "BYTES='([0-9]+)'/></DYPER_REPLY>")));
  CHECK(m[1] == log);
  REQUIRE(std::filesystem::exists(log));
  CHECK(std::filesystem::file_size(log) == std::stoull(m[2]));
  std::filesystem::remove(log);
  auto bad = run_client(engine.address(), {"LOG", "FILE=/nonexistent-dir/x.log"});
  CHECK(bad.status == 1);
  CHECK(bad.out.find("ERROR='INTERNAL'") != std::string::npos);
}

TEST_CASE("remote: --watch prints a stream's events live, leaving closes the stream (T3)",
          "[remote]") {
  published_engine engine;
  REQUIRE(run_client(engine.address(), {"DEFINE", "NAME=cpu"}).status == 0);
  auto watcher =
      start_client(engine.address(), {"--watch"}, "STREAM\nENABLE STREAM=$STREAM METRIC=cpu\n");
  REQUIRE(eventually([&] { return replies_in(watcher->out()) == 2; }));
  CHECK(status_mis(status_of(engine))["0"].find("GLOBAL_USERS='0'") != std::string::npos);

  // Samples from another client become DATA events on the watcher's output while it waits.
  auto samples = dm("SAMPLES", "<SAMPLES><S MI='0' START='0' END='0.5' VALUE='5'/></SAMPLES>");
  REQUIRE(run_client(engine.address(), {samples}).status == 0);
  const std::string data =
      "<DYPER DATA='0'><V MI='0' PHASE='GLOBAL' BUCKET='0' VALUE='2'/>"
      "<V MI='0' PHASE='GLOBAL' BUCKET='1' VALUE='2'/></DYPER>";
  CHECK(eventually([&] { return watcher->out().find(data) != std::string::npos; }));

  // SIGINT ends the watch normally; the stream is closed and the MI it alone used goes (D3).
  watcher->signal(SIGINT);
  CHECK(watcher->wait() == 0);
  CHECK(eventually([&] { return status_mis(status_of(engine)).empty(); }));
}

TEST_CASE("remote: a client killed mid-stream has its stream closed, its MIs follow D1-D3",
          "[remote]") {
  published_engine engine;
  REQUIRE(run_client(engine.address(), {"DEFINE", "NAME=a", ";", "DEFINE", "NAME=b", ";", "DEFINE",
                                        "NAME=c", ";", "DEFINE", "NAME=d"})
              .status == 0);
  // The victim enables a (no flag), b (persistent data), c (persistent collection) and d,
  // which another client uses too.
  auto victim = start_client(engine.address(), {"--watch"},
                             "STREAM\n"
                             "ENABLE STREAM=$STREAM METRIC=a\n"
                             "ENABLE STREAM=$STREAM METRIC=b PERSISTENT_DATA=true\n"
                             "ENABLE STREAM=$STREAM METRIC=c PERSISTENT_COLLECTION=true\n"
                             "ENABLE STREAM=$STREAM METRIC=d\n");
  REQUIRE(eventually([&] { return replies_in(victim->out()) == 5; }));
  auto other =
      start_client(engine.address(), {"--watch"}, "STREAM\nENABLE STREAM=$STREAM METRIC=d\n");
  REQUIRE(eventually([&] { return replies_in(other->out()) == 2; }));
  REQUIRE(other->out().find("<STREAM ID='1'/>") != std::string::npos);

  // Mid-stream: data is flowing to the victim when it dies.
  auto samples = dm("SAMPLES",
                    "<SAMPLES><S MI='0' START='0' END='0.5' VALUE='5'/>"
                    "<S MI='3' START='0' END='0.5' VALUE='5'/></SAMPLES>");
  REQUIRE(run_client(engine.address(), {samples}).status == 0);
  REQUIRE(eventually([&] { return victim->out().find("<DYPER DATA='0'>") != std::string::npos; }));
  victim->signal(SIGKILL);
  victim->wait();

  std::map<std::string, std::string> mis;
  REQUIRE(eventually([&] {
    mis = status_mis(status_of(engine));
    return mis.count("0") == 0;
  }));
  // a: no flag, its only user gone: deleted (D3).
  CHECK(mis.count("0") == 0);
  // b: persistent data keeps it, not collecting (D3).
  REQUIRE(mis.count("1") == 1);
  CHECK(mis["1"].find("GLOBAL_USERS=''") != std::string::npos);
  CHECK(mis["1"].find("COLLECTING='false'") != std::string::npos);
  // c: persistent collection: collecting on without users (D1).
  REQUIRE(mis.count("2") == 1);
  CHECK(mis["2"].find("GLOBAL_USERS=''") != std::string::npos);
  CHECK(mis["2"].find("COLLECTING='true'") != std::string::npos);
  // d: the other stream still uses it.
  REQUIRE(mis.count("3") == 1);
  CHECK(mis["3"].find("GLOBAL_USERS='1'") != std::string::npos);
  CHECK(mis["3"].find("COLLECTING='true'") != std::string::npos);

  // The survivor still gets its data; the engine serves on.
  auto more = dm("SAMPLES", "<SAMPLES><S MI='3' START='0.5' END='1' VALUE='5'/></SAMPLES>");
  REQUIRE(run_client(engine.address(), {more}).status == 0);
  CHECK(eventually([&] { return other->out().find("<DYPER DATA='1'>") != std::string::npos; }));
  CHECK(engine.proc().exited() == false);
}

TEST_CASE("remote: a frozen client is dropped after the connection timeout, an idle one stays",
          "[remote]") {
  const std::vector<std::string> fast = {"--heartbeat-ms", "200", "--timeout-ms", "1500"};
  published_engine engine(fast);
  REQUIRE(run_client(engine.address(), {"DEFINE", "NAME=a", ";", "DEFINE", "NAME=b"}).status == 0);
  auto args = fast;
  args.push_back("--watch");
  auto frozen = start_client(engine.address(), args, "STREAM\nENABLE STREAM=$STREAM METRIC=a\n");
  REQUIRE(eventually([&] { return replies_in(frozen->out()) == 2; }));
  auto idle = start_client(engine.address(), args, "STREAM\nENABLE STREAM=$STREAM METRIC=b\n");
  REQUIRE(eventually([&] { return replies_in(idle->out()) == 2; }));

  frozen->signal(SIGSTOP);  // alive, connected, silent: only the timeout can tell
  std::map<std::string, std::string> mis;
  REQUIRE(eventually([&] {
    mis = status_mis(status_of(engine));
    return mis.count("0") == 0;
  }));
  // The idle client was silent as long, but its heartbeats kept it.
  REQUIRE(mis.count("1") == 1);
  CHECK(mis["1"].find("GLOBAL_USERS='1'") != std::string::npos);
  CHECK_FALSE(idle->exited());
  frozen->signal(SIGCONT);
}

TEST_CASE("remote: a peer with another interface is refused, both ways", "[remote]") {
  published_engine engine;
  // A client whose interface differs from what the engine publishes: CAF refuses it.
  auto probe = std::make_unique<process>(
      std::vector<std::string>{PERFDM_REMOTE_PROBE, "connect", std::to_string(engine.port())}, "",
      "remote_probe");
  CHECK(probe->wait() == 0);
  CHECK(probe->out().find("unexpected_actor_messaging_interface") != std::string::npos);

  // perfdm client against an actor with another interface: a clear refusal, exit 2.
  process other({PERFDM_REMOTE_PROBE, "publish"}, "", "remote_probe_pub");
  std::string port;
  REQUIRE(eventually([&] {
    auto text = other.out();
    auto at = text.find("published on ");
    if (at == std::string::npos || text.find('\n', at) == std::string::npos) return false;
    port = text.substr(at + 13, text.find('\n', at) - at - 13);
    return true;
  }));
  auto r = run_client("127.0.0.1:" + port, {"STATUS"});
  CHECK(r.status == 2);
  CHECK(r.err.find("refused") != std::string::npos);
  CHECK(r.err.find("another interface") != std::string::npos);
  CHECK(r.out.empty());
}

TEST_CASE("remote: bad addresses, silent peers, bad requests and a lost engine are clear errors",
          "[remote]") {
  auto bad = run_client("nonsense", {"STATUS"});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("HOST:PORT") != std::string::npos);

  // Nothing listens on a port just released.
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t len = sizeof a;
  REQUIRE(getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0);
  auto port = std::to_string(ntohs(a.sin_port));
  auto refused = run_client("127.0.0.1:" + port, {"STATUS"});
  CHECK(refused.status == 2);
  CHECK(refused.err.find("cannot connect") != std::string::npos);

  // A peer that accepts the connection and never answers: bounded by --timeout.
  REQUIRE(listen(s, 4) == 0);
  auto silent = run_client("127.0.0.1:" + port, {"--timeout", "1", "STATUS"});
  CHECK(silent.status == 2);
  CHECK(silent.err.find("did not answer") != std::string::npos);
  // CAF's own handshake timeout (from --timeout-ms) may end the wait first: the same answer.
  auto impatient = run_client("127.0.0.1:" + port, {"--heartbeat-ms", "100", "--timeout-ms", "300",
                                                    "--timeout", "20", "STATUS"});
  CHECK(impatient.status == 2);
  CHECK(impatient.err.find("did not answer the connection") != std::string::npos);
  close(s);

  published_engine engine;
  auto typo = run_client(engine.address(), {"ENABLE", "STREAM=0", "METRIC"});
  CHECK(typo.status == 2);
  CHECK(typo.err.find("not NAME=VALUE") != std::string::npos);
  auto early = run_client(engine.address(), {"CLOSE", "ID=$STREAM"});
  CHECK(early.status == 2);
  CHECK(early.err.find("$STREAM") != std::string::npos);

  // The engine goes away under a watching client: it says so and exits 2. The clients above
  // just closed their connections, which can cost the engine the next handshake (CAF 0.17,
  // docs/PROTOCOL.md §11 "No probe before connecting"): a watcher that ended before its first
  // reply is started once more.
  auto watch = [&] {
    return start_client(engine.address(),
                        {"--heartbeat-ms", "200", "--timeout-ms", "1500", "--watch", "STREAM"});
  };
  auto watcher = watch();
  auto replied = [&] {
    return eventually([&] { return replies_in(watcher->out()) == 1 || watcher->exited(); }) &&
           replies_in(watcher->out()) == 1;
  };
  if (!replied()) {
    WARN("the first watcher ended before its reply: " << watcher->err());
    watcher = watch();
  }
  INFO("watcher stderr: " << watcher->err());
  REQUIRE(replied());
  engine.proc().signal(SIGKILL);
  CHECK(watcher->wait() == 2);
  CHECK(watcher->err().find("was lost") != std::string::npos);
}

TEST_CASE("remote: a data source registers through the published interface, as a daemon will",
          "[remote]") {
  published_engine engine;
  REQUIRE(run_client(engine.address(), {"DEFINE", "NAME=cpu"}).status == 0);
  auto watcher =
      start_client(engine.address(), {"--watch"}, "STREAM\nENABLE STREAM=$STREAM METRIC=cpu\n");
  REQUIRE(eventually([&] { return replies_in(watcher->out()) == 2; }));

  // The source hears which MIs collect (MI 0, metric cpu, interval 0.2 s), and its samples
  // reach the watcher's stream.
  process source({PERFDM_REMOTE_PROBE, "source", std::to_string(engine.port())}, "",
                 "remote_source");
  CHECK(source.wait() == 0);
  CHECK(lines_of(source.out()) == std::vector<std::string>{"update 0.2 0=cpu", "ack 1 0"});
  CHECK(eventually([&] {
    return watcher->out().find(
               "<DYPER DATA='0'><V MI='0' PHASE='GLOBAL' BUCKET='0' VALUE='0.4'/>") !=
           std::string::npos;
  }));
}
