// DyPer's per-process commands and DYPATCH through the session, against the bundled workload
// attached for real: every command, its reply, its refusals (bad values, unknown names,
// unknown pid, unknown command), and the state a command leaves for the next.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>

#include "dyper/process_commands.hpp"
#include "cli/xml_session.hpp"
#include "tests/live_engine_test_support.hpp"

using namespace perfdm;

namespace {

// Its environment and arguments are what WHORU must report.
struct workload : test::workload {
  workload() : test::workload({"0", "extra arg"}, {"PERFDM_PROCCMD_TEST", "a value <&>"}) {}
};
using engine = test::live_engine;

std::string request(int pid, const std::string& command, const std::string& arg = "",
                    const char* envelope = "DYPER") {
  return "<" + std::string(envelope) + " PID='" + std::to_string(pid) + "' COMMAND='" + command +
         "'>" + arg + "</" + envelope + ">";
}

std::string attach(engine& e, int pid) {
  return e.reply("<DYPER PID='DM' COMMAND='ATTACH'><PROCESS PID='" + std::to_string(pid) +
                 "'/></DYPER>");
}

std::string reply_head(int pid, const char* envelope = "DYPER_REPLY") {
  return "<" + std::string(envelope) + " ID='" + std::to_string(pid) + "'";
}

}  // namespace

TEST_CASE("process commands need an attached process, others stay UNKNOWN_TARGET",
          "[process_commands]") {
  workload w;
  engine e;
  auto head = reply_head(w.pid);
  CHECK_THAT(e.reply(request(w.pid, "PING")), Catch::StartsWith(head + " ERROR='UNKNOWN_TARGET'"));
  CHECK_THAT(e.reply(request(w.pid, "PING", "", "DYPATCH")),
             Catch::StartsWith(reply_head(w.pid, "DYPATCH_REPLY") + " ERROR='UNKNOWN_TARGET'"));
  CHECK_THAT(e.reply("<DYPER PID='abc' COMMAND='PING'/>"),
             Catch::StartsWith("<DYPER_REPLY ID='abc' ERROR='UNKNOWN_TARGET'"));
  REQUIRE_THAT(attach(e, w.pid), Catch::Contains("FRAMES='work'"));
  CHECK(e.reply(request(w.pid, "PING")) == head + ">PONG 0</DYPER_REPLY>");
  CHECK_THAT(e.reply(request(w.pid + 1000000, "PING")), Catch::Contains("ERROR='UNKNOWN_TARGET'"));
  CHECK_THAT(e.reply(request(w.pid, "FROB")), Catch::StartsWith(head + " ERROR='UNKNOWN_COMMAND'"));
  CHECK_THAT(e.reply(request(w.pid, "PING", "<X/>")), Catch::Contains("ERROR='BAD_ARGUMENT'"));
}

TEST_CASE("WHORU, CLEAR, CLASSMODEL and USETHREAD read the process", "[process_commands]") {
  workload w;
  engine e;
  REQUIRE_THAT(attach(e, w.pid), Catch::Contains("FRAMES='work'"));
  auto head = reply_head(w.pid);

  auto whoru = e.reply(request(w.pid, "WHORU"));
  CHECK_THAT(whoru, Catch::StartsWith(head + ">"));
  CHECK_THAT(whoru, Catch::Contains("<ARG>0</ARG><ARG>extra arg</ARG>"));
  CHECK_THAT(whoru, Catch::Contains("<ENV KEY='PERFDM_PROCCMD_TEST'>a value &lt;&amp;&gt;</ENV>"));
  CHECK_THAT(whoru, Catch::Contains("<EXECUTABLE>" +
                                    std::filesystem::canonical(PERFDM_WORKLOAD).string()));
  std::smatch m;
  REQUIRE(std::regex_search(whoru, m, std::regex("<TIME MILLIS='([0-9]+)' NANO='([0-9]+)'/>")));
  auto started = std::stoll(m[1].str());
  CHECK(std::abs(started - epoch_now_ms()) < 120'000);  // started within this test
  CHECK(std::stoll(m[2].str()) / 1'000'000 == started);

  auto before = epoch_now_ms();
  auto clear = e.reply(request(w.pid, "CLEAR"));
  REQUIRE(std::regex_search(clear, m, std::regex(">([0-9]+)</DYPER_REPLY>")));
  CHECK(std::stoll(m[1].str()) >= before);
  CHECK(std::stoll(m[1].str()) <= epoch_now_ms());
  CHECK_THAT(e.reply(request(w.pid, "CLEAR", "<CLEAR AGENT='nosuch'/>")),
             Catch::Contains("ERROR='BAD_ARGUMENT'"));

  auto model = e.reply(request(w.pid, "CLASSMODEL"));
  CHECK_THAT(model, Catch::Contains("<CLASSMODEL><EXECUTABLE NAME='"));
  CHECK(std::regex_search(
      model, std::regex("<OBJECT NAME='[^']*/libc\\.so[^']*' BASE='0x[0-9a-f]+' TYPE='SYSTEM'/>")));
  CHECK(std::regex_search(
      model, std::regex("<OBJECT NAME='[^']*perfdm_workload' BASE='0x[0-9a-f]+' TYPE='NORMAL'/>")));

  auto threads = e.reply(request(w.pid, "USETHREAD"));
  CHECK_THAT(threads, Catch::Contains("<THREADS DEFAULT='true'><THREAD ID='" +
                                      std::to_string(w.pid) + "' USE='true'/>"));
  auto chosen = e.reply(request(w.pid, "USETHREAD",
                                "<THREADS><THREAD ID='" + std::to_string(w.pid) +
                                    "' IGNORE='true'/><THREAD ID='99999999' USE='t'/></THREADS>"));
  CHECK_THAT(chosen, Catch::Contains("<THREAD ID='" + std::to_string(w.pid) + "' USE='false'/>"));
  CHECK_THAT(chosen, Catch::Contains("<THREAD ID='99999999' USE='true'/>"));
  CHECK_THAT(e.reply(request(w.pid, "USETHREAD")),
             Catch::Contains("<THREAD ID='99999999' USE='true'/>"));
  CHECK_THAT(e.reply(request(w.pid, "USETHREAD", "<THREADS><THREAD ID='x'/></THREADS>")),
             Catch::Contains("ERROR='BAD_ARGUMENT'"));
  CHECK_THAT(
      e.reply(request(w.pid, "USETHREAD", "<THREADS><THREAD ID='1' USE='maybe'/></THREADS>")),
      Catch::Contains("ERROR='BAD_ARGUMENT'"));
}

TEST_CASE("SET and GET: DyPer's variables and defaults, nothing half-applied",
          "[process_commands]") {
  workload w;
  engine e;
  REQUIRE_THAT(attach(e, w.pid), Catch::Contains("FRAMES='work'"));
  auto head = reply_head(w.pid);
  auto get = [&](const std::string& name) {
    return e.reply(request(w.pid, "GET", "<VAR NAME='" + name + "'/>"));
  };
  CHECK(get("CHECKTIME") == head + "><VAR NAME='CHECKTIME' VALUE='10'/></DYPER_REPLY>");
  CHECK_THAT(get("DISABLETIME"), Catch::Contains("VALUE='5000'"));
  CHECK_THAT(get("REPORTTIME"), Catch::Contains("VALUE='0'"));
  CHECK_THAT(get("maxdepth"), Catch::Contains("NAME='MAXDEPTH' VALUE='128'"));
  CHECK_THAT(get("MONITOR"), Catch::Contains("VALUE='true'"));  // attaching is monitoring
  CHECK_THAT(get("REPORTING"), Catch::Contains("VALUE='false'"));
  CHECK_THAT(get("MIN_COUNTER"), Catch::Contains("VALUE='0'"));
  CHECK_THAT(get("THREAD_DEFAULT"), Catch::Contains("VALUE='true'"));
  CHECK_THAT(get("METHOD_DETAIL_MIN_TOTAL"), Catch::Contains("VALUE='250'"));
  CHECK_THAT(get("CLASS_DETAIL_MINIMUM"), Catch::Contains("VALUE='10'"));
  CHECK_THAT(get("CLASS_DETAIL_THRESHOLD"), Catch::Contains("VALUE='0.025'"));
  CHECK_THAT(get("METHOD_DETAIL_STOP_THRESHOLD"), Catch::Contains("VALUE='0.005'"));
  CHECK_THAT(get("NOSUCH"), Catch::Contains("ERROR='BAD_ARGUMENT'"));
  auto all = e.reply(request(w.pid, "GET"));
  CHECK(std::regex_search(all, std::regex("^(?:[^V]|V[^A]|VA[^R])*(<VAR [^>]*/>){20}</SETTINGS>")));

  CHECK(e.reply(request(w.pid, "SET", "<VAR NAME='CHECKTIME' VALUE='25'/>")) ==
        head + "><SETTINGS><VAR NAME='CHECKTIME' VALUE='25'/></SETTINGS></DYPER_REPLY>");
  CHECK_THAT(get("CHECKTIME"), Catch::Contains("VALUE='25'"));
  CHECK_THAT(
      e.reply(request(w.pid, "SET",
                      "<SETTINGS><VAR NAME='MONITOR' VALUE='T'/><VAR NAME='CLASS_DETAIL_THRESHOLD' "
                      "VALUE='0.5'/></SETTINGS>")),
      Catch::Contains(
          "<VAR NAME='MONITOR' VALUE='true'/><VAR NAME='CLASS_DETAIL_THRESHOLD' VALUE='0.5'/>"));
  CHECK_THAT(get("MONITOR"), Catch::Contains("VALUE='true'"));

  // One bad value refuses the whole SETTINGS: the good one before it is not applied.
  for (auto bad :
       {"<SETTINGS><VAR NAME='DISABLETIME' VALUE='7'/><VAR NAME='CHECKTIME' "
        "VALUE='ten'/></SETTINGS>",
        "<SETTINGS><VAR NAME='DISABLETIME' VALUE='7'/><VAR NAME='MONITOR' "
        "VALUE='maybe'/></SETTINGS>",
        "<SETTINGS><VAR NAME='DISABLETIME' VALUE='7'/><VAR NAME='CHECKTIME' "
        "VALUE='-1'/></SETTINGS>",
        "<SETTINGS><VAR NAME='DISABLETIME' VALUE='7'/><VAR NAME='MAXDEPTH' VALUE='0'/></SETTINGS>",
        "<SETTINGS><VAR NAME='DISABLETIME' VALUE='7'/><VAR NAME='CLASS_DETAIL_THRESHOLD' "
        "VALUE='2'/></SETTINGS>",
        "<SETTINGS><VAR NAME='DISABLETIME' VALUE='7'/><VAR NAME='CHECKTIME'/></SETTINGS>"}) {
    INFO(bad);
    CHECK_THAT(e.reply(request(w.pid, "SET", bad)),
               Catch::StartsWith(head + " ERROR='BAD_ARGUMENT'"));
    CHECK_THAT(get("DISABLETIME"), Catch::Contains("VALUE='5000'"));
  }
  CHECK_THAT(e.reply(request(w.pid, "SET")), Catch::Contains("ERROR='BAD_ARGUMENT'"));
  CHECK_THAT(e.reply(request(w.pid, "SET", "<VAR NAME='CHECKTIME' VALUE='1'")),
             Catch::Contains("ERROR='BAD_XML'"));
}

TEST_CASE("CLASSES and GETCLASSES: native defaults, most specific prefix, MATCH",
          "[process_commands]") {
  process_command_state st;
  CHECK(classify(st.classes, "libc.so.6") == "SYSTEM");
  CHECK(classify(st.classes, "libstdc++.so.6") == "SYSTEM");
  CHECK(classify(st.classes, "ld-linux-x86-64.so.2") == "SYSTEM");
  CHECK(classify(st.classes, "read") == "IO");
  CHECK(classify(st.classes, "readdir") == "NORMAL");  // functions are whole names
  CHECK(classify(st.classes, "perfdm_workload") == "NORMAL");

  workload w;
  engine e;
  REQUIRE_THAT(attach(e, w.pid), Catch::Contains("FRAMES='work'"));
  auto all = e.reply(request(w.pid, "GETCLASSES"));
  CHECK_THAT(all, Catch::Contains("<PACKAGE NAME='libc.so' TYPE='SYSTEM'/>"));
  CHECK_THAT(all, Catch::Contains("<CLASS NAME='recv' TYPE='IO'/>"));
  CHECK(e.reply(request(w.pid, "GETCLASSES", "<MATCH TYPE='SYSTEM' NAME='libs'/>")) ==
        reply_head(w.pid) +
            "><CLASSES><PACKAGE NAME='libstdc++.so' TYPE='SYSTEM'/></CLASSES></DYPER_REPLY>");
  auto set = e.reply(request(w.pid, "CLASSES",
                             "<CLASSES CLEARIO='true'><PACKAGE NAME='libssl' TYPE='SYSTEM_IO'/>"
                             "<CLASS NAME='my_read' TYPE='io'/></CLASSES>"));
  CHECK_THAT(set, Catch::Contains("<PACKAGE NAME='libssl' TYPE='SYSTEM_IO'/>"));
  CHECK_THAT(set, !Catch::Contains("NAME='recv'"));
  CHECK(e.reply(request(w.pid, "GETCLASSES", "<MATCH TYPE='IO'/>")) ==
        reply_head(w.pid) + "><CLASSES><CLASS NAME='my_read' TYPE='IO'/></CLASSES></DYPER_REPLY>");
  // A longer prefix wins; a package removes the class settings it covers.
  e.reply(
      request(w.pid, "CLASSES", "<CLASSES><PACKAGE NAME='libc.so.6' TYPE='NORMAL'/></CLASSES>"));
  CHECK_THAT(e.reply(request(w.pid, "CLASSMODEL")),
             Catch::Matches(".*libc\\.so\\.6' BASE='0x[0-9a-f]+' TYPE='NORMAL'.*"));
  e.reply(request(w.pid, "CLASSES", "<CLASSES><PACKAGE NAME='my_' TYPE='SYSTEM'/></CLASSES>"));
  CHECK_THAT(e.reply(request(w.pid, "GETCLASSES", "<MATCH NAME='my_'/>")),
             Catch::Contains("<CLASSES><PACKAGE NAME='my_' TYPE='SYSTEM'/></CLASSES>"));
  for (auto bad : {"<CLASSES><PACKAGE NAME='x' TYPE='WEIRD'/></CLASSES>",
                   "<CLASSES><PACKAGE TYPE='IO'/></CLASSES>", "<CLASSES><FOO/></CLASSES>",
                   "<CLASSES CLEAR='perhaps'/>"}) {
    INFO(bad);
    CHECK_THAT(e.reply(request(w.pid, "CLASSES", bad)), Catch::Contains("ERROR='BAD_ARGUMENT'"));
  }
  CHECK_THAT(e.reply(request(w.pid, "GETCLASSES", "<MATCH NAME='my_'/>")),
             Catch::Contains("NAME='my_'"));
  CHECK_THAT(e.reply(request(w.pid, "CLASSES", "<CLASSES CLEAR='true'/>")),
             Catch::EndsWith("><CLASSES></CLASSES></DYPER_REPLY>"));
}

TEST_CASE("AGENT, SETDETAIL, INSTRUMENT and REPORT", "[process_commands]") {
  workload w;
  engine e;
  REQUIRE_THAT(attach(e, w.pid), Catch::Contains("FRAMES='work'"));
  auto head = reply_head(w.pid);
  CHECK(e.reply(request(w.pid, "AGENT", "<AGENT CLASS='frames'/>")) ==
        head + "><AGENTS><AGENT CLASS='frames'/></AGENTS></DYPER_REPLY>");
  CHECK_THAT(e.reply(request(w.pid, "AGENT", "<AGENT CLASS='cpu'/>")),
             Catch::Contains("ERROR='BAD_ARGUMENT'"));
  CHECK_THAT(e.reply(request(w.pid, "CLEAR", "<CLEAR AGENT='frames'/>")),
             Catch::Matches(".*>[0-9]+</DYPER_REPLY>"));

  CHECK(
      e.reply(request(w.pid, "SETDETAIL", "<DETAIL ITEM='work' VALUE='t' AGENT='frames'/>")) ==
      head +
          "><SETTINGS><DETAIL ITEM='work' VALUE='true' AGENT='frames'/></SETTINGS></DYPER_REPLY>");
  CHECK_THAT(e.reply(request(w.pid, "SETDETAIL",
                             "<SETTINGS><DETAIL ITEM='work' VALUE='0' AGENT='frames'/><DETAIL "
                             "ITEM='latency_us' VALUE='1'/></SETTINGS>")),
             Catch::Contains("<SETTINGS><DETAIL ITEM='work' VALUE='false' AGENT='frames'/><DETAIL "
                             "ITEM='latency_us' VALUE='true' AGENT=''/></SETTINGS>"));
  CHECK_THAT(e.reply(request(w.pid, "SETDETAIL", "<DETAIL ITEM='x' VALUE='maybe'/>")),
             Catch::Contains("ERROR='BAD_ARGUMENT'"));
  CHECK_THAT(e.reply(request(w.pid, "SETDETAIL", "<DETAIL ITEM='x'/>")),
             Catch::Contains("ERROR='BAD_ARGUMENT'"));

  // REPORT: the frames read so far, and the metric instances whose focus is the process.
  auto resource = "/Process/perfdm_workload{" + std::to_string(w.pid) + "}";
  std::smatch opened;
  auto stream_reply = e.reply("<DYPER PID='DM' COMMAND='STREAM'/>");
  REQUIRE(std::regex_search(stream_reply, opened, std::regex("STREAM ID='([0-9]+)'")));
  REQUIRE_THAT(e.reply("<DYPER PID='DM' COMMAND='ENABLE'><ENABLE STREAM='" + opened[1].str() +
                       "' METRIC='work.requests' FOCUS='" + resource + "/work'/></DYPER>"),
               Catch::Contains("<MI ID='") && !Catch::Contains("ERROR"));
  std::string report;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  do {
    report = e.reply(request(w.pid, "REPORT", "<REPORT TYPE='ALL'/>"));
    if (!std::regex_search(report, std::regex("FRAMES='0'"))) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while (std::chrono::steady_clock::now() < deadline);
  CHECK_THAT(report, Catch::StartsWith(head + "><MONITOR TIME='"));
  CHECK_THAT(report, Catch::Contains("PROCESS='" + resource + "' ACTIVE='true'"));
  CHECK_THAT(report, Catch::Contains("METRIC='work.requests' FOCUS='" + resource));
  CHECK(std::regex_search(report, std::regex("<FRAMETYPE NAME='work' FRAMES='[1-9][0-9]*'")));
  CHECK_THAT(e.reply(request(w.pid, "REPORT", "<REPORT TYPE='CPU'/>")),
             Catch::Contains("ERROR='BAD_ARGUMENT'"));

  // INSTRUMENT: INSERT false detaches the frames, true attaches them again.
  std::regex patched("^" + head + "><PATCH TIME='[0-9]+'/></DYPER_REPLY>$");
  CHECK(std::regex_match(
      e.reply(request(w.pid, "INSTRUMENT", "<MODEL NAME='frames' INSERT='false'/>")), patched));
  CHECK_THAT(e.reply("<DYPER PID='DM' COMMAND='PROCESSES'/>"), Catch::Contains("ACTIVE='false'"));
  CHECK(std::regex_match(
      e.reply(request(w.pid, "INSTRUMENT", "<MODEL NAME='frames' INSERT='false'/>")), patched));
  auto reinserted = e.reply(request(w.pid, "INSTRUMENT", "<MODEL NAME='frames' INSERT='true'/>"));
  INFO(reinserted);
  CHECK(std::regex_match(reinserted, patched));
  CHECK_THAT(e.reply("<DYPER PID='DM' COMMAND='PROCESSES'/>"), Catch::Contains("ACTIVE='true'"));
  // The settings of the process survive a re-attach.
  CHECK_THAT(e.reply(request(w.pid, "AGENT", "<AGENT CLASS='frames'/>")),
             Catch::Contains("<AGENTS><AGENT CLASS='frames'/></AGENTS>"));
  CHECK_THAT(e.reply(request(w.pid, "INSTRUMENT", "<MODEL NAME='frames'/>")),
             Catch::Contains("ERROR='BAD_ARGUMENT'"));
  CHECK_THAT(e.reply(request(w.pid, "INSTRUMENT", "<MODEL NAME='frames' INSERT='sure'/>")),
             Catch::Contains("ERROR='BAD_ARGUMENT'"));
}

TEST_CASE("DYPATCH: PING, MODEL, DIRECTORY, PATCH", "[process_commands]") {
  workload w;
  engine e;
  REQUIRE_THAT(attach(e, w.pid), Catch::Contains("FRAMES='work'"));
  auto head = reply_head(w.pid, "DYPATCH_REPLY");
  auto dypatch = [&](const std::string& command, const std::string& arg = "") {
    return e.reply(request(w.pid, command, arg, "DYPATCH"));
  };
  CHECK(dypatch("PING") == head + ">PONG</DYPATCH_REPLY>");
  CHECK_THAT(dypatch("FROB"), Catch::StartsWith(head + " ERROR='UNKNOWN_COMMAND'"));
  auto dir =
      std::filesystem::temp_directory_path() / ("perfdm_dypatch_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);

  CHECK_THAT(dypatch("PATCH", "<PATCH MODEL='demo'/>"),
             Catch::StartsWith(head + " ERROR='BAD_ARGUMENT'"));
  CHECK(dypatch(
            "MODEL",
            "<MODEL NAME='demo'>struct tick {\n  uint64_t count;\n  double load;\n};\n</MODEL>") ==
        head + "><MODEL NAME='demo'><FRAME NAME='tick'/></MODEL></DYPATCH_REPLY>");
  auto bad = dypatch("MODEL", "<MODEL NAME='broken'>struct tick {\n  uint64_t count\n};</MODEL>");
  CHECK_THAT(bad, Catch::StartsWith(head + " ERROR='BAD_ARGUMENT'>broken:3:"));
  CHECK_THAT(dypatch("MODEL", "<MODEL NAME='../x'>struct a { int b; };</MODEL>"),
             Catch::Contains("ERROR='BAD_ARGUMENT'"));
  CHECK_THAT(dypatch("PATCH", "<PATCH MODEL='demo'/>"), Catch::Contains("no DIRECTORY"));
  CHECK_THAT(dypatch("DIRECTORY", "<X/>"), Catch::Contains("ERROR='BAD_ARGUMENT'"));
  CHECK(dypatch("DIRECTORY", dir.string()) ==
        head + "><DIRECTORY NAME='" + dir.string() + "'/></DYPATCH_REPLY>");
  CHECK_THAT(dypatch("PATCH", "<PATCH MODEL='broken'/>"),
             Catch::Contains("no MODEL named &apos;broken&apos;"));
  auto header = (dir / "demo_frames.h").string(), source = (dir / "demo_frames.cpp").string();
  CHECK(dypatch("PATCH", "<PATCH MODEL='demo'/>") == head + "><PATCH MODEL='demo'><FILE NAME='" +
                                                         header + "'/><FILE NAME='" + source +
                                                         "'/></PATCH></DYPATCH_REPLY>");
  std::ifstream h(header);
  std::stringstream text;
  text << h.rdbuf();
  CHECK_THAT(text.str(), Catch::Contains("tick"));
  CHECK(std::filesystem::file_size(source) > 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("SHOWSTACK lists every thread with its state", "[process_commands]") {
  workload w;
  engine e;
  REQUIRE_THAT(attach(e, w.pid), Catch::Contains("FRAMES='work'"));
  // The workload runs three threads: main and two workers. Not watched (WATCH starts the
  // stack sampler, docs/NATIVE.md; its STACKS tests run the target as a grandchild, which a
  // ptrace-based sampler needs), so threads and states come from /proc alone.
  auto threads = e.reply(request(w.pid, "SHOWSTACK"));
  CHECK_THAT(threads, Catch::StartsWith(reply_head(w.pid) + "><THREADS PID='" + std::to_string(w.pid)));
  std::regex thread("<THREAD ID='[0-9]+' NAME='[^']*' STATE='[a-z-]+'");
  auto n = std::distance(std::sregex_iterator(threads.begin(), threads.end(), thread),
                         std::sregex_iterator());
  CHECK(n == 3);
  CHECK_THAT(threads, !Catch::Contains("<STACK "));
  CHECK_THAT(e.reply(request(w.pid + 1000000, "SHOWSTACK")), Catch::Contains("ERROR='UNKNOWN_TARGET'"));
}

namespace {

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("SETDETAIL items: a frame type, a field's metric, the field, /proc metrics when watched",
          "[process_commands][setdetail]") {
  process_info p{42, "app", "/bin/app", "/Process/app{42}", {"work"}, true, false};
  std::vector<metric_info> metrics{
      {metric_handle{0}, "work.requests", metric_style::counter, ""},
      {metric_handle{1}, "work.latency_us", metric_style::sampled, ""},
      {metric_handle{2}, "other.latency_us", metric_style::sampled, ""},
      {metric_handle{3}, "proc.rss", metric_style::sampled, "bytes"}};
  auto names = [&](const std::string& item) {
    std::vector<std::string> out;
    for (auto& t : detail_targets(item, p, metrics)) out.push_back(t.metric + "@" + t.focus);
    return out;
  };
  using v = std::vector<std::string>;
  CHECK(names("work") == v{"work.requests@/Process/app{42}/work",
                           "work.latency_us@/Process/app{42}/work"});
  CHECK(names("work.latency_us") == v{"work.latency_us@/Process/app{42}/work"});
  CHECK(names("latency_us") == v{"work.latency_us@/Process/app{42}/work"});  // not other's
  CHECK(names("other").empty());  // a frame type of another process
  CHECK(names("wor").empty());
  CHECK(names("proc.rss").empty());  // not watched
  p.watched = true;
  CHECK(names("proc.rss") == v{"proc.rss@/Process/app{42}"});
  CHECK(names("proc.cpu_user").empty());  // not defined
}

TEST_CASE("SETDETAIL drives collection: an item on enables its metrics, off disables them",
          "[process_commands][setdetail]") {
  workload w;
  engine e;
  REQUIRE_THAT(attach(e, w.pid), Catch::Contains("FRAMES='work'"));
  auto head = reply_head(w.pid);
  auto focus = "FOCUS='/Process/perfdm_workload{" + std::to_string(w.pid) + "}/work'";
  auto status = [&] { return e.reply("<DYPER PID='DM' COMMAND='STATUS'/>"); };

  CHECK(e.reply(request(w.pid, "SETDETAIL", "<DETAIL ITEM='latency_us' VALUE='t'/>")) ==
        head +
            "><SETTINGS><DETAIL ITEM='latency_us' VALUE='true' AGENT=''/></SETTINGS></DYPER_REPLY>");
  auto s = status();
  CHECK(count_of(s, focus) == 1);
  auto at = s.find("METRIC='work.latency_us' " + focus);
  REQUIRE(at != std::string::npos);
  auto element = s.substr(s.rfind("<MI ID='", at), s.find("/>", at) - s.rfind("<MI ID='", at));
  CHECK_THAT(element, Catch::Contains("COLLECTING='true'"));
  auto mi = element.substr(8, element.find('\'', 8) - 8);
  // Samples of the field arrive in the detailed MI, and REPORT shows it.
  auto data = "<DYPER PID='DM' COMMAND='DATA'><DATA MI='" + mi + "'/></DYPER>";
  const std::regex filled("<HISTOGRAM MI='" + mi + "' [^>]* LAST='[0-9]+'>");
  CHECK(test::eventually([&] { return std::regex_search(e.reply(data), filled); }));
  CHECK_THAT(e.reply(request(w.pid, "REPORT", "<REPORT TYPE='ALL'/>")),
             Catch::Contains("METRIC='work.latency_us' " + focus));

  // The frame type: every field of it (requests, bytes, latency_us, queue_depth, worker).
  CHECK_THAT(e.reply(request(w.pid, "SETDETAIL", "<DETAIL ITEM='work' VALUE='1'/>")),
             Catch::Contains("<DETAIL ITEM='work' VALUE='true' AGENT=''/>"));
  CHECK(count_of(status(), focus) == 5);

  // An item that names nothing refuses the whole request, and nothing changes.
  auto refused = e.reply(request(
      w.pid, "SETDETAIL",
      "<SETTINGS><DETAIL ITEM='work' VALUE='0'/><DETAIL ITEM='nothing' VALUE='1'/></SETTINGS>"));
  CHECK_THAT(refused, Catch::StartsWith(head + " ERROR='BAD_ARGUMENT'"));
  CHECK_THAT(refused, Catch::Contains("ITEM &apos;nothing&apos; names no frame type"));
  CHECK(count_of(status(), focus) == 5);

  // Off: the MIs go (nobody else uses them, D1).
  CHECK_THAT(e.reply(request(w.pid, "SETDETAIL",
                             "<SETTINGS><DETAIL ITEM='work' VALUE='0'/><DETAIL ITEM='latency_us' "
                             "VALUE='false'/></SETTINGS>")),
             Catch::Contains("<SETTINGS><DETAIL ITEM='latency_us' VALUE='false' AGENT=''/><DETAIL "
                             "ITEM='work' VALUE='false' AGENT=''/></SETTINGS>"));
  CHECK(count_of(status(), focus) == 0);
}
