// Rules H, C, F, T and the B rules that need several histograms, through the real actors
// (data manager, metric instances, streams, phase manager, sampling-interval controller)
// driven by XML requests, as a front end would.
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <sstream>
#include <thread>
#include <unordered_set>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>

#include "cli/xml_session.hpp"
#include "messages/dm_messages.hpp"

using namespace perfdm;

namespace {

// Runs requests one by one; keeps every output line.
struct engine {
  explicit engine(session_options o = {}) : s(o) {}

  // Runs one request and returns the lines it produced (events, then the reply).
  std::vector<std::string> run(const std::string& xml) {
    std::vector<std::string> out;
    s.run_line(xml, [&](const session_line& l) { out.push_back(l.xml); });
    all.insert(all.end(), out.begin(), out.end());
    return out;
  }
  std::string reply(const std::string& xml) { return run(xml).back(); }

  session s;
  std::vector<std::string> all;
};

std::string dm(const std::string& command, const std::string& arg = "") {
  return "<DYPER PID='DM' COMMAND='" + command + "'>" + arg + "</DYPER>";
}
std::string define_counter(const std::string& name) {
  return dm("DEFINE", "<METRIC NAME='" + name + "' STYLE='COUNTER'/>");
}
std::string enable(int stream, const std::string& metric, const std::string& phase = "GLOBAL",
                   const std::string& extra = "") {
  return dm("ENABLE", "<ENABLE STREAM='" + std::to_string(stream) + "' METRIC='" + metric +
                          "' PHASE='" + phase + "' " + extra + "/>");
}
std::string disable(int stream, int mi, const std::string& phase = "GLOBAL") {
  return dm("DISABLE", "<DISABLE STREAM='" + std::to_string(stream) + "' MI='" +
                           std::to_string(mi) + "' PHASE='" + phase + "'/>");
}
std::string samples(const std::string& body) { return dm("SAMPLES", "<SAMPLES>" + body + "</SAMPLES>"); }
std::string s(int mi, double t0, double t1, double v) {
  std::ostringstream o;
  o << "<S MI='" << mi << "' START='" << t0 << "' END='" << t1 << "' VALUE='" << v << "'/>";
  return o.str();
}

bool has(const std::vector<std::string>& lines, const std::string& needle) {
  for (auto& l : lines)
    if (l.find(needle) != std::string::npos) return true;
  return false;
}
std::size_t count(const std::vector<std::string>& lines, const std::string& needle) {
  std::size_t n = 0;
  for (auto& l : lines)
    for (auto p = l.find(needle); p != std::string::npos; p = l.find(needle, p + 1)) ++n;
  return n;
}
std::size_t index_of(const std::vector<std::string>& lines, const std::string& needle) {
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].find(needle) != std::string::npos) return i;
  return lines.size();
}

// An engine with metric m (counter), a stream 0 and MI 0 = m at / for `phase`.
void with_one_mi(engine& e, const std::string& phase = "GLOBAL", const std::string& flags = "") {
  e.run(define_counter("m"));
  e.run(dm("STREAM"));
  e.run(enable(0, "m", phase, flags));
}

}  // namespace

TEST_CASE("H1 metrics, resources and phases stay, MIs and streams can be destroyed", "[H1]") {
  engine e;
  with_one_mi(e);
  CHECK(has(e.run(disable(0, 0)), "STATE='DELETED'"));
  CHECK(has(e.run(dm("CLOSE", "<STREAM ID='0'/>")), "<OK/>"));
  CHECK(has(e.run(dm("METRICS")), "NAME='m'"));
  CHECK(has(e.run(dm("PHASES")), "NAME='phase_0'"));
  CHECK(has(e.run(dm("STATUS")), "<STATUS"));
  CHECK_FALSE(has(e.run(dm("STATUS")), "<MI "));
}

TEST_CASE("H2 handles are distinct value types that compare, hash and serialise", "[H2]") {
  static_assert(!std::is_convertible<metric_handle, phase_handle>::value);
  static_assert(!std::is_convertible<mi_handle, stream_handle>::value);
  mi_handle a{3}, b{3}, c{4};
  CHECK(a == b);
  CHECK(a != c);
  std::unordered_set<mi_handle> set{a, b, c};
  CHECK(set.size() == 2);
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  std::vector<char> buf;
  mi_info in{mi_handle{7}, "m", "/a", persistence{true, false, true}, mi_state::inactive};
  caf::binary_serializer sink{sys, buf};
  REQUIRE(!sink(in));
  mi_info out;
  caf::binary_deserializer source{sys, buf};
  REQUIRE(!source(out));
  CHECK(out.id == in.id);
  CHECK(out.focus == "/a");
  CHECK(out.flags == in.flags);
  CHECK(out.state == mi_state::inactive);
}

TEST_CASE("H3 re-enabling a pair whose MI was deleted yields a new MI handle", "[H3]") {
  engine e;
  with_one_mi(e);
  CHECK(has(e.run(disable(0, 0)), "STATE='DELETED'"));
  CHECK(has(e.run(enable(0, "m")), "<MI ID='1'"));
}

TEST_CASE("H4 unknown or deleted handles get UNKNOWN_HANDLE", "[H4]") {
  engine e;
  with_one_mi(e);
  CHECK(has(e.run(disable(0, 5)), "ERROR='UNKNOWN_HANDLE'"));
  CHECK(has(e.run(disable(7, 0)), "ERROR='UNKNOWN_HANDLE'"));
  CHECK(has(e.run(dm("DATA", "<DATA MI='9'/>")), "ERROR='UNKNOWN_HANDLE'"));
  CHECK(has(e.run(dm("DATA", "<DATA MI='0' PHASE='4'/>")), "ERROR='UNKNOWN_HANDLE'"));
  CHECK(has(e.run(samples(s(3, 0, 1, 1))), "ERROR='UNKNOWN_HANDLE'"));
  CHECK(has(e.run(enable(0, "nope")), "ERROR='UNKNOWN_HANDLE'"));
  CHECK(has(e.run(dm("ENABLE", "<ENABLE STREAM='0' METRIC='m' FOCUS='/x'/>")),
            "ERROR='UNKNOWN_HANDLE'"));
  e.run(disable(0, 0));
  auto deleted = e.reply(dm("SETFLAGS", "<FLAGS MI='0' PERSISTENT_DATA='true'/>"));
  CHECK(deleted.find("ERROR='UNKNOWN_HANDLE'") != std::string::npos);
  CHECK(deleted.find("was deleted") != std::string::npos);
  e.run(dm("CLOSE", "<STREAM ID='0'/>"));
  CHECK(has(e.run(dm("CLOSE", "<STREAM ID='0'/>")), "ERROR='UNKNOWN_HANDLE'"));
  CHECK(has(e.run(dm("METRICS")), "NAME='m'"));  // the engine still serves
}

TEST_CASE("H5 phase 0 exists from engine start", "[H5]") {
  engine e;
  CHECK(e.reply(dm("PHASES")) ==
        "<DYPER_REPLY ID='DM'><PHASES><PHASE ID='0' NAME='phase_0' START='0' END='-1' "
        "WIDTH='0.2'/></PHASES></DYPER_REPLY>");
  CHECK(has(e.run(dm("PHASE")), "ID='1'"));
  CHECK(has(e.run(dm("PHASE")), "ID='2'"));
}

TEST_CASE("H6 handles of each kind are numbered from 0 in creation order", "[H6]") {
  engine e;
  CHECK(has(e.run(define_counter("a")), "<METRIC ID='0'"));
  CHECK(has(e.run(define_counter("b")), "<METRIC ID='1'"));
  CHECK(has(e.run(dm("DEFINE", "<RESOURCE NAME='/p/q'/>")), "<RESOURCE ID='2' NAME='/p/q'"));
  CHECK(has(e.run(dm("STREAM")), "<STREAM ID='0'/>"));
  CHECK(has(e.run(dm("STREAM")), "<STREAM ID='1'/>"));
  CHECK(has(e.run(enable(0, "a")), "<MI ID='0'"));
  CHECK(has(e.run(enable(1, "b")), "<MI ID='1'"));
  CHECK(has(e.run(enable(1, "a")), "<MI ID='0'"));  // E1: same pair, same MI
}

TEST_CASE("C1 virtual time is the latest sample end", "[C1]") {
  engine e;
  with_one_mi(e);
  e.run(samples(s(0, 0, 1.5, 1) + s(0, 0.5, 1.0, 1)));
  CHECK(has(e.run(dm("STATUS")), "NOW='1.5'"));
}

TEST_CASE("C1 a live engine's now follows its clock", "[C1][live]") {
  session_options o;
  o.deterministic = false;
  o.engine.live_clock = true;
  engine e(o);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  auto status = e.reply(dm("STATUS"));
  std::smatch m;
  REQUIRE(std::regex_search(status, m, std::regex("NOW='([0-9.e+-]+)'")));
  CHECK(std::stod(m[1]) >= 0.03);
}

TEST_CASE("C2 a new phase starts at now rounded down to the global bucket width", "[C2]") {
  engine e;
  with_one_mi(e);
  e.run(samples(s(0, 0, 1.37, 1)));
  CHECK(has(e.run(dm("PHASE", "<PHASE NAME='p'/>")), "START='1.2'"));
  CHECK(has(e.run(dm("PHASES")), "<PHASE ID='0' NAME='phase_0' START='0' END='1.2'"));
}

TEST_CASE("B5 a current histogram starts at its phase's start, phase 0 shares global", "[B5]") {
  engine e;
  with_one_mi(e, "CURRENT");
  CHECK(has(e.run(dm("DATA", "<DATA MI='0' PHASE='CURRENT'/>")), "START='0'"));
  e.run(samples(s(0, 0, 3.1, 1)));
  e.run(dm("PHASE"));  // N6 deletes MI 0: it had no flags and no global users
  CHECK(has(e.run(enable(0, "m", "CURRENT")), "<MI ID='1'"));
  CHECK(has(e.run(dm("DATA", "<DATA MI='1' PHASE='CURRENT'/>")), "START='3'"));
}

TEST_CASE("B6 a new time base takes the smallest covering width, others share theirs", "[B6]") {
  engine e;
  e.run(define_counter("m"));
  e.run(define_counter("n"));
  e.run(dm("STREAM"));
  e.run(enable(0, "m"));
  e.run(samples(s(0, 0, 500, 1)));  // global histograms fold to 0.8 s
  CHECK(has(e.run(enable(0, "n")), "<MI ID='1'"));
  CHECK(has(e.run(dm("DATA", "<DATA MI='1'/>")), "WIDTH='0.8'"));
  e.run(dm("PHASE"));  // starts at 500
  e.run(samples(s(0, 500, 530, 1)));
  e.run(enable(0, "n", "CURRENT"));  // 30 s into the phase: 0.2 s covers 200 s
  CHECK(has(e.run(dm("DATA", "<DATA MI='1' PHASE='CURRENT'/>")), "WIDTH='0.2'"));
  e.run(disable(0, 1, "CURRENT"));
  e.run(disable(0, 0));
  e.run(disable(0, 1));  // no MI left: the next global histogram starts afresh (B6)
  // H4: samples naming a deleted MI are refused whole and the clock stays at 530, so the
  // new global histogram takes the smallest width covering 530 s: 0.8 s (0.4 s covers 400).
  CHECK(has(e.run(samples(s(0, 530, 900, 1))), "ERROR='UNKNOWN_HANDLE'"));
  CHECK(has(e.run(enable(0, "m")), "<MI ID='2'"));
  CHECK(has(e.run(dm("DATA", "<DATA MI='2'/>")), "WIDTH='0.8'"));
}

TEST_CASE("B7 streams get completed buckets only, each once", "[B7]") {
  engine e;
  with_one_mi(e);
  auto first = e.run(samples(s(0, 0, 0.1, 1)));  // inside bucket 0: nothing complete
  CHECK(has(first, "<OK COUNT='1' DROPPED='0'/>"));
  CHECK_FALSE(has(first, "DATA='0'"));
  auto second = e.run(samples(s(0, 0.1, 0.5, 1)));
  CHECK(has(second, "<V MI='0' PHASE='GLOBAL' BUCKET='0' VALUE='1.25'/>"));
  CHECK(has(second, "BUCKET='1' VALUE='0.5'"));
  CHECK_FALSE(has(second, "BUCKET='2'"));
  auto third = e.run(samples(s(0, 0.5, 0.6, 1)));
  CHECK(has(third, "BUCKET='2' VALUE='1.25'"));
  CHECK(count(e.all, "BUCKET='0'") == 1);
}

TEST_CASE("F1 every stream gets one fold event per width, phase 0 both kinds", "[F1]") {
  engine e;
  with_one_mi(e);
  e.run(dm("STREAM"));  // stream 1 subscribes to nothing
  auto out = e.run(samples(s(0, 199, 201, 1)));
  for (auto stream : {"0", "1"}) {
    CHECK(count(out, std::string("<DYPER FOLD='") + stream + "' PHASE='GLOBAL' WIDTH='0.4'/>") == 1);
    CHECK(count(out, std::string("<DYPER FOLD='") + stream + "' PHASE='CURRENT' WIDTH='0.4'/>") == 1);
  }
  auto jump = e.run(samples(s(0, 201, 1000, 1)));  // 0.8, 1.6: two doublings, two events each
  CHECK(count(jump, "<DYPER FOLD='1' PHASE='GLOBAL'") == 2);
  CHECK(has(jump, "WIDTH='1.6'"));
}

TEST_CASE("F1 a later phase's current fold is CURRENT only", "[F1]") {
  engine e;
  with_one_mi(e, "GLOBAL", "PERSISTENT_COLLECTION='true'");
  e.run(samples(s(0, 0, 10, 1)));
  e.run(dm("PHASE"));
  auto out = e.run(samples(s(0, 10, 211, 1)));
  CHECK(has(out, "<DYPER FOLD='0' PHASE='CURRENT' WIDTH='0.4'/>"));
  CHECK(has(out, "<DYPER FOLD='0' PHASE='GLOBAL' WIDTH='0.4'/>"));
  auto fold_current = index_of(out, "PHASE='CURRENT' WIDTH='0.4'");
  auto fold_global = index_of(out, "PHASE='GLOBAL' WIDTH='0.4'");
  CHECK(fold_global < fold_current);  // the global base reached 200 s first
}

TEST_CASE("F2 data buffered for a stream is delivered before the fold event", "[F2]") {
  engine e;
  with_one_mi(e);
  auto out = e.run(samples(s(0, 0, 0.2, 1) + s(0, 0.2, 200.1, 1)));
  auto first_data = index_of(out, "DATA='0'");
  auto fold = index_of(out, "FOLD='0'");
  REQUIRE(fold < out.size());
  CHECK(first_data < fold);
  CHECK(has(std::vector<std::string>(out.begin(), out.begin() + fold), "BUCKET='0' VALUE='1'"));
}

TEST_CASE("T1 streams hear of new metrics and resources", "[T1]") {
  engine e;
  e.run(dm("STREAM"));
  CHECK(has(e.run(define_counter("m")), "<DYPER NEWMETRIC='0' ID='0' NAME='m' STYLE='COUNTER'"));
  auto res = e.run(dm("DEFINE", "<RESOURCE NAME='/Process/app'/>"));
  CHECK(has(res, "<DYPER NEWRESOURCE='0' ID='1' NAME='/Process' PARENT='/'/>"));
  CHECK(has(res, "<DYPER NEWRESOURCE='0' ID='2' NAME='/Process/app' PARENT='/Process'/>"));
  auto again = e.run(define_counter("m"));
  CHECK(has(again, "<METRIC ID='0' NAME='m' STYLE='COUNTER'"));
  CHECK_FALSE(has(again, "NEWMETRIC"));  // only new ones
}

TEST_CASE("T2 data values arrive in batches of at most 50, flushed at the end of a command",
          "[T2]") {
  engine e;
  with_one_mi(e);
  auto out = e.run(samples(s(0, 0, 24.1, 1)));  // 120 completed buckets
  std::size_t events = 0, values = 0;
  for (auto& l : out)
    if (l.find("<DYPER DATA='0'>") == 0) {
      ++events;
      auto n = count({l}, "<V ");
      CHECK(n <= 50);
      values += n;
    }
  CHECK(values == 120);
  CHECK(events == 3);
}

TEST_CASE("T3 closing a stream disables its subscriptions as D1-D3 say", "[T3]") {
  engine e;
  e.run(define_counter("m"));
  e.run(define_counter("n"));
  e.run(dm("STREAM"));
  e.run(dm("STREAM"));
  e.run(enable(0, "m"));
  e.run(enable(0, "n", "GLOBAL", "PERSISTENT_DATA='true'"));
  e.run(enable(1, "n"));
  e.run(dm("CLOSE", "<STREAM ID='0'/>"));
  auto status = e.reply(dm("STATUS"));
  CHECK(status.find("<MI ID='0'") == std::string::npos);  // D3: deleted
  CHECK(status.find("<MI ID='1' METRIC='n' FOCUS='/' GLOBAL_USERS='1'") != std::string::npos);
  CHECK(has(e.run(disable(0, 1)), "ERROR='UNKNOWN_HANDLE'"));
}

TEST_CASE("E5 a CURRENT enable naming another phase is NOT_ALLOWED", "[E5]") {
  engine e;
  with_one_mi(e);
  e.run(dm("PHASE"));
  CHECK(has(e.run(enable(0, "m", "0")), "ERROR='NOT_ALLOWED'"));
  CHECK(has(e.run(enable(0, "m", "1")), "<MI ID='0'"));
}

TEST_CASE("D4 a disable by a non-user is BAD_ARGUMENT and changes nothing", "[D4]") {
  engine e;
  with_one_mi(e);
  e.run(dm("STREAM"));
  CHECK(has(e.run(disable(1, 0)), "ERROR='BAD_ARGUMENT'"));
  CHECK(has(e.run(disable(0, 0, "CURRENT")), "ERROR='BAD_ARGUMENT'"));
  CHECK(has(e.run(dm("STATUS")), "GLOBAL_USERS='0'"));
}

TEST_CASE("N2 archived data is read back by phase handle", "[N2]") {
  engine e;
  with_one_mi(e, "CURRENT", "PERSISTENT_DATA='true'");
  e.run(samples(s(0, 0, 0.4, 2)));
  e.run(dm("PHASE"));
  CHECK(e.reply(dm("DATA", "<DATA MI='0' PHASE='0'/>")) ==
        "<DYPER_REPLY ID='DM'><HISTOGRAM MI='0' START='0' WIDTH='0.2' NBINS='1000' LAST='1'>1 "
        "1</HISTOGRAM></DYPER_REPLY>");
  CHECK(has(e.run(dm("STATUS")), "ARCHIVED='0'"));
}

TEST_CASE("N8 every stream receives the new-phase event", "[N8]") {
  engine e;
  e.run(dm("STREAM"));
  e.run(dm("STREAM"));
  auto out = e.run(dm("PHASE", "<PHASE NAME='busy'/>"));
  CHECK(has(out, "<DYPER NEWPHASE='0' ID='1' NAME='busy' START='0' WIDTH='0.2'/>"));
  CHECK(has(out, "<DYPER NEWPHASE='1' ID='1' NAME='busy' START='0' WIDTH='0.2'/>"));
}

TEST_CASE("samples for MIs that are not collecting are dropped and counted", "[samples]") {
  engine e;
  with_one_mi(e, "GLOBAL", "PERSISTENT_DATA='true'");
  e.run(disable(0, 0));
  CHECK(has(e.run(samples(s(0, 0, 1, 1))), "<OK COUNT='0' DROPPED='1'/>"));
}

TEST_CASE("replay prints the same bytes for the same file", "[replay]") {
  std::string file = define_counter("m") + "\n" + dm("STREAM") + "\n" +
                     enable(0, "m", "CURRENT", "PERSISTENT_DATA='true'") + "\n" +
                     samples(s(0, 0, 150, 2) + s(0, 150, 210, 1)) + "\n" + dm("PHASE") + "\n" +
                     dm("STATUS") + "\n";
  std::string outputs[2];
  for (auto& out : outputs) {
    std::istringstream in(file);
    std::ostringstream o;
    replay(in, o, {});
    out = o.str();
  }
  CHECK(outputs[0] == outputs[1]);
  CHECK(outputs[0].find("FOLD") != std::string::npos);
}

TEST_CASE("a recorded session replays to the same output", "[replay][record]") {
  std::ifstream demo(PERFDM_SOURCE_DIR "/examples/demo.replay");
  std::stringstream original;
  original << demo.rdbuf() << "not xml\n<DYPER PID='DM' COMMAND='NOPE'/>\n";
  std::ostringstream recording, first;
  session_options o;
  o.record = &recording;
  {
    std::istringstream in(original.str());
    CHECK(replay(in, first, o) == 2);  // the two bad lines are answered with errors
  }
  // The file's comments are not requests; the recording's own say when and from where.
  std::istringstream recorded(recording.str());
  for (std::string line; std::getline(recorded, line);)
    if (line[0] == '#') CHECK(line.rfind("# t=", 0) == 0);
  CHECK(recording.str().find("# t=0 replay: began sending") != std::string::npos);
  std::istringstream again(recording.str());
  std::ostringstream second;
  replay(again, second, {});
  CHECK(second.str() == first.str());
}

TEST_CASE("the live scheduler gives the same replies as the deterministic one", "[live]") {
  std::ifstream demo(PERFDM_SOURCE_DIR "/examples/demo.replay");
  std::stringstream file;
  file << demo.rdbuf();
  auto replies = [&](bool deterministic) {
    session_options o;
    o.deterministic = deterministic;
    std::istringstream in(file.str());
    std::ostringstream out;
    replay(in, out, o);
    std::istringstream lines(out.str());
    std::vector<std::string> kept;
    std::size_t values = 0;
    for (std::string l; std::getline(lines, l);) {
      if (l.rfind("<DYPER_REPLY", 0) == 0) kept.push_back(l);
      values += count({l}, "<V ");
    }
    kept.push_back("values delivered: " + std::to_string(values));
    return kept;
  };
  auto expected = replies(true);
  REQUIRE(expected.size() > 10);
  for (int run = 0; run < 3; ++run) CHECK(replies(false) == expected);
}
