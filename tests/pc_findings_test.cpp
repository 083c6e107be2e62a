// The search's findings (pc/findings.hpp): true nodes with no true refinement, code and thread
// named together, ranked by value over threshold, printed as one line each; and the open nodes
// of a search that ended before they concluded.
#include <catch2/catch.hpp>

#include "pc/findings.hpp"

using namespace perfdm::pc;

namespace {

node_view node(std::uint64_t id, std::vector<std::uint64_t> parents, std::string hyp,
               std::string code, std::string machine, std::string state, double value,
               double since = -1, std::string sync = "/SyncObject") {
  node_view n;
  n.id = id;
  n.parents = std::move(parents);
  n.hypothesis = std::move(hyp);
  n.code = std::move(code);
  n.machine = std::move(machine);
  n.syncobject = std::move(sync);
  n.state = std::move(state);
  n.value = value;
  n.threshold = n.hypothesis == "TooManySmallIOOps" ? 4096
                : n.hypothesis == "CPUbound"        ? 0.3
                                                    : 0.2;
  n.since = since;
  return n;
}

const std::string host = "/Machine/h";
const std::string proc = "/Machine/h/xz{4711}";
const std::string thread = "/Machine/h/xz{4711}/xz{4711}";

// An xz-like search: CPUbound refined along /Code (call graph: main calls lzma_code), then
// the hot function along /Machine down to its thread.
std::vector<node_view> xz_graph() {
  return {
      node(0, {}, "CPUbound", "/Code", "/Machine", "true", 0.99, 1.0),
      node(1, {0}, "CPUbound", "/Code/xz/main", "/Machine", "true", 0.99, 1.1),
      node(2, {0}, "CPUbound", "/Code", host, "true", 0.99, 1.1),
      node(3, {1}, "CPUbound", "/Code/liblzma.so.5/lzma_code", "/Machine", "true", 0.99, 1.2),
      node(4, {1}, "CPUbound", "/Code/xz/io_write", "/Machine", "false", 0.01),
      node(5, {3}, "CPUbound", "/Code/liblzma.so.5/lzma_code", host, "true", 0.99, 1.3),
      node(6, {5}, "CPUbound", "/Code/liblzma.so.5/lzma_code", proc, "true", 0.99, 1.3),
      node(7, {6}, "CPUbound", "/Code/liblzma.so.5/lzma_code", thread, "true", 0.99, 1.4),
      node(8, {}, "ExcessiveSyncWaitingTime", "/Code", "/Machine", "false", 0.0),
      node(9, {}, "ExcessiveIOBlockingTime", "/Code", "/Machine", "false", 0.01),
  };
}

}  // namespace

TEST_CASE("pc findings: the deepest true node names function and thread together", "[pc]") {
  auto f = findings(xz_graph());
  REQUIRE(f.size() == 1);
  CHECK(f[0].node.id == 7);
  CHECK(f[0].pid == 4711);
  CHECK(f[0].tid == 4711);
  CHECK(f[0].function == "lzma_code (liblzma.so.5)");
  CHECK(f[0].text ==
        "CPUbound 99% of time in lzma_code (liblzma.so.5) \u2014 thread xz{4711} \u2014 since 1.4 s");
}

TEST_CASE("pc findings: refinement counts by graph edge and by narrower focus", "[pc]") {
  // Node 2 (</Code, /Machine/h>) has no edge to 5..7, but they refine it by focus.
  auto g = xz_graph();
  CHECK(refines_by_focus(g[7], g[2]));
  CHECK_FALSE(refines_by_focus(g[2], g[7]));
  CHECK_FALSE(refines_by_focus(g[7], g[7]));
  // main -> lzma_code is a call-graph edge, not a narrower name: without the edges main
  // would stand as a finding of its own.
  CHECK_FALSE(refines_by_focus(g[3], g[1]));
  for (auto& n : g) n.parents.clear();
  auto f = findings(g);
  REQUIRE(f.size() == 2);
  CHECK(f[0].node.id == 1);
  CHECK(f[1].node.id == 7);
}

TEST_CASE("pc findings: several findings are ranked by value over threshold", "[pc]") {
  std::vector<node_view> g{
      node(0, {}, "CPUbound", "/Code", "/Machine", "true", 0.5, 2.0),
      node(1, {0}, "CPUbound", "/Code/app/parse", "/Machine", "true", 0.35, 3.0),
      node(2, {0}, "CPUbound", "/Code/app/hash", "/Machine", "true", 0.45, 4.0),
      node(3, {}, "ExcessiveSyncWaitingTime", "/Code", "/Machine", "true", 0.6, 2.5),
      node(4, {3}, "ExcessiveSyncWaitingTime", "/Code", "/Machine", "false", 0.0, -1,
           "/SyncObject/Mutex/0x55d0"),
      node(5, {3}, "ExcessiveSyncWaitingTime", "/Code", "/Machine", "true", 0.58, 3.5,
           "/SyncObject/Mutex/0x55e0"),
  };
  auto f = findings(g);
  REQUIRE(f.size() == 3);
  // 0.58 / 0.2 = 2.9, 0.45 / 0.3 = 1.5, 0.35 / 0.3 = 1.17
  CHECK(f[0].node.id == 5);
  CHECK(f[1].node.id == 2);
  CHECK(f[2].node.id == 1);
  CHECK(f[0].text == "ExcessiveSyncWaitingTime 58% of time \u2014 on Mutex/0x55e0 \u2014 since 3.5 s");
  CHECK(f[0].score == Approx(2.9));
}

TEST_CASE("pc findings: a below-threshold test ranks by threshold over value, sub-hypotheses refine",
          "[pc]") {
  std::vector<node_view> g{
      node(0, {}, "ExcessiveIOBlockingTime", "/Code", "/Machine", "true", 0.4, 1.0),
      node(1, {0}, "TooManySmallIOOps", "/Code", "/Machine", "true", 16, 2.0),
      node(2, {1}, "TooManySmallIOOps", "/Code/app/write_record", proc, "true", 16, 2.5),
  };
  auto f = findings(g);
  REQUIRE(f.size() == 1);
  CHECK(f[0].node.id == 2);
  CHECK(f[0].score == Approx(256));
  CHECK(f[0].text ==
        "TooManySmallIOOps 16 bytes per I/O operation in write_record (app) \u2014 process "
        "xz{4711} \u2014 since 2.5 s");
  // The sub-hypothesis refines its parent; not the other way round.
  CHECK(refines_by_focus(g[1], g[0]));
  CHECK_FALSE(refines_by_focus(g[0], g[1]));
}

TEST_CASE("pc findings: a finding is settled once everything below it is false", "[pc]") {
  auto g = xz_graph();
  // Node 7 is a leaf: settled. Make a child of it still open: not settled, still a finding.
  CHECK(settled_findings(g).size() == 1);
  g.push_back(node(10, {7}, "CPUbound", "/Code/liblzma.so.5/lzma_lzma_encoder", thread,
                   "unknown", 0.5));
  CHECK(findings(g).size() == 1);
  CHECK(settled_findings(g).empty());
  g.back().state = "false";
  CHECK(settled_findings(g).size() == 1);
  g.back().state = "true";
  g.back().since = 3;
  auto s = settled_findings(g);
  REQUIRE(s.size() == 1);
  CHECK(s[0].node.id == 10);
}

TEST_CASE("pc findings: no true node, no finding, open nodes say what the data showed",
          "[pc]") {
  std::vector<node_view> g{
      node(0, {}, "CPUbound", "/Code", "/Machine", "unknown", 0.95),
      node(1, {}, "ExcessiveSyncWaitingTime", "/Code", "/Machine", "unknown", 0.01),
      node(2, {}, "ExcessiveIOBlockingTime", "/Code", "/Machine", "false", 0.0),
      node(3, {0}, "CPUbound", "/Code/app/x", "/Machine", "never", 0),
  };
  g[0].low = 0.9;
  g[0].high = 0.99;
  g[0].samples = 120;
  CHECK(findings(g).empty());
  auto open = inconclusive_nodes(g, 10);
  REQUIRE(open.size() == 2);
  CHECK(open[0].node.id == 0);
  CHECK(open[0].inconclusive);
  CHECK(open[0].text ==
        "CPUbound 95% of time \u2014 inconclusive: value 0.95 against 0.3 [0.9, 0.99], 120 samples");
  CHECK(open[1].text == "ExcessiveSyncWaitingTime 1% of time \u2014 inconclusive: value 0.01 against 0.2");
  CHECK(inconclusive_nodes(g, 1).size() == 1);
}

TEST_CASE("pc findings: a module or the whole program gives way to a function found true",
          "[pc]") {
  std::vector<node_view> g{
      node(0, {}, "CPUbound", "/Code", "/Machine", "true", 0.99, 0.6),
      node(1, {0}, "CPUbound", "/Code/libc.so.6", "/Machine", "true", 0.98, 1.4),
      node(2, {0}, "CPUbound", "/Code/pc_cpu/main", "/Machine", "true", 0.98, 1.9),
      node(3, {2}, "CPUbound", "/Code/pc_cpu/tokenize", host, "true", 0.9, 8.8),
      node(4, {0}, "CPUbound", "/Code", thread, "true", 0.97, 2.0),
  };
  auto f = findings(g);
  // libc.so.6 (every stack starts there) gives way to tokenize; the thread, which tokenize's
  // node does not name, stays a finding of its own.
  REQUIRE(f.size() == 2);
  CHECK(f[0].node.id == 4);
  CHECK(f[1].node.id == 3);
}

TEST_CASE("pc findings: a wait in libc or a function without a symbol names the program's call",
          "[pc]") {
  const std::string lock = "/SyncObject/Mutex/0x55d0c0a4a140";
  std::vector<node_view> g = {
      node(0, {}, "ExcessiveSyncWaitingTime", "/Code", "/Machine", "true", 2.8, 0.8),
      node(1, {0}, "ExcessiveSyncWaitingTime", "/Code/app/update_shared_table", "/Machine", "true",
           2.8, 0.8),
      node(2, {1}, "ExcessiveSyncWaitingTime", "/Code/libc.so.6/__pthread_mutex_lock", "/Machine",
           "true", 2.8, 0.8),
      node(3, {2}, "ExcessiveSyncWaitingTime", "/Code/libc.so.6/__lll_lock_wait", "/Machine",
           "true", 2.8, 0.8),
      node(4, {3}, "ExcessiveSyncWaitingTime", "/Code/libc.so.6/__lll_lock_wait", "/Machine",
           "true", 2.8, 0.8, lock),
      // A stripped library's inner loop under its exported entry.
      node(5, {}, "CPUbound", "/Code", "/Machine", "true", 0.9, 1.0),
      node(6, {5}, "CPUbound", "/Code/liblzma.so.5/lzma_code", "/Machine", "true", 0.9, 1.0),
      node(7, {6}, "CPUbound", "/Code/liblzma.so.5/liblzma.so.5+0x15ae0", "/Machine", "true",
           0.9, 1.0),
      node(8, {7}, "CPUbound", "/Code/liblzma.so.5/liblzma.so.5+0x15ae0", thread, "true", 0.9,
           1.1),
  };
  auto f = findings(g);
  REQUIRE(f.size() == 2);
  auto& wait = f[0].node.id == 4 ? f[0] : f[1];
  auto& cpu = f[0].node.id == 4 ? f[1] : f[0];
  CHECK(wait.function == "__lll_lock_wait (libc.so.6)");
  CHECK(wait.caller == "update_shared_table (app)");
  CHECK(wait.text ==
        "ExcessiveSyncWaitingTime 280% of time in __lll_lock_wait (libc.so.6) from "
        "update_shared_table (app) \u2014 on Mutex/0x55d0c0a4a140 \u2014 since 0.8 s");
  CHECK(cpu.caller == "lzma_code (liblzma.so.5)");
  // A named function of the program's own needs no caller.
  auto plain = findings(xz_graph());
  REQUIRE(plain.size() == 1);
  CHECK(plain[0].caller.empty());
}

TEST_CASE("pc findings: perfdm's preloaded I/O library is never the caller named", "[pc]") {
  std::vector<node_view> g = {
      node(0, {}, "ExcessiveIOBlockingTime", "/Code", "/Machine", "true", 0.6, 0.9),
      node(1, {0}, "ExcessiveIOBlockingTime", "/Code/libsqlite3.so.0/sqlite3PagerCommitPhaseOne",
           "/Machine", "true", 0.6, 0.9),
      node(2, {1}, "ExcessiveIOBlockingTime", "/Code/libperfdm-io.so/fdatasync", "/Machine",
           "true", 0.6, 0.9),
      node(3, {2}, "ExcessiveIOBlockingTime", "/Code/libc.so.6/fdatasync", "/Machine", "true",
           0.6, 0.9),
  };
  auto f = findings(g);
  REQUIRE(f.size() == 1);
  CHECK(f[0].function == "fdatasync (libc.so.6)");
  CHECK(f[0].caller == "sqlite3PagerCommitPhaseOne (libsqlite3.so.0)");
  CHECK(f[0].text.find("libperfdm-io") == std::string::npos);
}

TEST_CASE("pc findings: over several hosts a finding names the host with its process or thread",
          "[pc]") {
  // One host: as before.
  auto one = settled_findings(xz_graph());
  REQUIRE(one.size() == 1);
  CHECK(one[0].host == "h");
  CHECK_FALSE(one[0].host_named);
  CHECK(one[0].text.find("\u2014 thread xz{4711} \u2014") != std::string::npos);
  // The same pid on a second host: the live lines (settled findings) tell them apart.
  auto two = xz_graph();
  two.push_back(node(10, {3}, "CPUbound", "/Code/liblzma.so.5/lzma_code", "/Machine/g", "true", 0.98, 1.3));
  two.push_back(node(11, {10}, "CPUbound", "/Code/liblzma.so.5/lzma_code", "/Machine/g/xz{4711}",
                     "true", 0.98, 1.5));
  two.push_back(node(12, {11}, "CPUbound", "/Code/liblzma.so.5/lzma_code",
                     "/Machine/g/xz{4711}/xz{4711}", "false", 0.1));
  auto settled = settled_findings(two);
  REQUIRE(settled.size() == 2);
  CHECK(settled[0].text.find("\u2014 thread h:xz{4711} \u2014") != std::string::npos);
  CHECK(settled[1].host == "g");
  CHECK(settled[1].pid == 4711);
  CHECK(settled[1].text.find("\u2014 process g:xz{4711} \u2014") != std::string::npos);
  CHECK(machine_text("/Machine/g", true) == " \u2014 host g");
  CHECK(spans_hosts(two));
  CHECK_FALSE(spans_hosts(xz_graph()));
}
