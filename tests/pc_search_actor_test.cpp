// The search actor through the real data manager, in virtual time (the replay scheduler):
// SEARCH and SHG, SHGNODE events, experiments enabled and disabled through the data manager
// with Paradyn's flags, N8 (a new phase ends the old phase's search), and a recorded search
// session that replays to the same SHG. The program is synthetic: the test plays the data
// source, answering every metric instance the search enabled with a rate from a model.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <functional>
#include <regex>
#include <set>
#include <sstream>

#include "log/modules/pc_log_module.hpp"
#include "cli/xml_session.hpp"
#include "log/log_listing.hpp"
#include "messages/dm_messages.hpp"
#include "messages/search_messages.hpp"
#include "messages/xml_codec.hpp"

using namespace perfdm;

namespace {

struct pc_engine {
  explicit pc_engine(session_options o = {}) : s(o) {}

  std::vector<session_line> run(const std::string& xml) {
    std::vector<session_line> out;
    s.run_line(xml, [&](const session_line& l) { out.push_back(l); });
    for (auto& l : out) {
      all.push_back(l.xml);
      if (l.message.match_elements<shg_node_event>())
        events.push_back(l.message.get_as<shg_node_event>(0));
    }
    return out;
  }
  std::string reply(const std::string& xml) { return run(xml).back().xml; }

  shg_reply shg() {
    auto l = run("<DYPER PID='DM' COMMAND='SHG'/>").back();
    REQUIRE(l.message.match_elements<shg_reply>());
    return l.message.get_as<shg_reply>(0);
  }

  session s;
  std::vector<std::string> all;
  std::vector<shg_node_event> events;
};

using rate_model = std::function<double(const std::string& metric, const std::string& code,
                                        const std::string& machine)>;

// The program's resources and the metrics the native source defines (docs/NATIVE.md).
void define_program(pc_engine& e) {
  for (auto m : {"cpu", "sync_wait", "io_wait", "io_ops", "io_bytes"})
    e.run(std::string("<DYPER PID='DM' COMMAND='DEFINE'><METRIC NAME='") + m + "'/></DYPER>");
  for (auto r : {"/Code/app/main", "/Code/app/idle", "/Code/app/hot", "/Machine/h/app{1}/app{1}",
                 "/Machine/h/app{1}/worker{2}", "/SyncObject"})
    e.run(std::string("<DYPER PID='DM' COMMAND='DEFINE'><RESOURCE NAME='") + r + "'/></DYPER>");
}

// hot() burns 90 % of a CPU in thread worker{2}; nothing else runs.
double hot_worker(const std::string& metric, const std::string& code, const std::string& machine) {
  if (metric != "cpu") return 0;
  bool c = code == "/Code" || code == "/Code/app" || code == "/Code/app/hot";
  bool m = machine == "/Machine" || machine == "/Machine/h" || machine == "/Machine/h/app{1}" ||
           machine == "/Machine/h/app{1}/worker{2}";
  return c && m ? 0.9 : 0;
}

// Plays the data source from `from` to `until` in steps of 0.2 s: one SAMPLES per step with a
// sample for every collecting MI, its value from `model` at the MI's focus.
void feed(pc_engine& e, double from, double until, const rate_model& model) {
  static const std::regex mi_re(
      "<MI ID='([0-9]+)' METRIC='([^']*)' FOCUS='([^']*)'[^>]*COLLECTING='true'");
  for (double t = from; t < until - 1e-9; t += 0.2) {
    auto status = e.reply("<DYPER PID='DM' COMMAND='STATUS'/>");
    std::string samples;
    for (std::sregex_iterator i(status.begin(), status.end(), mi_re), end; i != end; ++i) {
      std::string code = "/Code", machine = "/Machine", focus = (*i)[3].str();
      std::stringstream parts(focus);
      for (std::string p; std::getline(parts, p, ',');) {
        if (p.rfind("/Code", 0) == 0) code = p;
        if (p.rfind("/Machine", 0) == 0) machine = p;
      }
      double v = model((*i)[2].str(), code, machine) * 0.2;
      samples += "<S MI='" + (*i)[1].str() + "' START='" + format_number(t) + "' END='" +
                 format_number(t + 0.2) + "' VALUE='" + format_number(v) + "'/>";
    }
    e.run("<DYPER PID='DM' COMMAND='SAMPLES'><SAMPLES>" + samples + "</SAMPLES></DYPER>");
  }
}

bool within(const std::string& inner, const std::string& outer) {
  return inner == outer || inner.compare(0, outer.size() + 1, outer + "/") == 0;
}

// The true nodes of a search that no narrower true node of the same hypothesis refines (the
// SHG reply names first parents only, so narrower is read from the resource names).
std::vector<shg_node_info> true_leaves(const shg_reply& g, std::uint64_t search) {
  std::vector<shg_node_info> out;
  for (auto& n : g.nodes) {
    if (n.search != search || n.state != "true") continue;
    bool leaf = true;
    for (auto& m : g.nodes)
      if (m.search == search && m.state == "true" && m.hypothesis == n.hypothesis && m.id != n.id &&
          within(m.code, n.code) && within(m.machine, n.machine) &&
          within(m.syncobject, n.syncobject))
        leaf = false;
    if (leaf) out.push_back(n);
  }
  return out;
}

}  // namespace

TEST_CASE("pc actor: a global search finds the hot function and thread through the DM",
          "[pc][pc-actor]") {
  pc_engine e;
  define_program(e);
  CHECK(e.reply("<DYPER PID='DM' COMMAND='SHG'/>") ==
        "<DYPER_REPLY ID='DM'><SHG></SHG></DYPER_REPLY>");
  e.run("<DYPER PID='DM' COMMAND='STREAM'/>");
  CHECK(e.reply("<DYPER PID='DM' COMMAND='SEARCH'><SEARCH PHASE='GLOBAL' "
                "SUFFICIENT_TIME='1'/></DYPER>") ==
        "<DYPER_REPLY ID='DM'><SEARCH ID='0' PHASE='GLOBAL' PHASEID='0' STATE='running' NODES='3' "
        "COSTLIMITED='false'/></DYPER_REPLY>");
  // A second global search while one runs is refused.
  CHECK(e.reply("<DYPER PID='DM' COMMAND='SEARCH'><SEARCH/></DYPER>").find("NOT_ALLOWED") !=
        std::string::npos);
  // The experiments are the search's: global, persistent data.
  auto status = e.reply("<DYPER PID='DM' COMMAND='STATUS'/>");
  CHECK(status.find(
            "METRIC='cpu' FOCUS='/' GLOBAL_USERS='1' CURRENT_USERS='' PERSISTENT_DATA='true'") !=
        std::string::npos);
  feed(e, 0, 30, hot_worker);
  auto g = e.shg();
  auto leaves = true_leaves(g, 0);
  REQUIRE(leaves.size() == 1);
  CHECK(leaves[0].hypothesis == "CPUbound");
  CHECK(leaves[0].code == "/Code/app/hot");
  CHECK(leaves[0].machine == "/Machine/h/app{1}/worker{2}");
  CHECK(leaves[0].value == Approx(0.9).margin(0.01));
  for (auto& n : g.nodes) {
    if (n.state != "true") continue;
    CHECK(n.code != "/Code/app/idle");  // no true node on an idle function
    CHECK(n.code != "/Code/app/main");
  }
  // Nodes concluded false have their MIs disabled: CPUbound at idle() collects no more.
  status = e.reply("<DYPER PID='DM' COMMAND='STATUS'/>");
  INFO(status);
  CHECK(std::regex_search(status, std::regex("<MI ID='[0-9]+' METRIC='cpu' FOCUS='/Code/app/idle' "
                                             "GLOBAL_USERS='' [^>]* COLLECTING='false' ")));
  CHECK(status.find("FOCUS='/Code/app/idle' GLOBAL_USERS='1'") == std::string::npos);
  // Every node change reached the stream as SHGNODE; the last event of a node is its state.
  std::map<std::uint64_t, std::string> last;
  for (auto& ev : e.events) last[ev.node.id] = ev.node.state;
  for (auto& n : g.nodes)
    if (n.state != "never") CHECK(last[n.id] == n.state);
  CHECK(std::any_of(e.all.begin(), e.all.end(), [](const std::string& l) {
    return l.rfind(
               "<DYPER SHGNODE='0' SEARCH='0' ID='0' PARENT='' HYPOTHESIS='CPUbound' CODE='/Code' "
               "MACHINE='/Machine' SYNCOBJECT='/SyncObject' FILE='/File' STATE='true'",
               0) == 0;
  }));
}

TEST_CASE("pc actor: FINDINGS names the hot function and its thread together, ranked",
          "[pc][pc-actor]") {
  pc_engine e;
  define_program(e);
  CHECK(e.reply("<DYPER PID='DM' COMMAND='FINDINGS'/>") ==
        "<DYPER_REPLY ID='DM'><FINDINGS></FINDINGS></DYPER_REPLY>");
  e.run("<DYPER PID='DM' COMMAND='STREAM'/>");
  e.run("<DYPER PID='DM' COMMAND='SEARCH'><SEARCH PHASE='GLOBAL' SUFFICIENT_TIME='1'/></DYPER>");
  feed(e, 0, 30, hot_worker);
  auto l = e.run("<DYPER PID='DM' COMMAND='FINDINGS'/>").back();
  REQUIRE(l.message.match_elements<findings_reply>());
  auto& f = l.message.get_as<findings_reply>(0).findings;
  REQUIRE(f.size() == 1);  // the same as the true leaves of the SHG
  CHECK(f[0].rank == 1);
  CHECK(f[0].hypothesis == "CPUbound");
  CHECK(f[0].code == "/Code/app/hot");
  CHECK(f[0].machine == "/Machine/h/app{1}/worker{2}");
  CHECK(f[0].pid == 1);
  CHECK(f[0].tid == 2);
  CHECK(f[0].function == "hot (app)");
  CHECK(std::regex_match(f[0].text, std::regex("CPUbound (89|90|91)% of time in hot \\(app\\) \u2014 thread "
                                               "worker\\{2\\} \u2014 since [0-9.]+ s")));
  CHECK(std::regex_search(l.xml, std::regex("^<DYPER_REPLY ID='DM'><FINDINGS><FINDING RANK='1' "
                                            "SEARCH='0' HYPOTHESIS='CPUbound' CODE='/Code/app/hot' "
                                            "MACHINE='/Machine/h/app\\{1\\}/worker\\{2\\}' "
                                            "SYNCOBJECT='/SyncObject' VALUE='0.(89|9)[0-9]*' "
                                            "THRESHOLD='0.3' SINCE='[0-9.]+' NODE='[0-9]+' PID='1' "
                                            "TID='2' FUNCTION='hot \\(app\\)' TEXT='CPUbound")));
  CHECK(e.reply("<DYPER PID='DM' COMMAND='FINDINGS'><FINDINGS SEARCH='7'/></DYPER>") ==
        "<DYPER_REPLY ID='DM'><FINDINGS></FINDINGS></DYPER_REPLY>");
  CHECK(e.reply("<DYPER PID='DM' COMMAND='FINDINGS'><FINDINGS SEARCH='x'/></DYPER>")
            .find("BAD_ARGUMENT") != std::string::npos);
}

TEST_CASE("N8 a new phase ends the search of the old phase, whose nodes keep their truth",
          "[pc][pc-actor][N8]") {
  pc_engine e;
  define_program(e);
  e.run("<DYPER PID='DM' COMMAND='STREAM'/>");
  CHECK(
      e.reply(
           "<DYPER PID='DM' COMMAND='SEARCH'><SEARCH PHASE='CURRENT' SUFFICIENT_TIME='1'/></DYPER>")
          .find("PHASE='CURRENT' PHASEID='0' STATE='running'") != std::string::npos);
  e.reply("<DYPER PID='DM' COMMAND='SEARCH'><SEARCH PHASE='GLOBAL' SUFFICIENT_TIME='1'/></DYPER>");
  // The current-phase search enables CURRENT with phase-persistent data.
  auto status = e.reply("<DYPER PID='DM' COMMAND='STATUS'/>");
  CHECK(status.find("FOCUS='/' GLOBAL_USERS='1' CURRENT_USERS='1' PERSISTENT_DATA='true' "
                    "PERSISTENT_COLLECTION='false' PHASE_PERSISTENT_DATA='true'") !=
        std::string::npos);
  feed(e, 0, 4, hot_worker);
  auto before = e.shg();
  auto top = std::find_if(before.nodes.begin(), before.nodes.end(),
                          [](auto& n) { return n.search == 0 && n.id == 0; });
  REQUIRE(top != before.nodes.end());
  CHECK(top->state == "true");
  e.run("<DYPER PID='DM' COMMAND='PHASE'><PHASE NAME='next'/></DYPER>");
  auto after = e.shg();
  for (auto& n : after.nodes) {
    if (n.search != 0) continue;
    CHECK_FALSE(n.active);  // the old phase's search ended
    auto& old = *std::find_if(before.nodes.begin(), before.nodes.end(),
                              [&](auto& b) { return b.search == 0 && b.id == n.id; });
    CHECK(n.state == old.state);  // truth kept
  }
  CHECK(e.reply("<DYPER PID='DM' COMMAND='SEARCH'><SEARCH PHASE='CURRENT' ACTION='PAUSE'/></DYPER>")
            .find("ERROR='NOT_ALLOWED'") != std::string::npos);
  // The global search runs across phases.
  bool global_active = false;
  for (auto& n : after.nodes) global_active |= n.search == 1 && n.active;
  CHECK(global_active);
  // A search for the new phase starts when asked.
  CHECK(e.reply("<DYPER PID='DM' COMMAND='SEARCH'><SEARCH PHASE='CURRENT'/></DYPER>")
            .find("ID='2' PHASE='CURRENT' PHASEID='1' STATE='running'") != std::string::npos);
}

TEST_CASE("pc actor: FOLLOW starts a search for every new phase, STOP and PAUSE",
          "[pc][pc-actor]") {
  pc_engine e;
  define_program(e);
  e.reply("<DYPER PID='DM' COMMAND='SEARCH'><SEARCH PHASE='CURRENT' FOLLOW='true'/></DYPER>");
  e.run("<DYPER PID='DM' COMMAND='PHASE'/>");
  CHECK(e.reply("<DYPER PID='DM' COMMAND='SEARCH'><SEARCH PHASE='CURRENT' ACTION='PAUSE'/></DYPER>")
            .find("ID='1' PHASE='CURRENT' PHASEID='1' STATE='paused'") != std::string::npos);
  CHECK(e.reply("<DYPER PID='DM' COMMAND='SEARCH'><SEARCH PHASE='CURRENT' ACTION='RESUME' "
                "CPU_THRESHOLD='0.5'/></DYPER>")
            .find("STATE='running'") != std::string::npos);
  CHECK(e.reply("<DYPER PID='DM' COMMAND='SEARCH'><SEARCH PHASE='CURRENT' ACTION='STOP'/></DYPER>")
            .find("STATE='ended'") != std::string::npos);
  // STOP released every experiment of the search: its three MIs (cpu, sync_wait, io_wait)
  // have no user and collect nothing.
  auto status = e.reply("<DYPER PID='DM' COMMAND='STATUS'/>");
  INFO(status);
  auto count = [&](const std::string& pattern) {
    std::regex r(pattern);
    return std::distance(std::sregex_iterator(status.begin(), status.end(), r),
                         std::sregex_iterator());
  };
  CHECK(count("<MI ID=") == 3);
  CHECK(count("<MI ID='[0-9]+' [^>]* GLOBAL_USERS='' CURRENT_USERS='' [^>]* COLLECTING='false' ") ==
        3);
  e.run("<DYPER PID='DM' COMMAND='PHASE'/>");  // stopped: no new search follows
  CHECK(e.reply("<DYPER PID='DM' COMMAND='SHG'><SHG SEARCH='2'/></DYPER>") ==
        "<DYPER_REPLY ID='DM'><SHG></SHG></DYPER_REPLY>");
  // Bad tunables are refused by name.
  CHECK(e.reply("<DYPER PID='DM' COMMAND='SEARCH'><SEARCH SUFFICIENT_TIME='0'/></DYPER>")
            .find("ERROR='BAD_ARGUMENT'>attribute SUFFICIENT_TIME of &lt;SEARCH&gt; must be a "
                  "number above 0") != std::string::npos);
  CHECK(e.reply("<DYPER PID='DM' COMMAND='SEARCH'><SEARCH ACTION='GO'/></DYPER>")
            .find("ERROR='BAD_ARGUMENT'") != std::string::npos);
  CHECK(e.reply("<DYPER PID='DM' COMMAND='SEARCH'><SEARCH MAX_PENDING='2.5'/></DYPER>")
            .find("ERROR='BAD_ARGUMENT'") != std::string::npos);
}

TEST_CASE("pc actor: a recorded search session replays to the same SHG", "[pc][pc-actor]") {
  std::ostringstream recording;
  session_options o;
  o.record = &recording;
  std::string live_shg;
  {
    pc_engine e(o);
    define_program(e);
    e.run("<DYPER PID='DM' COMMAND='STREAM'/>");
    e.run("<DYPER PID='DM' COMMAND='SEARCH'><SEARCH SUFFICIENT_TIME='1'/></DYPER>");
    feed(e, 0, 12, hot_worker);
    live_shg = e.reply("<DYPER PID='DM' COMMAND='SHG'/>");
  }
  // The search's own requests are comments: replaying SEARCH makes them again.
  CHECK(recording.str().find(
            "search: made again by SEARCH in replay: <DYPER PID='DM' COMMAND='ENABLE'>") !=
        std::string::npos);
  std::istringstream in(recording.str());
  std::ostringstream replayed;
  replay(in, replayed, {});
  auto out = replayed.str();
  auto last_shg = out.rfind("<DYPER_REPLY ID='DM'><SHG>");
  REQUIRE(last_shg != std::string::npos);
  CHECK(out.substr(last_shg, out.find('\n', last_shg) - last_shg) == live_shg);
  CHECK(live_shg.find("STATE='true'") != std::string::npos);
}

TEST_CASE("pc log: the SHG goes into the log's pc module and perfdm log prints it",
          "[pc][pc-actor]") {
  auto path = std::string("/tmp/perfdm-pc-log-test-") + std::to_string(getpid()) + ".log";
  {
    pc_engine e;
    define_program(e);
    e.run("<DYPER PID='DM' COMMAND='SEARCH'><SEARCH SUFFICIENT_TIME='1'/></DYPER>");
    feed(e, 0, 12, hot_worker);
    e.s.write_log_file(path);
  }
  register_pc_log_printer();
  log_command_options o;
  o.file = path;
  o.modules = {"pc"};
  std::ostringstream out, err;
  CHECK(run_log_command(o, out, err) == 0);
  std::remove(path.c_str());
  auto text = out.str();
  CHECK(text.find("CPUbound </Code, /Machine, /SyncObject> true") != std::string::npos);
  CHECK(text.find("CPUbound </Code/app/hot, /Machine/h/app{1}/worker{2}, /SyncObject> true") !=
        std::string::npos);
  CHECK(text.find("\tthreshold\t0.3\t") != std::string::npos);
}

namespace {

// hot() (called by main()) burns 90 % of a CPU in thread worker{2}; inclusive, main() too.
double hot_under_main(const std::string& metric, const std::string& code,
                      const std::string& machine) {
  return hot_worker(metric, code == "/Code/app/main" ? "/Code/app/hot" : code, machine);
}

// Plays the stack sample windows: one EVIDENCE round at data time `t` (100 samples/s since
// 0) for every active node of search 0, its counts from `model` (the share of one thread).
void evidence_round(pc_engine& e, double t, const rate_model& model) {
  std::string at;
  std::set<std::string> seen;
  for (auto& n : e.shg().nodes) {
    if (n.search != 0 || !n.active) continue;
    if (!seen.insert(n.code + n.machine + n.syncobject).second) continue;
    auto ticks = static_cast<std::uint64_t>(t * 100);
    auto runs = static_cast<std::uint64_t>(model("cpu", n.code, n.machine) * ticks);
    at += "<AT CODE='" + n.code + "' MACHINE='" + n.machine + "' SYNCOBJECT='" + n.syncobject +
          "'><P PID='1' N='" + std::to_string(ticks) + "' RUNS='" + std::to_string(runs) +
          "' RUNS_MOST='1' SYNCS='0' SYNCS_MOST='0' IOS='0' IOS_MOST='0' OPS='0' BYTES='0' "
          "FIRST='0.01' LAST='" + format_number(t) + "'/></AT>";
  }
  e.run("<DYPER PID='DM' COMMAND='EVIDENCE'><EVIDENCE SEARCH='0' TIME='" + format_number(t) +
        "'>" + at + "</EVIDENCE></DYPER>");
}

}  // namespace

TEST_CASE(
    "pc actor: on the evidence a node is decided at once on the samples since the search "
    "began, and the recording replays to the same SHG, /Code along the call graph included",
    "[pc][pc-actor][pc-evidence-replay]") {
  std::ostringstream recording;
  session_options o;
  o.record = &recording;
  std::string live_shg;
  {
    pc_engine e(o);
    define_program(e);
    e.run("<DYPER PID='DM' COMMAND='STREAM'/>");
    // No SUFFICIENT_TIME: the evidence rule.
    REQUIRE_THAT(e.reply("<DYPER PID='DM' COMMAND='SEARCH'><SEARCH CONFIDENCE='0.99'/></DYPER>"),
                 Catch::Contains("STATE='running'"));
    // The sampled call graph, as the search hands it over: main() calls hot() and idle().
    CHECK_THAT(e.reply("<DYPER PID='DM' COMMAND='EVIDENCE'><EVIDENCE SEARCH='0' TIME='0.1'>"
                       "<CALL CALLER='' CALLEE='/Code/app/main'/>"
                       "<CALL CALLER='/Code/app/main' CALLEE='/Code/app/hot'/>"
                       "<CALL CALLER='/Code/app/main' CALLEE='/Code/app/idle'/>"
                       "</EVIDENCE></DYPER>"),
               Catch::Contains("<OK/>"));
    // Rounds 10 ms apart from 0.6 s: each level is decided in the round after it is made.
    for (int round = 0; round < 12; ++round) evidence_round(e, 0.6 + round * 0.01, hot_under_main);
    auto g = e.shg();
    // main() is true too (inclusive, it calls hot()), but <hot, worker> refines <main, worker>
    // along the call graph: an edge the SHG reply's one parent does not show, FINDINGS does.
    auto l = e.run("<DYPER PID='DM' COMMAND='FINDINGS'/>").back();
    REQUIRE(l.message.match_elements<findings_reply>());
    auto& found = l.message.get_as<findings_reply>(0).findings;
    for (auto& f : found) UNSCOPED_INFO(f.text);
    REQUIRE(found.size() == 1);
    CHECK(found[0].code == "/Code/app/hot");
    CHECK(found[0].machine == "/Machine/h/app{1}/worker{2}");
    CHECK(found[0].since < 0.8);  // not a sufficient time per level
    // The rounds' RUNS are 90 % of the ticks rounded down: within one of 60+ samples.
    CHECK(found[0].value == Approx(0.9).margin(0.02));
    for (auto& n : g.nodes)
      if (n.state == "true") CHECK(n.code != "/Code/app/idle");
    live_shg = e.reply("<DYPER PID='DM' COMMAND='SHG'/>");
  }
  // EVIDENCE is recorded as a request, the search's ENABLEs as comments.
  CHECK(recording.str().find("<DYPER PID='DM' COMMAND='EVIDENCE'><EVIDENCE SEARCH='0' TIME='0.1' "
                             "EVICTED='0'><CALL CALLER='' CALLEE='/Code/app/main'/>") !=
        std::string::npos);
  std::istringstream in(recording.str());
  std::ostringstream replayed;
  replay(in, replayed, {});
  auto out = replayed.str();
  auto last_shg = out.rfind("<DYPER_REPLY ID='DM'><SHG>");
  REQUIRE(last_shg != std::string::npos);
  CHECK(out.substr(last_shg, out.find('\n', last_shg) - last_shg) == live_shg);
  CHECK(live_shg.find("CODE='/Code/app/hot'") != std::string::npos);
  // Before any search there is nothing to feed.
  pc_engine fresh;
  CHECK_THAT(fresh.reply("<DYPER PID='DM' COMMAND='EVIDENCE'><EVIDENCE SEARCH='0' TIME='1'/></DYPER>"),
             Catch::Contains("NOT_ALLOWED"));
}
