// The Performance Consultant end to end on the workloads of examples/pc/: `perfdm search
// --pid P --json` on a real running program (an engine of its own, stack sampling), with a
// shortened sufficient time (2 s). The true leaves must name the right hypothesis, function
// and thread within the stated time, and no true node may name an idle function.
#include <catch2/catch.hpp>
#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include "tests/pc_workload_process.hpp"

namespace {

struct json_node {
  std::string hypothesis, code, machine, syncobject, state;
};

// `perfdm search … --json` on `pid`: the nodes of the JSON object it prints at the end.
std::vector<json_node> search(int pid, int seconds) {
  std::string command = std::string(PERFDM_BINARY) + " search --pid " + std::to_string(pid) +
                        " --seconds " + std::to_string(seconds) +
                        " --sufficient-time 2 --json 2>/dev/null";
  std::string out;
  if (FILE* p = popen(command.c_str(), "r")) {
    char buf[4096];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);
  }
  static const std::regex node_re(
      "\\{\"id\":[0-9]+,\"parent\":(null|[0-9]+),\"hypothesis\":\"([^\"]*)\",\"focus\":\\{"
      "\"code\":\"([^\"]*)\",\"machine\":\"([^\"]*)\",\"syncobject\":\"([^\"]*)\"\\},"
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
  auto nodes = search(w.pid, 30);
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
  auto nodes = search(w.pid, 25);
  CHECK(has_true(nodes, "ExcessiveIOBlockingTime", "/Code/pc_tiny_writes/write_log"));
  CHECK(has_true(nodes, "TooManySmallIOOps", "/Code/pc_tiny_writes/write_log"));
  check_no_true_node_at_idle_function(nodes);
}

TEST_CASE(
    "pc live: pc_pipe blocks in read_records on its main thread, no I/O charged to the "
    "feeder's sleep",
    "[pc][pc-live]") {
  pc_test::workload_process w("pc_pipe", {"40"});
  auto nodes = search(w.pid, 25);
  CHECK(has_true(nodes, "ExcessiveIOBlockingTime", "/Code/pc_pipe/read_records"));
  check_no_true_node_at_idle_function(nodes);
}

TEST_CASE("pc live: pc_lock waits for its mutex in update_shared_table", "[pc][pc-live]") {
  pc_test::workload_process w("pc_lock", {"40"});
  std::smatch m;
  auto line = w.line();
  REQUIRE(std::regex_search(line, m, std::regex("mutex (0x[0-9a-f]+)")));
  auto nodes = search(w.pid, 25);
  CHECK(has_true(nodes, "ExcessiveSyncWaitingTime", "/Code/pc_lock/update_shared_table"));
  bool lock_named = false;
  for (auto& n : nodes)
    lock_named |= n.state == "true" && n.hypothesis == "ExcessiveSyncWaitingTime" &&
                  n.syncobject == "/SyncObject/Mutex/" + m[1].str();
  CHECK(lock_named);
}
