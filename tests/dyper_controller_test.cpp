// perfdm driven by DyPer's controller (engine --controller, docs/PROTOCOL.md §9): a server of
// our own that listens as DyPer's DymonDyperServer does and replays the original controller's
// start-up sequence and periodic cycle (../shared/dyper's wire transcript, mint's
// re-serialised forms included) against a real `perfdm engine --controller` observing a real
// program, over real loopback sockets.
#include <arpa/inet.h>
#include <netinet/in.h>

#include <catch2/catch.hpp>
#include <deque>
#include <regex>

#include "tests/dyper_schema.hpp"
#include "tests/gateway_test_support.hpp"
#include "tests/native_test_process.hpp"

using namespace perfdm;
using namespace perfdm::gateway_test;
using native_test::target_process;

namespace {

// The controller's socket server: it listens; the agent dials. Replies are paired with the
// oldest command not answered yet, as DymonDyperServer pairs them (there is no request id).
class dymon_server {
 public:
  explicit dymon_server(std::uint16_t port = 0) { listen_on(port); }
  ~dymon_server() {
    drop();
    if (listen_fd_ >= 0) ::close(listen_fd_);
  }

  std::uint16_t port() const { return port_; }

  // Stops listening and drops the connection: the controller died.
  void die() {
    drop();
    ::close(listen_fd_);
    listen_fd_ = -1;
  }
  void listen_on(std::uint16_t port) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(listen_fd_, 8) == 0);
    socklen_t len = sizeof a;
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }

  // Waits for the agent to dial.
  bool accept_agent(std::chrono::milliseconds limit = patience) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(limit.count())) != 1) return false;
    fd_ = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    splitter_ = std::make_unique<dyper_splitter>(std::size_t(1) << 30, true);
    frames_.clear();
    pending_.clear();
    closed_ = false;
    return fd_ >= 0;
  }

  void send_raw(const std::string& bytes) {
    REQUIRE(::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(bytes.size()));
  }
  // Sends commands (each framed, all in one write, as the server's mint relay may) and
  // remembers them for their replies.
  void command(const std::vector<std::string>& commands) {
    std::string bytes;
    for (auto& c : commands) {
      bytes += frame_message(c);
      pending_.push_back(c);
    }
    send_raw(bytes);
  }

  // The next frame the agent sent; false on timeout or EOF.
  bool next(dyper_frame& frame, std::chrono::milliseconds limit = patience) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (frames_.empty()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
      if (left <= 0 || closed_) return false;
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      char buf[65536];
      auto n = recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        closed_ = true;
        return false;
      }
      std::vector<dyper_frame> out;
      splitter_->feed(std::string_view(buf, static_cast<std::size_t>(n)), out);
      for (auto& f : out) frames_.push_back(std::move(f));
    }
    frame = std::move(frames_.front());
    frames_.pop_front();
    return true;
  }

  // The reply to the oldest command not answered; messages the agent pushed meanwhile
  // (REPORTs) go to `pushed`. Fails the test on a second reply to nothing.
  std::string reply(std::vector<std::string>* pushed = nullptr) {
    dyper_frame f;
    for (;;) {
      REQUIRE(next(f));
      if (f.kind == dyper_frame::reply) break;
      if (pushed) pushed->push_back(f.text);
    }
    REQUIRE_FALSE(pending_.empty());  // a reply with no command: every later one shifts
    pending_.pop_front();
    return f.text;
  }
  std::size_t unanswered() const { return pending_.size(); }
  bool closed() const { return closed_; }

 private:
  void drop() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int listen_fd_ = -1, fd_ = -1;
  std::uint16_t port_ = 0;
  bool closed_ = false;
  std::unique_ptr<dyper_splitter> splitter_;
  std::deque<dyper_frame> frames_;
  std::deque<std::string> pending_;
};

// `perfdm engine --controller 127.0.0.1:PORT --pid PID`, standard error to a file.
class agent_engine {
 public:
  agent_engine(std::uint16_t port, int pid) {
    err_path_ = temp_path("dyper_agent.err");
    log_path_ = temp_path("dyper_agent.log");
    pid_ = fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      int in = open("/dev/null", O_RDONLY);
      int err = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(in, STDIN_FILENO);
      dup2(err, STDERR_FILENO);
      dup2(err, STDOUT_FILENO);
      auto address = "127.0.0.1:" + std::to_string(port);
      auto target = std::to_string(pid);
      execl(PERFDM_BINARY, PERFDM_BINARY, "engine", "--controller", address.c_str(), "--pid",
            target.c_str(), "--log", log_path_.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~agent_engine() {
    stop();
    std::filesystem::remove(err_path_);
    std::filesystem::remove(log_path_);
  }
  std::string errors() const { return slurp(err_path_); }
  bool running() const {
    int status = 0;
    return pid_ > 0 && waitpid(pid_, &status, WNOHANG) == 0;
  }
  int stop() { return gateway_test::stop_child(pid_, status_); }

 private:
  pid_t pid_ = -1;
  int status_ = 0;
  std::string err_path_, log_path_;
};

std::string hostname() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

// A command as mint re-serialises DyPer's: attributes in alphabetical order, single quotes.
std::string cmd(const std::string& id, const std::string& command, const std::string& arg = "") {
  auto head = "<DYPER COMMAND='" + command + "' PID='" + id + "'";
  return arg.empty() ? head + " />" : head + ">" + arg + "</DYPER>";
}
std::string var(const std::string& id, const std::string& name, const std::string& value) {
  return cmd(id, "SET", "<VAR NAME='" + name + "' VALUE='" + value + "' />");
}
std::string agent(const std::string& id, const std::string& kind) {
  return cmd(id, "AGENT", "<AGENT CLASS='edu.brown.cs.dyvise.dyper.DyperAgent" + kind + "' />");
}

double attribute(const std::string& xml, const std::string& element, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(xml, m, std::regex("<" + element + " [^>]*?\\b" + name + "='([^']*)'")))
    return -1;
  return std::stod(m[1].str());
}

// The `<MONITOR …>…</MONITOR>` of a pushed REPORT.
std::string monitor_of(const std::string& report) {
  auto b = report.find("<MONITOR");
  auto e = report.rfind("</MONITOR>");
  if (b == std::string::npos || e == std::string::npos) return "";
  return report.substr(b, e + 10 - b);
}

// Waits for the next pushed REPORT (no reply may come meanwhile: none is owed).
std::string next_report(dymon_server& s, std::chrono::milliseconds limit = patience) {
  dyper_frame f;
  while (s.next(f, limit)) {
    REQUIRE(f.kind == dyper_frame::message);
    if (f.text.rfind("<DYPER REPORT=", 0) == 0) return f.text;
  }
  return "";
}

}  // namespace

TEST_CASE("DyPer's controller drives perfdm engine --controller as it drove its own agent",
          "[dyper][controller][live]") {
  target_process t;
  dymon_server server;
  agent_engine engine(server.port(), t.pid);
  const auto id = std::to_string(t.pid) + "@" + hostname();
  INFO(engine.errors());

  // The agent dials: CONNECT (a framed message, no reply), then START.
  REQUIRE(server.accept_agent());
  dyper_frame f;
  REQUIRE(server.next(f));
  CHECK(f.kind == dyper_frame::connect);
  CHECK(f.text == id);
  REQUIRE(server.next(f));
  CHECK(f.text == "<DYPER START='" + id + "' />");

  // The start-up sequence: WHORU, each agent waiting for its reply.
  server.command({cmd(id, "WHORU")});
  CHECK_THAT(server.reply(), Catch::StartsWith("<DYPER_REPLY ID='" + id + "'>") &&
                                 Catch::Contains("<START>") && !Catch::Contains("ERROR"));
  const std::vector<std::pair<std::string, std::string>> agents = {
      {"Cpu", "OK"}, {"Threads", "OK"}, {"Timing", "OK"},  {"Memory", "OK"},
      {"IO", "OK"},  {"Memory", ""},    {"Reaction", "OK"}};
  for (auto& [kind, answer] : agents) {
    server.command({agent(id, kind)});
    CHECK(server.reply() == "<DYPER_REPLY ID='" + id + "'>" + answer + "</DYPER_REPLY>");
  }
  // SET SETTINGS (REPORTTIME 10000 made 400 to keep the test short), CLASSES and SET MONITOR
  // in one write, SET REPORTING: sent without waiting.
  server.command({cmd(id, "SET",
                      "<SETTINGS>\n  <VAR NAME='CONTENTIONCHECK' VALUE='FALSE' />\n"
                      "  <VAR NAME='SHOWSTACK' VALUE='FALSE' />\n"
                      "  <VAR NAME='MONITOR' VALUE='TRUE' />\n"
                      "  <VAR NAME='REPORTTIME' VALUE='400' />\n"
                      "  <VAR NAME='DISABLETIME' VALUE='10000' />\n"
                      "  <VAR NAME='TIMINGCHECK' VALUE='FALSE' />\n"
                      "  <VAR NAME='AGENTS' VALUE='*' />\n"
                      "  <VAR NAME='CHECKTIME' VALUE='100' />\n</SETTINGS>\n")});
  server.command({cmd(id, "CLASSES",
                      "<CLASSES>\n  <PACKAGE NAME='apple.' TYPE='SYSTEM' />\n"
                      "  <PACKAGE NAME='com.sun.opengl.' TYPE='SYSTEM' />\n"
                      "  <PACKAGE NAME='javax.media.' TYPE='SYSTEM' />\n"
                      "  <PACKAGE NAME='com.apple.' TYPE='SYSTEM' />\n</CLASSES>\n"),
                  var(id, "MONITOR", "true")});
  server.command({var(id, "REPORTING", "false")});
  std::vector<std::string> pushed;
  for (int i = 0; i < 4; ++i) {
    auto r = server.reply(&pushed);
    CHECK_THAT(r, Catch::StartsWith("<DYPER_REPLY ID='" + id + "'>") && !Catch::Contains("ERROR"));
  }
  server.command({cmd(id, "PING")});
  CHECK(std::regex_match(server.reply(&pushed),
                         std::regex("<DYPER_REPLY ID='" + id + "'>PONG [0-9]+</DYPER_REPLY>")));

  // REPORTs every REPORTTIME (the first due one skipped), in DyPer's schema.
  std::vector<std::string> reports;
  for (auto& p : pushed)
    if (p.rfind("<DYPER REPORT=", 0) == 0) reports.push_back(p);
  while (reports.size() < 3) {
    auto r = next_report(server);
    REQUIRE_FALSE(r.empty());
    reports.push_back(r);
  }
  std::regex head("<DYPER REPORT='" + std::regex_replace(id, std::regex("\\."), "\\.") +
                  "' TIME='([0-9]+)'><MONITOR .*</MONITOR></DYPER>");
  std::vector<double> times;
  for (auto& r : reports) {
    std::smatch m;
    REQUIRE(std::regex_match(r, m, head));
    times.push_back(std::stod(m[1].str()));
  }
  CHECK(times[2] - times[1] >= 300);  // REPORTTIME 400, give or take the scheduling
  auto monitor = monitor_of(reports.back());
  auto problems = dyper_test::schema_problems(monitor, dyper_test::native_lacks());
  INFO(monitor.substr(0, 3000));
  for (auto& p : problems) FAIL_CHECK(p);
  // CHECKTIME 100 from SET SETTINGS is the sampler's mean delay now.
  CHECK(attribute(monitor, "MONITOR", "DELAYAVG") >= 90);
  CHECK(attribute(monitor, "MONITOR", "CHECKTIME") > 0);

  // The re-tuning cycle: SET CHECKTIME, SET REPORTTIME, SET CPUTIME sent together.
  server.command(
      {var(id, "CHECKTIME", "46"), var(id, "REPORTTIME", "200"), var(id, "CPUTIME", "TRUE")});
  for (int i = 0; i < 3; ++i)
    CHECK_THAT(server.reply(), Catch::StartsWith("<DYPER_REPLY ID='" + id + "'><SETTINGS>"));
  // Reports now come every 200 ms, and the sampler's delay follows CHECKTIME 46.
  std::string retuned;
  REQUIRE(eventually([&] {
    retuned = next_report(server);
    auto delay = attribute(monitor_of(retuned), "MONITOR", "DELAYAVG");
    return delay > 0 && delay < 80;
  }));
  auto before = attribute(retuned, "MONITOR", "TIME");
  auto after = attribute(next_report(server), "MONITOR", "TIME");
  CHECK(after - before >= 100);
  CHECK(after - before < 390);

  // SETDETAIL of DyPer's memory agent, GC, WHO: answered as DyPer's agent answers them.
  server.command(
      {cmd(id, "SETDETAIL", "<DETAIL AGENT='MEMORY' ITEM='ALLOC_SOURCE' VALUE='true' />"),
       cmd(id, "GC"), "<DYPER COMMAND='WHO' />"});
  CHECK(server.reply() == "<DYPER_REPLY ID='" + id + "'></DYPER_REPLY>");
  CHECK(server.reply() == "<DYPER_REPLY ID='" + id + "'>NOT FOUND</DYPER_REPLY>");
  CHECK(server.reply() ==
        "<DYPER_REPLY ID='" + id + "'><DYPER_REPLY ID='" + id + "' ACTIVE='true' /></DYPER_REPLY>");
  CHECK(server.unanswered() == 0);

  // The controller dies and comes back on its port: the agent dials again.
  auto port = server.port();
  server.die();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  REQUIRE(engine.running());
  server.listen_on(port);
  REQUIRE(server.accept_agent());
  REQUIRE(server.next(f));
  CHECK(f.kind == dyper_frame::connect);
  REQUIRE(server.next(f));
  CHECK(f.text == "<DYPER START='" + id + "' />");
  server.command({cmd(id, "PING")});
  CHECK_THAT(server.reply(), Catch::Contains(">PONG "));

  // The process exits: END, then the agent closes; the engine serves on until SIGTERM.
  t.stop();
  bool ended = false;
  while (server.next(f)) ended = ended || f.text == "<DYPER END='" + id + "' />";
  CHECK(ended);
  CHECK(server.closed());
  CHECK(engine.running());
  CHECK(engine.stop() == 0);
}

TEST_CASE("engine --controller: no controller at first costs nothing but retries",
          "[dyper][controller][live]") {
  target_process t;
  // A port nobody listens on yet: the engine keeps running and keeps dialing.
  std::uint16_t port = 0;
  {
    dymon_server probe;
    port = probe.port();
    probe.die();
  }
  agent_engine engine(port, t.pid);
  REQUIRE(eventually([&] { return engine.errors().find("dialing again") != std::string::npos; }));
  CHECK(engine.running());
  dymon_server server(port);
  REQUIRE(server.accept_agent());
  dyper_frame f;
  REQUIRE(server.next(f));
  CHECK(f.kind == dyper_frame::connect);
  CHECK(engine.stop() == 0);
}
