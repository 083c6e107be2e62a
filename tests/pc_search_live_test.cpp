// The Performance Consultant end to end on the workloads of examples/pc/: `perfdm search
// --pid P --json` on a real running program (an engine of its own, stack sampling), deciding
// on the evidence (the default: no sufficient time). The true leaves must name the right hypothesis, function
// and thread within the stated time, and no true node may name an idle function.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "tests/live_engine_test_support.hpp"
#include "tests/pc_workload_process.hpp"
#include "tests/real_program_process.hpp"

namespace {

struct json_node {
  std::string hypothesis, code, machine, syncobject, state;
};

// `perfdm search … --json` on `pid`: the nodes of the JSON object it prints at the end.
std::vector<json_node> search(int pid, int seconds, const std::string& options = "") {
  std::string command = std::string(PERFDM_BINARY) + " search --pid " + std::to_string(pid) +
                        " --seconds " + std::to_string(seconds) + options +
                        " --json 2>/dev/null";
  auto out = real_program::output_of(command);
  static const std::regex node_re(
      "\\{\"id\":[0-9]+,\"parent\":(null|[0-9]+),\"hypothesis\":\"([^\"]*)\",\"focus\":\\{"
      "\"code\":\"([^\"]*)\",\"machine\":\"([^\"]*)\",\"syncobject\":\"([^\"]*)\""
      "(?:,\"file\":\"[^\"]*\")?\\},"
      "\"state\":\"([^\"]*)\"");
  std::vector<json_node> nodes;
  for (std::sregex_iterator i(out.begin(), out.end(), node_re), end; i != end; ++i)
    nodes.push_back({(*i)[2], (*i)[3], (*i)[4], (*i)[5], (*i)[6]});
  INFO(out.substr(0, 2000));
  REQUIRE_FALSE(nodes.empty());
  return nodes;
}

bool has_true(const std::vector<json_node>& nodes, const std::string& hypothesis,
              const std::string& code, const std::string& machine_suffix = "") {
  for (auto& n : nodes)
    if (n.state == "true" && n.hypothesis == hypothesis && n.code == code &&
        (machine_suffix.empty() || (n.machine.size() >= machine_suffix.size() &&
                                    n.machine.compare(n.machine.size() - machine_suffix.size(),
                                                      machine_suffix.size(), machine_suffix) == 0)))
      return true;
  return false;
}

// No true node (of any hypothesis) at a function that does no I/O, no locking and no work of
// the program's own: sleeping, reading the clock, the workload's run check.
void check_no_true_node_at_idle_function(const std::vector<json_node>& nodes) {
  static const char* const idle[] = {"clock_nanosleep",   "nanosleep",     "sleep_for",
                                     "steady_clock::now", "clock_gettime", "running"};
  for (auto& n : nodes) {
    if (n.state != "true") continue;
    for (auto* f : idle) {
      INFO(n.hypothesis << " true at " << n.code);
      CHECK(n.code.find(f) == std::string::npos);
    }
  }
}

}  // namespace

TEST_CASE("pc live: pc_cpu is CPUbound in tokenize on its main thread, never idle_housekeeping",
          "[pc][pc-live]") {
  pc_test::workload_process w("pc_cpu", {"40"});
  auto nodes = search(w.pid, 10);
  auto thread = "/pc_cpu{" + std::to_string(w.pid) + "}";
  CHECK(has_true(nodes, "CPUbound", "/Code/pc_cpu/tokenize"));
  CHECK(has_true(nodes, "CPUbound", "/Code/pc_cpu/tokenize", thread));
  for (auto& n : nodes) {
    if (n.state != "true") continue;
    CHECK(n.code != "/Code/pc_cpu/idle_housekeeping");
    CHECK(n.machine.find("housekeeper") == std::string::npos);
  }
}

TEST_CASE(
    "pc live: pc_tiny_writes blocks in I/O with too many small operations in write_log, "
    "none at the clock it reads",
    "[pc][pc-live]") {
  pc_test::workload_process w("pc_tiny_writes", {"40"});
  // On the evidence: the windows hold every sample's I/O counts, so TooManySmallIOOps is
  // judged on the operations since the search began (docs/PROTOCOL.md section 12).
  auto nodes = search(w.pid, 10);
  CHECK(has_true(nodes, "ExcessiveIOBlockingTime", "/Code/pc_tiny_writes/write_log"));
  CHECK(has_true(nodes, "TooManySmallIOOps", "/Code/pc_tiny_writes/write_log"));
  check_no_true_node_at_idle_function(nodes);
}

TEST_CASE(
    "pc live: pc_pipe blocks in read_records on its main thread, no I/O charged to the "
    "feeder's sleep",
    "[pc][pc-live]") {
  pc_test::workload_process w("pc_pipe", {"40"});
  auto nodes = search(w.pid, 10);
  CHECK(has_true(nodes, "ExcessiveIOBlockingTime", "/Code/pc_pipe/read_records"));
  check_no_true_node_at_idle_function(nodes);
}

TEST_CASE("pc live: pc_lock waits for its mutex in update_shared_table", "[pc][pc-live]") {
  pc_test::workload_process w("pc_lock", {"40"});
  std::smatch m;
  auto line = w.line();
  REQUIRE(std::regex_search(line, m, std::regex("mutex (0x[0-9a-f]+)")));
  auto nodes = search(w.pid, 10);
  CHECK(has_true(nodes, "ExcessiveSyncWaitingTime", "/Code/pc_lock/update_shared_table"));
  bool lock_named = false;
  for (auto& n : nodes)
    lock_named |= n.state == "true" && n.hypothesis == "ExcessiveSyncWaitingTime" &&
                  n.syncobject == "/SyncObject/Mutex/" + m[1].str();
  CHECK(lock_named);
}

namespace {

// One node of the SHG reply, as read from its attributes.
struct shg_row {
  std::string search, hypothesis, code, syncobject, state, active;
};

std::string attribute(const std::string& element, const std::string& name) {
  std::smatch m;
  if (std::regex_search(element, m, std::regex(" " + name + "='([^']*)'"))) return m[1].str();
  return "";
}

std::vector<shg_row> shg_rows(perfdm::test::live_engine& e) {
  auto reply = e.reply("<DYPER PID='DM' COMMAND='SHG'/>");
  static const std::regex node_re("<NODE [^>]*/>");
  std::vector<shg_row> rows;
  for (std::sregex_iterator i(reply.begin(), reply.end(), node_re), end; i != end; ++i) {
    auto n = i->str();
    rows.push_back({attribute(n, "SEARCH"), attribute(n, "HYPOTHESIS"), attribute(n, "CODE"),
                    attribute(n, "SYNCOBJECT"), attribute(n, "STATE"), attribute(n, "ACTIVE")});
  }
  return rows;
}

// Polls the SHG until `found` holds for one of its nodes, for at most `seconds`.
template <typename F>
bool shg_eventually(perfdm::test::live_engine& e, double seconds, F&& found) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  do {
    for (auto& n : shg_rows(e))
      if (found(n)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  } while (std::chrono::steady_clock::now() < end);
  return false;
}

}  // namespace

TEST_CASE(
    "pc live N8: a new phase ends the old phase's search, a search of the new phase "
    "finds the new bottleneck (pc_phases)",
    "[pc][pc-live][N8]") {
  // Phase "cpu" for 9 s, then phase "lock" until the test ends it.
  pc_test::workload_process w("pc_phases", {"40", "9"});
  REQUIRE(w.line() == "pc_phases: phase cpu");
  perfdm::test::live_engine e;
  REQUIRE_THAT(e.reply("<DYPER PID='DM' COMMAND='WATCH'><PROCESS PID='" + std::to_string(w.pid) +
                       "'/></DYPER>"),
               Catch::Contains("WATCHED='true'"));
  // A search of the current phase that follows the phases (FOLLOW): search 0 for the first
  // phase, a new one for each phase after.
  REQUIRE_THAT(e.reply("<DYPER PID='DM' COMMAND='SEARCH'><SEARCH PHASE='CURRENT' ACTION='START' "
                       "FOLLOW='true' SUFFICIENT_TIME='1.5'/></DYPER>"),
               Catch::Contains("STATE='running'"));
  CHECK(shg_eventually(e, 9, [](const shg_row& n) {
    return n.search == "0" && n.hypothesis == "CPUbound" && n.state == "true" &&
           n.code == "/Code/pc_phases/crunch_numbers";
  }));
  // At the switch line a new perfdm phase starts.
  std::smatch m;
  auto switched = w.line();
  REQUIRE(std::regex_search(switched, m, std::regex("phase lock mutex (0x[0-9a-f]+)")));
  REQUIRE_THAT(e.reply("<DYPER PID='DM' COMMAND='PHASE'><PHASE NAME='lock'/></DYPER>"),
               Catch::Contains("PHASE ID='1'"));
  // N8: the old phase's search ended: every node of it inactive, its truth kept.
  auto rows = shg_rows(e);
  bool cpu_kept = false;
  for (auto& n : rows) {
    if (n.search != "0") continue;
    INFO(n.hypothesis << " at " << n.code);
    CHECK(n.active == "false");
    cpu_kept |= n.hypothesis == "CPUbound" && n.state == "true" &&
                n.code == "/Code/pc_phases/crunch_numbers";
  }
  CHECK(cpu_kept);
  // The new phase's search finds the waiting at the printed mutex.
  auto mutex = "/SyncObject/Mutex/" + m[1].str();
  CHECK(shg_eventually(e, 14, [&](const shg_row& n) {
    return n.search == "1" && n.hypothesis == "ExcessiveSyncWaitingTime" && n.state == "true" &&
           n.syncobject == mutex;
  }));
  // And the old bottleneck is not true in it (the lockers compute while they hold the lock,
  // so CPUbound may be true there, but not at crunch_numbers).
  for (auto& n : shg_rows(e))
    if (n.search == "1" && n.state == "true" && n.hypothesis == "CPUbound")
      CHECK(n.code != "/Code/pc_phases/crunch_numbers");
}
