// The DyPer gateway end to end: a real `perfdm engine --listen` process, real sockets on
// 127.0.0.1 (tests/gateway_test_support.hpp).
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdio>
#include <regex>

#include "tests/gateway_test_support.hpp"

using namespace perfdm;
using namespace perfdm::gateway_test;

namespace {

// Every DM command, errors included: the walk-through session of docs/PROTOCOL.md.
const std::vector<std::string> every_command = walkthrough_and({
    "<DYPER PID='1234' COMMAND='WHORU'/>",
    dm("ENABLE", "<ENABLE STREAM='9' METRIC='cpu'/>"),
    "hello",
    dm("CLOSE", "<STREAM ID='0'/>"),
    dm("CLOSE", "<STREAM ID='0'/>"),
});

int shell(const std::string& command) {
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("gateway: every DM command answers over TCP exactly as replay prints it", "[gateway]") {
  engine_process engine("every");
  client c(engine.port());
  std::vector<std::string> got;
  for (auto& r : every_command) {
    auto reply = c.ask(r, &got);
    got.push_back(reply);
  }
  auto expected = replayed(every_command);
  REQUIRE(expected.size() > every_command.size());  // events as well as replies
  CHECK(got == expected);
}

TEST_CASE("gateway: PING, WHO and LOG", "[gateway]") {
  engine_process engine("ping");
  client c(engine.port());
  c.send_raw("CONNECT test-client\n");  // DyPer's optional first line: no reply
  CHECK(c.ask(dm("PING")) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
  CHECK(c.ask("<DYPER PID='dm' COMMAND='ping'/>") == "<DYPER_REPLY ID='dm'>PONG</DYPER_REPLY>");
  CHECK(c.ask("<DYPER COMMAND='WHO'/>") == "<DYPER_REPLY ID=''></DYPER_REPLY>");
  CHECK(c.ask("<DYPER PID='4711' COMMAND='WHO'/>") == "<DYPER_REPLY ID='4711'></DYPER_REPLY>");
  CHECK(c.ask("<DYPER PID='4711' COMMAND='PING'/>") ==
        "<DYPER_REPLY ID='4711' ERROR='UNKNOWN_TARGET'>no process &apos;4711&apos; is "
        "known</DYPER_REPLY>");

  c.ask(dm("DEFINE", "<METRIC NAME='cpu'/>"));
  auto log = temp_path("ping-log.log");
  auto reply = c.ask(dm("LOG", "<LOG FILE='" + log + "'/>"));
  std::smatch m;
  REQUIRE(std::regex_match(reply, m,
                           std::regex("<DYPER_REPLY ID='DM'><LOG FILE='(.*)' "
                                      "BYTES='([0-9]+)'/></DYPER_REPLY>")));
  CHECK(m[1] == log);
  REQUIRE(std::filesystem::exists(log));
  CHECK(std::filesystem::file_size(log) == std::stoull(m[2]));
  auto printed = temp_path("ping-log.txt");
  CHECK(shell(std::string(PERFDM_BINARY) + " log " + log + " >" + printed) == 0);
  CHECK(slurp(printed).find("cpu") != std::string::npos);
  std::filesystem::remove(printed);
  std::filesystem::remove(log);

  auto bad = c.ask(dm("LOG", "<LOG FILE='/nonexistent-dir/x.log'/>"));
  CHECK(bad.find("ERROR='INTERNAL'") != std::string::npos);
  CHECK(c.ask(dm("PING")) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
}

TEST_CASE("gateway: stream events go to the connection that opened the stream", "[gateway]") {
  engine_process engine("events");
  client a(engine.port()), b(engine.port());
  CHECK(a.ask(dm("STREAM")) == "<DYPER_REPLY ID='DM'><STREAM ID='0'/></DYPER_REPLY>");
  CHECK(b.ask(dm("STREAM")) == "<DYPER_REPLY ID='DM'><STREAM ID='1'/></DYPER_REPLY>");

  // B's DEFINE: B hears of it on its stream before the reply, A as an unsolicited event.
  std::vector<std::string> b_events;
  b.ask(dm("DEFINE", "<METRIC NAME='cpu'/>"), &b_events);
  CHECK(b_events == std::vector<std::string>{
                        "<DYPER NEWMETRIC='1' ID='0' NAME='cpu' STYLE='COUNTER' UNITS=''/>"});
  auto pushed = a.next();
  CHECK(pushed.kind == dyper_frame::message);
  CHECK(pushed.text == "<DYPER NEWMETRIC='0' ID='0' NAME='cpu' STYLE='COUNTER' UNITS=''/>");

  // Only A subscribes: B's samples become DATA on A's connection only.
  auto enabled = a.ask(dm("ENABLE", "<ENABLE STREAM='0' METRIC='cpu'/>"));
  CHECK(enabled.find("<MI ID='0'") != std::string::npos);
  std::vector<std::string> b_data;
  b.ask(dm("SAMPLES", "<SAMPLES><S MI='0' START='0' END='0.5' VALUE='5'/></SAMPLES>"), &b_data);
  CHECK(b_data.empty());
  auto data = a.next();
  CHECK(data.kind == dyper_frame::message);
  CHECK(data.text ==
        "<DYPER DATA='0'><V MI='0' PHASE='GLOBAL' BUCKET='0' VALUE='2'/>"
        "<V MI='0' PHASE='GLOBAL' BUCKET='1' VALUE='2'/></DYPER>");
  // A's next reply comes after what was pushed to it, nothing is lost or duplicated.
  CHECK(a.ask(dm("PING")) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
  dyper_frame extra;
  CHECK_FALSE(b.try_next(extra, std::chrono::milliseconds(200)));
}

TEST_CASE("gateway: 50 clients x 1000 requests, every reply in order on its connection",
          "[gateway][load]") {
  engine_process engine("load");
  constexpr int clients = 50, requests = 1000;
  std::atomic<int> bad{0}, good{0};
  std::vector<std::string> failures(clients);
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c)
    threads.emplace_back([&, c] {
      try {
        client k(engine.port());
        std::string batch;
        auto name = [&](int i) { return "c" + std::to_string(c) + "_m" + std::to_string(i); };
        for (int i = 0; i < requests; ++i)
          batch += frame_message(dm("DEFINE", "<METRIC NAME='" + name(i) + "' UNITS='u'/>"));
        // All requests at once (pipelined); the replies must still come one per request.
        std::thread writer([&] { k.send_raw(batch); });
        const std::regex reply(
            "<DYPER_REPLY ID='DM'><METRIC ID='[0-9]+' NAME='([^']*)' "
            "STYLE='COUNTER' UNITS='u'/></DYPER_REPLY>");
        int i = 0;
        for (; i < requests; ++i) {
          auto f = k.next();
          std::smatch m;
          if (f.kind != dyper_frame::reply || !std::regex_match(f.text, m, reply) ||
              m[1] != name(i)) {
            failures[c] = "reply " + std::to_string(i) + ": " + f.text;
            break;
          }
        }
        writer.join();
        (i == requests ? good : bad)++;
      } catch (const std::exception& e) {
        failures[c] = e.what();
        bad++;
      }
    });
  for (auto& t : threads) t.join();
  for (auto& f : failures)
    if (!f.empty()) FAIL_CHECK(f);
  CHECK(good == clients);
  CHECK(bad == 0);
  // Every metric exists once: 50 000 distinct handles.
  client check(engine.port());
  auto metrics = check.ask(dm("METRICS"));
  std::size_t count = 0;
  for (auto at = metrics.find("<METRIC "); at != std::string::npos;
       at = metrics.find("<METRIC ", at + 1))
    ++count;
  CHECK(count == clients * requests);
}

TEST_CASE(
    "gateway: bad framing, a huge message and invalid UTF-8 get errors, and the "
    "engine serves on",
    "[gateway]") {
  engine_process engine("bad");
  client c(engine.port()), other(engine.port());

  c.send_raw("<DYPER PID='DM' COMMAND='PING'/>\nENDDYPERREPLY\n");
  auto f = c.next();
  CHECK(f.kind == dyper_frame::reply);
  CHECK(f.text.find("ERROR='BAD_XML'") != std::string::npos);
  CHECK(f.text.find("ENDDYPERREPLY") != std::string::npos);

  // No trailer yet: nothing is answered; the next trailer ends it.
  c.send_raw("<DYPER PID='DM' COMMAND='PING'/>\n");
  CHECK(other.ask(dm("PING")) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
  c.send_raw("ENDDYPERMSG\n");
  CHECK(c.next().text == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");

  // 17 MiB in lines of 1 MiB: LIMIT as soon as it is past 16 MiB, the rest skipped.
  const std::string mib(1 << 20, 'x');
  for (int i = 0; i < 17; ++i) c.send_raw(mib + "\n");
  auto limit = c.next();
  CHECK(limit.text.find("ERROR='LIMIT'") != std::string::npos);
  CHECK(limit.text.find("16777216") != std::string::npos);
  for (int i = 0; i < 3; ++i) c.send_raw(mib + "\n");  // still the same message
  c.send_raw("ENDDYPERMSG\n");
  CHECK(c.ask(dm("PING")) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");

  // One endless line (no newline at all) is refused too, without holding it.
  for (int i = 0; i < 20; ++i) c.send_raw(mib);
  CHECK(c.next().text.find("ERROR='LIMIT'") != std::string::npos);
  c.send_raw("\nENDDYPERMSG\n");
  CHECK(c.ask(dm("PING")) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");

  // Invalid UTF-8: a lone continuation byte, an overlong '/', a surrogate.
  for (std::string bad : {"\x80", "\xC0\xAF", "\xED\xA0\x80"}) {
    auto reply = c.ask(dm("DEFINE", "<METRIC NAME='a" + bad + "'/>"));
    CHECK(reply.find("ERROR='BAD_XML'") != std::string::npos);
    CHECK(reply.find("UTF-8") != std::string::npos);
  }
  // Valid UTF-8 is a name like any other.
  CHECK(c.ask(dm("DEFINE", "<METRIC NAME='temps_\xC3\xA9t\xC3\xA9'/>"))
            .find("NAME='temps_\xC3\xA9t\xC3\xA9'") != std::string::npos);

  // A connection closed in the middle of a message gets nothing, and is noted.
  {
    client partial(engine.port());
    partial.send_raw("<DYPER PID='DM' COMMAND='STA");
    CHECK(partial.ask(dm("PING")).find("ERROR") != std::string::npos);  // one message so far
    partial.send_raw("<DYPER PID='DM' COMMAND='STATUS'/>\n");
  }
  CHECK(
      eventually([&] { return engine.errors().find("middle of a message") != std::string::npos; }));
  CHECK(other.ask(dm("PING")) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
  CHECK(engine.alive());
  CHECK(engine.stop() == 0);
}

TEST_CASE("gateway: a client that disconnects has its streams closed (T3, D1-D3)",
          "[gateway][T3]") {
  engine_process engine("t3");
  client watcher(engine.port());
  watcher.ask(dm("DEFINE", "<METRIC NAME='cpu'/>"));
  watcher.ask(dm("DEFINE", "<METRIC NAME='mem' STYLE='SAMPLED'/>"));
  watcher.ask(dm("DEFINE", "<METRIC NAME='io'/>"));
  CHECK(watcher.ask(dm("STREAM")) == "<DYPER_REPLY ID='DM'><STREAM ID='0'/></DYPER_REPLY>");
  // MI 0 (io) is also used by the watcher's stream: it stays, collecting (D3).
  CHECK(watcher.ask(dm("ENABLE", "<ENABLE STREAM='0' METRIC='io'/>")).find("MI ID='0'") !=
        std::string::npos);
  {
    client leaver(engine.port());
    CHECK(leaver.ask(dm("STREAM")) == "<DYPER_REPLY ID='DM'><STREAM ID='1'/></DYPER_REPLY>");
    // MI 1 (cpu): no flags, deleted (D1); MI 2 (mem): persistent data, kept but no longer
    // collecting (D2).
    CHECK(leaver.ask(dm("ENABLE", "<ENABLE STREAM='1' METRIC='cpu'/>")).find("MI ID='1'") !=
          std::string::npos);
    CHECK(leaver.ask(dm("ENABLE", "<ENABLE STREAM='1' METRIC='mem' PERSISTENT_DATA='true'/>"))
              .find("MI ID='2'") != std::string::npos);
    CHECK(leaver.ask(dm("ENABLE", "<ENABLE STREAM='1' METRIC='io'/>")).find("MI ID='0'") !=
          std::string::npos);
    auto before = status_mis(watcher.ask(dm("STATUS")));
    REQUIRE(before.size() == 3);
    CHECK(before["0"].find("GLOBAL_USERS='0 1'") != std::string::npos);
    CHECK(before["1"].find("GLOBAL_USERS='1'") != std::string::npos);
  }  // the leaver disconnects without CLOSE
  std::map<std::string, std::string> after;
  CHECK(eventually([&] {
    after = status_mis(watcher.ask(dm("STATUS")));
    return after.count("1") == 0;
  }));
  REQUIRE(after.size() == 2);
  CHECK(after["0"].find("GLOBAL_USERS='0'") != std::string::npos);
  CHECK(after["0"].find("COLLECTING='true'") != std::string::npos);
  CHECK(after["2"].find("GLOBAL_USERS=''") != std::string::npos);
  CHECK(after["2"].find("PERSISTENT_DATA='true'") != std::string::npos);
  CHECK(after["2"].find("COLLECTING='false'") != std::string::npos);
  // The stream itself is gone.
  CHECK(watcher.ask(dm("CLOSE", "<STREAM ID='1'/>")) ==
        "<DYPER_REPLY ID='DM' ERROR='UNKNOWN_HANDLE'>stream 1 was closed</DYPER_REPLY>");
}

TEST_CASE("perfdm send: replies and events one per line, exit codes", "[gateway][send]") {
  engine_process engine("send");
  const std::string send =
      std::string(PERFDM_BINARY) + " send 127.0.0.1:" + std::to_string(engine.port());
  auto out = temp_path("send.out");
  auto in = temp_path("send.in");

  CHECK(shell(send + " \"<DYPER PID='DM' COMMAND='PING'/>\" >" + out) == 0);
  CHECK(slurp(out) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>\n");

  CHECK(shell(send + " \"<DYPER PID='DM' COMMAND='NOPE'/>\" >" + out) == 1);
  CHECK(slurp(out).find("ERROR='UNKNOWN_COMMAND'") != std::string::npos);

  {
    std::ofstream f(in);
    f << "# a comment\n\n" << dm("STREAM") << "\n" << dm("DEFINE", "<METRIC NAME='cpu'/>") << "\n";
  }
  CHECK(shell(send + " <" + in + " >" + out) == 0);
  CHECK(
      slurp(out) ==
      "<DYPER_REPLY ID='DM'><STREAM ID='0'/></DYPER_REPLY>\n"
      "<DYPER NEWMETRIC='0' ID='0' NAME='cpu' STYLE='COUNTER' UNITS=''/>\n"
      "<DYPER_REPLY ID='DM'><METRIC ID='0' NAME='cpu' STYLE='COUNTER' UNITS=''/></DYPER_REPLY>\n");

  // One error among successes: every reply printed, exit 1.
  {
    std::ofstream f(in);
    f << dm("PING") << "\nnot xml\n" << dm("PING") << "\n";
  }
  CHECK(shell(send + " <" + in + " >" + out) == 1);
  CHECK(lines_of(slurp(out)).size() == 3);

  // Nobody listening, or not an address: exit 2.
  CHECK(shell(std::string(PERFDM_BINARY) + " send 127.0.0.1:1 \"<DYPER PID='DM' "
                                           "COMMAND='PING'/>\" 2>/dev/null") == 2);
  CHECK(shell(std::string(PERFDM_BINARY) + " send nowhere \"x\" 2>/dev/null") == 2);

  // --watch: events keep coming until SIGTERM.
  {
    auto watch_out = temp_path("watch.out");
    pid_t pid = fork();
    if (pid == 0) {
      int fd = open(watch_out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, STDOUT_FILENO);
      auto address = "127.0.0.1:" + std::to_string(engine.port());
      execl(PERFDM_BINARY, PERFDM_BINARY, "send", address.c_str(), dm("STREAM").c_str(), "--watch",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    REQUIRE(
        eventually([&] { return slurp(watch_out).find("<STREAM ID='1'/>") != std::string::npos; }));
    client definer(engine.port());
    definer.ask(dm("DEFINE", "<METRIC NAME='watched'/>"));
    CHECK(eventually([&] {
      return slurp(watch_out).find("NEWMETRIC='1' ID='1' NAME='watched'") != std::string::npos;
    }));
    kill(pid, SIGTERM);
    int status = 0;
    REQUIRE(eventually([&] { return waitpid(pid, &status, WNOHANG) == pid; }));
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    std::filesystem::remove(watch_out);
  }
  std::filesystem::remove(out);
  std::filesystem::remove(in);
}

TEST_CASE("gateway: DyPer's agent's CONNECT frame and empty messages get no reply",
          "[gateway][dyper]") {
  engine_process engine("connect_frame");
  client c(engine.port());
  // As DyPer's agent opens: CONNECT as a framed message of its own; then an empty message,
  // CR line ends, and a PING whose reply must be the first one.
  c.send_raw("CONNECT 12569@localhost\nENDDYPERMSG\nENDDYPERMSG\r\n\r");
  c.send_raw("<DYPER PID='DM' COMMAND='PING'/>\rENDDYPERMSG\r");
  CHECK(c.next().text == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
  dyper_frame f;
  CHECK_FALSE(c.try_next(f, std::chrono::milliseconds(200)));  // nothing else was answered
}
