// Recording a live engine (`perfdm engine --record`) and replaying the recording: a real
// `perfdm engine --listen` process with the bundled workload attached, one front end on its
// standard input and one over TCP, then `perfdm replay` of what it recorded. The replay must
// print, stream by stream, the very events the live clients received, and for every request a
// front end sent that replay can run, the very reply it got.
#include <fcntl.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <cstdio>
#include <map>
#include <optional>
#include <regex>

#include "tests/gateway_test_support.hpp"
#include "tests/live_engine_test_support.hpp"

using namespace perfdm;
using namespace perfdm::gateway_test;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The stream a stream event belongs to; -1 for any other line (replies, START/END, REPORT).
int event_stream(const std::string& line) {
  static const std::regex event(
      "^<DYPER (DATA|FOLD|NEWPHASE|SAMPLERATE|NEWMETRIC|NEWRESOURCE)='([0-9]+)'");
  std::smatch m;
  return std::regex_search(line, m, event) ? std::stoi(m[2].str()) : -1;
}

bool is_reply(const std::string& line) {
  return line.rfind("<DYPER_REPLY", 0) == 0;
}

// One request as the recording holds it: who sent it, and its line when replay runs it.
struct recorded_request {
  std::string origin;
  std::optional<std::string> line;  // none: a comment (a live process's request, LOG)
};

// The requests of a recording, in order (docs/PROTOCOL.md §6): `# t=T ORIGIN` before each
// line replay runs; `# t=T ORIGIN: live process only: …` and `…: answered by the front end: …`
// for those it cannot run. Other comments are notes, not requests.
std::vector<recorded_request> read_recording(const std::string& text) {
  static const std::regex header("^# t=[^ ]+ ([^:]+)$");
  static const std::regex unrun(
      "^# t=[^ ]+ ([^:]+): (live process only|answered by the front end): ");
  std::vector<recorded_request> out;
  std::string origin;
  for (auto& line : lines_of(text)) {
    std::smatch m;
    if (std::regex_search(line, m, header)) {
      origin = m[1].str();
    } else if (std::regex_search(line, m, unrun)) {
      out.push_back({m[1].str(), std::nullopt});
    } else if (!line.empty() && line[0] != '#') {
      REQUIRE_FALSE(origin.empty());
      out.push_back({origin, line});
      origin.clear();
    }
  }
  return out;
}

// What a replay printed, taken apart: the events of each stream in order, and the reply to
// each line it ran.
struct replay_output {
  std::map<int, std::vector<std::string>> events;
  std::vector<std::string> replies;
};

replay_output split_replay(const std::string& text) {
  replay_output out;
  for (auto& line : lines_of(text)) {
    if (is_reply(line))
      out.replies.push_back(line);
    else if (int s = event_stream(line); s >= 0)
      out.events[s].push_back(line);
    else
      FAIL("replay printed a line that is neither a reply nor a stream event: " << line);
  }
  return out;
}

// `perfdm engine --listen 127.0.0.1:0 --record FILE` with standard input from a pipe the test
// writes and standard output to a file the test reads.
class recording_engine {
 public:
  recording_engine(const std::string& name, const std::string& base_width) {
    out_path_ = temp_path(name + ".out");
    err_path_ = temp_path(name + ".err");
    record_path_ = temp_path(name + ".replay");
    log_path_ = temp_path(name + ".log");
    int in[2];
    REQUIRE(pipe(in) == 0);
    pid_ = fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      int out = open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int err = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(in[0], STDIN_FILENO);
      dup2(out, STDOUT_FILENO);
      dup2(err, STDERR_FILENO);
      close(in[1]);
      execl(PERFDM_BINARY, PERFDM_BINARY, "engine", "--listen", "127.0.0.1:0", "--record",
            record_path_.c_str(), "--base-width", base_width.c_str(), "--log", log_path_.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    close(in[0]);
    stdin_ = in[1];
    const std::string marker = "perfdm: listening on 127.0.0.1:";
    REQUIRE(eventually([&] {
      auto text = slurp(err_path_);
      auto at = text.find(marker);
      if (at == std::string::npos || text.find('\n', at) == std::string::npos) return false;
      port_ = static_cast<std::uint16_t>(std::stoul(text.substr(at + marker.size())));
      return true;
    }));
  }
  ~recording_engine() {
    stop();
    for (auto& p : {out_path_, err_path_, record_path_, log_path_}) std::filesystem::remove(p);
  }

  // Writes one request to standard input and returns its reply, read from standard output.
  std::string ask(const std::string& request) {
    auto before = replies().size();
    auto line = request + "\n";
    REQUIRE(write(stdin_, line.data(), line.size()) == static_cast<ssize_t>(line.size()));
    REQUIRE(eventually([&] { return replies().size() > before; }));
    return replies()[before];
  }

  std::vector<std::string> replies() const {
    std::vector<std::string> out;
    for (auto& l : lines_of(slurp(out_path_)))
      if (is_reply(l)) out.push_back(l);
    return out;
  }
  std::vector<std::string> events() const {
    std::vector<std::string> out;
    for (auto& l : lines_of(slurp(out_path_)))
      if (event_stream(l) >= 0) out.push_back(l);
    return out;
  }

  // Standard input ends and SIGTERM: the engine writes its log and exits.
  void stop() {
    if (stdin_ >= 0) close(stdin_);
    stdin_ = -1;
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    int status = 0;
    if (!eventually([&] { return waitpid(pid_, &status, WNOHANG) == pid_; })) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }

  std::uint16_t port() const { return port_; }
  std::string recording() const { return slurp(record_path_); }
  std::string output() const { return slurp(out_path_); }
  const std::string& recording_path() const { return record_path_; }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  std::uint16_t port_ = 0;
  std::string out_path_, err_path_, record_path_, log_path_;
};

std::string run_replay(const std::string& file, const std::string& base_width) {
  auto command = std::string(PERFDM_BINARY) + " replay --base-width " + base_width + " " + file;
  FILE* p = popen(command.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[65536];
  while (auto n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  REQUIRE(pclose(p) == 0);
  return out;
}

int count_containing(const std::vector<std::string>& lines, const std::string& what) {
  int n = 0;
  for (auto& l : lines) n += l.find(what) != std::string::npos;
  return n;
}

}  // namespace

TEST_CASE("record: a live run over stdin and TCP replays to what its clients received",
          "[record][gateway]") {
  // 2 ms buckets: the global histograms fill their 1000 buckets in 2 s and fold.
  const std::string width = "0.002";
  perfdm::test::workload w;
  recording_engine engine("record", width);
  auto pid = std::to_string(w.pid);
  auto process = "/Process/perfdm_workload{" + pid + "}";

  REQUIRE_THAT(engine.ask(dm("ATTACH", "<PROCESS PID='" + pid + "'/>")),
               Catch::Contains("FRAMES='work'"));
  REQUIRE(engine.ask(dm("STREAM")) == "<DYPER_REPLY ID='DM'><STREAM ID='0'/></DYPER_REPLY>");
  REQUIRE_THAT(engine.ask(dm("ENABLE",
                             "<ENABLE STREAM='0' METRIC='work.requests' "
                             "PHASE='GLOBAL' PERSISTENT_DATA='true'/>")),
               Catch::Contains("<MI ID='0'"));

  client tcp(engine.port());
  std::vector<std::string> tcp_events;
  std::vector<std::string> tcp_replies;
  auto tcp_ask = [&](const std::string& request) {
    tcp_replies.push_back(tcp.ask(request, &tcp_events));
    return tcp_replies.back();
  };
  REQUIRE(tcp_ask(dm("STREAM")) == "<DYPER_REPLY ID='DM'><STREAM ID='1'/></DYPER_REPLY>");
  auto enable_latency =
      dm("ENABLE", "<ENABLE STREAM='1' METRIC='work.latency_us' FOCUS='" + process +
                       "/work' PHASE='CURRENT' PERSISTENT_DATA='true'/>");
  REQUIRE_THAT(tcp_ask(enable_latency), Catch::Contains("<MI ID='1'"));
  CHECK_THAT(tcp_ask("not a request"), Catch::Contains("ERROR='BAD_XML'"));

  // Samples arrive and the global histogram folds (1000 buckets of 2 ms filled).
  REQUIRE(eventually([&] { return count_containing(engine.events(), "<DYPER FOLD='0'") > 0; }));
  REQUIRE_THAT(engine.ask(dm("PHASE", "<PHASE NAME='watching'/>")), Catch::Contains("ID='1'"));
  REQUIRE_THAT(tcp_ask(enable_latency), Catch::Contains("<MI ID='1'"));
  auto data_events = [&] { return count_containing(engine.events(), "<DYPER DATA='0'"); };
  auto seen = data_events();
  REQUIRE(eventually([&] { return data_events() > seen + 10; }));
  CHECK_THAT(tcp_ask(dm("DATA", "<DATA MI='0' PHASE='GLOBAL'/>")), Catch::Contains("<HISTOGRAM"));
  REQUIRE_THAT(engine.ask(dm("DETACH", "<PROCESS PID='" + pid + "'/>")),
               Catch::Contains("ACTIVE='false'"));
  // The source sends what it read last, then stops: nothing changes the data manager after.
  REQUIRE(eventually([&] {
    return engine.recording().find("source " + process + ": stopped sending") != std::string::npos;
  }));
  CHECK_THAT(engine.ask(dm("DATA", "<DATA MI='1' PHASE='0'/>")), Catch::Contains("<HISTOGRAM"));
  CHECK_THAT(tcp_ask(dm("STATUS")), Catch::Contains("<STATUS"));
  CHECK_THAT(engine.ask(dm("STATUS")), Catch::Contains("<STATUS"));
  // DyPer's announcements reach standard input too (the TCP client connected after ATTACH).
  auto stdin_output = "\n" + engine.output();
  CHECK_THAT(stdin_output, Catch::Contains("\n<DYPER START='" + pid + "'/>\n"));
  CHECK_THAT(stdin_output, Catch::Contains("\n<DYPER END='" + pid + "'/>\n"));
  auto stdin_replies = engine.replies();
  auto stdin_events = engine.events();
  engine.stop();

  auto recording = engine.recording();
  auto requests = read_recording(recording);
  auto replayed = split_replay(run_replay(engine.recording_path(), width));

  // Stream by stream, the same events, in the same order: every bucket's value, every fold.
  std::vector<std::string> tcp_stream_events;
  for (auto& e : tcp_events)
    if (event_stream(e) >= 0) tcp_stream_events.push_back(e);
  REQUIRE(replayed.events.size() == 2);
  CHECK(replayed.events[0] == stdin_events);
  CHECK(replayed.events[1] == tcp_stream_events);
  CHECK(count_containing(stdin_events, "FOLD") > 0);
  CHECK(count_containing(tcp_stream_events, "<DYPER DATA='1'") > 0);
  CHECK(count_containing(stdin_events, "NEWPHASE") == 1);

  // Each front end's requests are all in the recording, in its order; each one replay runs
  // gets the reply the front end got.
  std::map<std::string, std::vector<std::string>> live_replies{{"stdin", stdin_replies}};
  std::map<std::string, std::size_t> next;
  std::size_t line = 0;
  std::string tcp_origin;
  for (auto& r : requests) {
    if (r.origin.rfind("tcp ", 0) == 0) {
      if (tcp_origin.empty()) {
        tcp_origin = r.origin;
        live_replies[tcp_origin] = tcp_replies;
      }
      REQUIRE(r.origin == tcp_origin);
    }
    if (r.line) {
      REQUIRE(line < replayed.replies.size());
      auto& reply = replayed.replies[line++];
      if (auto i = live_replies.find(r.origin); i != live_replies.end()) {
        REQUIRE(next[r.origin] < i->second.size());
        CHECK(reply == i->second[next[r.origin]]);
      } else {
        // A data source's DEFINE or SAMPLES: nobody printed its reply live.
        CHECK(r.origin == "source " + process);
      }
    }
    if (live_replies.count(r.origin)) ++next[r.origin];
  }
  CHECK(line == replayed.replies.size());
  CHECK(next["stdin"] == stdin_replies.size());
  REQUIRE_FALSE(tcp_origin.empty());
  CHECK(next[tcp_origin] == tcp_replies.size());
  // ATTACH and DETACH are kept as comments; their effects (DEFINEs, SAMPLES) as requests.
  CHECK_THAT(recording, Catch::Contains("stdin: live process only: <DYPER PID='DM' "
                                        "COMMAND='ATTACH'><PROCESS PID='" +
                                        pid + "'"));
  CHECK_THAT(recording, Catch::Contains("COMMAND='SAMPLES'"));
}
