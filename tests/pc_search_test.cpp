// The Performance Consultant's search logic (pc/), without actors: decisions with hysteresis
// and sufficient time, running averages, the SHG, refinement and admission, and whole
// searches driven by synthetic sample series.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <set>

#include "pc/admission.hpp"
#include "pc/experiment_series.hpp"
#include "pc/node_decision.hpp"
#include "pc/resource_tree.hpp"
#include "pc/search_engine.hpp"
#include "pc/search_graph.hpp"

using namespace perfdm::pc;

namespace {

decision_rule cpu_rule(double sufficient = 6) {
  return {0.30, true, 0.05, sufficient};
}

}  // namespace

TEST_CASE("pc: hysteresis makes CPUbound true above 0.315 and false again below 0.285", "[pc]") {
  node_decision d(cpu_rule(0.5), 0);
  d.evaluate(0.31, 1);  // above 0.30 but not above 0.315: still a false guess
  CHECK_FALSE(d.guess());
  d.evaluate(0.316, 2);
  CHECK(d.guess());
  CHECK(d.moved_threshold() == Approx(0.285));
  d.evaluate(0.29, 3);  // below 0.30 but not below 0.285: stays true
  CHECK(d.guess());
  d.evaluate(0.284, 4);
  CHECK_FALSE(d.guess());
  CHECK(d.moved_threshold() == Approx(0.315));
}

TEST_CASE("pc: a less-than test mirrors the hysteresis (TooManySmallIOOps)", "[pc]") {
  node_decision d({4096, false, 0.05, 1}, 0);
  d.evaluate(4000, 1);  // below 4096 but not below 3891.2
  CHECK_FALSE(d.guess());
  d.evaluate(3800, 2);
  CHECK(d.guess());
  d.evaluate(4200, 3);  // above 4096, not above 4300.8: stays true
  CHECK(d.guess());
}

TEST_CASE("pc: a node concludes after sufficientTime of agreeing data, a flip resets it", "[pc]") {
  node_decision d(cpu_rule(6), 0);
  for (int t = 1; t <= 5; ++t) CHECK_FALSE(d.evaluate(0.9, t));
  CHECK(d.concluded() == truth::unknown);
  CHECK_FALSE(d.evaluate(0.1, 5.5));  // a flip: the false guess starts from its 0.5 s
  CHECK(d.agreeing_time() == Approx(0.5));
  for (int t = 6; t <= 10; ++t) CHECK_FALSE(d.evaluate(0.1, t));
  CHECK(d.concluded() == truth::unknown);
  CHECK(d.evaluate(0.1, 11.5));  // 0.5 + 6 s of false guesses
  CHECK(d.concluded() == truth::false_);
  // A concluded node that sees the other side long enough becomes the other.
  for (int t = 12; t <= 17; ++t) CHECK_FALSE(d.evaluate(0.9, t));
  CHECK(d.evaluate(0.9, 17.5));
  CHECK(d.concluded() == truth::true_);
}

TEST_CASE("pc: the value is the running average since the experiment started, aligned", "[pc]") {
  experiment_series s(2, 1.0);
  s.add(0, 0.8, 1.0, 5);                                         // wholly before the start: ignored
  s.add(0, 1.0, 1.2, 0.2);                                       // amounts per bucket
  s.add(0, 1.2, 1.4, std::numeric_limits<double>::quiet_NaN());  // no sample: 0
  s.add(0, 1.4, 1.6, 0.1);
  CHECK_FALSE(s.aligned_end());  // input 1 has nothing yet
  s.add(1, 0.9, 1.1, 4);         // half of it after the start
  CHECK(*s.aligned_end() == Approx(1.1));
  CHECK(s.sum_until(1, 1.1) == Approx(2));
  s.add(1, 1.1, 1.4, 3);
  CHECK(*s.aligned_end() == Approx(1.4));  // the inputs meet at the earlier end
  CHECK(s.sum_until(0, 1.4) == Approx(0.2));
  CHECK(s.sum_until(1, 1.4) == Approx(5));
  s.add(0, 1.4, 1.6, 9);  // reported already: ignored
  CHECK(s.sum_until(0, 1.6) == Approx(0.3));
  // An input without data is idle up to the latest data time.
  s.idle_until(2.0);
  CHECK(*s.aligned_end() == Approx(2.0));
  CHECK(s.sum_until(1, 2.0) == Approx(5));
  // Late data for an idle stretch still counts.
  s.add(1, 1.4, 1.8, 1);
  CHECK(s.sum_until(1, 2.0) == Approx(6));
}

TEST_CASE("pc: SHG nodes are unique per (hypothesis, focus), a second path adds an edge", "[pc]") {
  search_graph g;
  auto [top, made_top] = g.reach(hypothesis::cpu_bound, focus{}, std::nullopt, edge_kind::why);
  CHECK(made_top);
  auto f1 = focus{}.with(hierarchy::code, "/Code/app/f");
  auto f2 = focus{}.with(hierarchy::machine, "/Machine/h");
  auto [a, made_a] = g.reach(hypothesis::cpu_bound, f1, top, edge_kind::where);
  auto [b, made_b] = g.reach(hypothesis::cpu_bound, f2, top, edge_kind::where);
  auto both = f1.with(hierarchy::machine, "/Machine/h");
  auto [c1, made_c1] = g.reach(hypothesis::cpu_bound, both, a, edge_kind::where);
  auto [c2, made_c2] = g.reach(hypothesis::cpu_bound, both, b, edge_kind::where);
  CHECK(made_a);
  CHECK(made_b);
  CHECK(made_c1);
  CHECK_FALSE(made_c2);
  CHECK(c1 == c2);
  CHECK(g.size() == 4);
  CHECK(g.at(c1).parents.size() == 2);
  CHECK(*g.at(c1).parent() == a);
  // The same focus under another hypothesis is another node.
  auto [s, made_s] =
      g.reach(hypothesis::excessive_sync_waiting_time, both, std::nullopt, edge_kind::why);
  CHECK(made_s);
  CHECK(s != c1);
}

TEST_CASE("pc: /Code is refined along the call graph, the others along their resources", "[pc]") {
  resource_tree t;
  t.add("/Code/app/main");
  t.add("/Code/app/parse");
  t.add("/Machine/h/app{7}/worker{8}");
  t.add("/Machine/h/app{7}/main{7}");
  t.add("/Process/app{7}");  // not a PC hierarchy: ignored
  CHECK(t.refinements(hierarchy::code, "/Code") == std::vector<std::string>{"/Code/app"});
  CHECK(t.refinements(hierarchy::machine, "/Machine/h/app{7}") ==
        std::vector<std::string>{"/Machine/h/app{7}/main{7}", "/Machine/h/app{7}/worker{8}"});
  CHECK(t.processes_under("/Machine") == 1);
  t.add("/Machine/h/other{9}");
  CHECK(t.processes_under("/Machine") == 2);
  CHECK(t.processes_under("/Machine/h/app{7}/worker{8}") == 1);
  t.set_call_graph({"/Code/app/main"},
                   {{"/Code/app/main", "/Code/app/parse"}, {"/Code/app/parse", "/Code/app/parse"}});
  CHECK(t.refinements(hierarchy::code, "/Code") == std::vector<std::string>{"/Code/app/main"});
  CHECK(t.refinements(hierarchy::code, "/Code/app/main") ==
        std::vector<std::string>{"/Code/app/parse"});
  CHECK(t.refinements(hierarchy::code, "/Code/app/parse").empty());  // recursion left out
}

TEST_CASE("pc: admission takes why (5) before where (10), within limits and the budget", "[pc]") {
  admission a({2, 3, 0.10});
  a.push(10, where_priority);
  a.push(11, why_priority);
  a.push(12, where_priority);
  a.push(13, why_priority);
  CHECK(*a.next(0, 0) == 11);
  CHECK(*a.next(1, 0) == 13);
  CHECK_FALSE(a.next(2, 0));  // two pending
  CHECK_FALSE(a.next(0, 3));  // three active
  a.observe_cost(0.15, 1.0);  // measured 15 % > 10 %
  CHECK(a.over_budget());
  CHECK_FALSE(a.next(0, 0));
  a.observe_cost(0.05, 1.0);
  CHECK(*a.next(0, 0) == 10);
  CHECK(*a.next(0, 0) == 12);
  CHECK_FALSE(a.next(0, 0));
}

namespace {

// A synthetic program: a rate for each metric at each focus, and a driver feeding the
// search's experiments 0.2 s buckets of it, as the data manager would.
using model = std::function<double(const std::string& metric, const focus& f)>;

struct driver {
  driver(search_engine& s, model m) : search(s), rates(std::move(m)) {}
  search_engine& search;
  model rates;
  std::map<std::pair<std::uint64_t, std::size_t>, std::string> metric_of;
  double now = 0;
  std::vector<std::string> log;  // "CPUbound true <focus>" per conclusion

  void step(double width = 0.2) {
    for (auto& o : search.admit()) {
      metric_of[{o.node, o.input}] = o.metric;
      search.enabled(o.node, o.input, now);
    }
    search.take_disables();
    double end = now + width;
    for (auto& [key, metric] : metric_of) {
      auto& n = search.graph().at(key.first);
      if (!n.active) continue;
      search.data(key.first, key.second, now, end, rates(metric, n.focus) * width);
    }
    now = end;
    search.evaluate(now);
    for (auto id : search.take_changes()) {
      auto& n = search.graph().at(id);
      if (n.state == node_state::true_ || n.state == node_state::false_)
        log.push_back(std::string(info(n.hyp).name) + " " + state_name(n.state) + " " +
                      n.focus.text());
    }
  }
  void run(double until) {
    while (now < until - 1e-9) step();
  }
};

bool under(const std::string& component, const std::set<std::string>& hot) {
  return hot.count(component) != 0;
}

// main() waits in join; a worker thread burns 90 % of a CPU in hot(), called by compute(),
// called by the thread's start routine; idle() (called by main) never runs.
void cpu_program(search_engine& s) {
  for (auto r :
       {"/Code/app/main", "/Code/app/idle", "/Code/app/start", "/Code/app/compute", "/Code/app/hot",
        "/Machine/h/app{1}/app{1}", "/Machine/h/app{1}/worker{2}", "/SyncObject/Join/main+12"})
    s.add_resource(r);
  s.set_call_graph({"/Code/app/main", "/Code/app/start"}, {{"/Code/app/main", "/Code/app/idle"},
                                                           {"/Code/app/start", "/Code/app/compute"},
                                                           {"/Code/app/compute", "/Code/app/hot"}});
}

double cpu_rates(const std::string& metric, const focus& f) {
  if (metric != "cpu") return 0;
  bool code = f[hierarchy::code] == "/Code" || f[hierarchy::code] == "/Code/app" ||
              under(f[hierarchy::code], {"/Code/app/start", "/Code/app/compute", "/Code/app/hot"});
  auto& m = f[hierarchy::machine];
  bool machine = m == "/Machine" || m == "/Machine/h" || m == "/Machine/h/app{1}" ||
                 m == "/Machine/h/app{1}/worker{2}";
  return code && machine ? 0.9 : 0;
}

// The true nodes none of whose children of the same hypothesis is true.
std::vector<const shg_node*> true_leaves(const search_graph& g) {
  std::vector<const shg_node*> out;
  for (auto& n : g.nodes()) {
    if (n.state != node_state::true_) continue;
    bool leaf = true;
    for (auto c : n.children)
      if (g.at(c).state == node_state::true_ && g.at(c).hyp == n.hyp) leaf = false;
    if (leaf) out.push_back(&n);
  }
  return out;
}

}  // namespace

TEST_CASE("pc: a CPU-bound callee deep in a call chain is found, with its thread", "[pc]") {
  tunables t;
  t.sufficient_time = 2;
  search_engine s(t, 0);
  cpu_program(s);
  driver d{s, cpu_rates};
  d.run(40);
  auto leaves = true_leaves(s.graph());
  REQUIRE(leaves.size() == 1);
  CHECK(leaves[0]->hyp == hypothesis::cpu_bound);
  CHECK(leaves[0]->focus[hierarchy::code] == "/Code/app/hot");
  CHECK(leaves[0]->focus[hierarchy::machine] == "/Machine/h/app{1}/worker{2}");
  CHECK(leaves[0]->focus[hierarchy::syncobject] == "/SyncObject");
  CHECK(leaves[0]->value == Approx(0.9));
  CHECK(leaves[0]->threshold == Approx(0.30));
  // No true node on the idle function or the idle thread; the where-children of a true
  // node were tested (CPUbound at idle() concluded false).
  for (auto& n : s.graph().nodes()) {
    if (n.state != node_state::true_) continue;
    CHECK(n.focus[hierarchy::code] != "/Code/app/idle");
    CHECK(n.focus[hierarchy::code] != "/Code/app/main");
    CHECK(n.focus[hierarchy::machine] != "/Machine/h/app{1}/app{1}");
    CHECK(n.hyp == hypothesis::cpu_bound);
  }
  // main() is not hot: concluded false, its experiment stopped, its callee idle() never
  // tried (false parents are not refined).
  auto main =
      s.graph().find(hypothesis::cpu_bound, focus{}.with(hierarchy::code, "/Code/app/main"));
  REQUIRE(main);
  CHECK(s.graph().at(*main).state == node_state::false_);
  CHECK_FALSE(s.graph().at(*main).active);
  CHECK_FALSE(
      s.graph().find(hypothesis::cpu_bound, focus{}.with(hierarchy::code, "/Code/app/idle")));
  // CPU prunes /SyncObject: no CPUbound node names a lock.
  for (auto& n : s.graph().nodes())
    if (n.hyp == hypothesis::cpu_bound) CHECK(n.focus[hierarchy::syncobject] == "/SyncObject");
  // The top nodes are persistent and stay active after a false conclusion.
  auto sync_top = s.graph().find(hypothesis::excessive_sync_waiting_time, focus{});
  CHECK(s.graph().at(*sync_top).state == node_state::false_);
  CHECK(s.graph().at(*sync_top).active);
  CHECK(s.settled());
}

TEST_CASE("pc: with SUFFICIENT_TIME a node concludes only after it (2 s, and Paradyn's 6 s)",
          "[pc]") {
  for (double sufficient : {2.0, 6.0}) {
    tunables t;
    t.sufficient_time = sufficient;
    search_engine s(t, 0);
    cpu_program(s);
    driver d{s, cpu_rates};
    d.run(sufficient - 0.4);
    auto top = *s.graph().find(hypothesis::cpu_bound, focus{});
    CHECK(s.graph().at(top).state == node_state::unknown);
    d.run(sufficient + 0.6);
    CHECK(s.graph().at(top).state == node_state::true_);
    CHECK(*s.graph().at(top).since == Approx(sufficient + 0.2).margin(0.21));
  }
}

TEST_CASE("pc: sync waiting is refined by code and lock, never by machine", "[pc]") {
  tunables t;
  t.sufficient_time = 1;
  search_engine s(t, 0);
  for (auto r : {"/Code/app/main", "/Code/app/locker", "/Machine/h/app{1}/worker{2}",
                 "/SyncObject/Mutex/0x1000", "/SyncObject/Mutex/0x2000"})
    s.add_resource(r);
  s.set_call_graph({"/Code/app/main"}, {{"/Code/app/main", "/Code/app/locker"}});
  driver d{s, [](const std::string& metric, const focus& f) {
             if (metric != "sync_wait") return 0.0;
             auto& so = f[hierarchy::syncobject];
             bool lock = so == "/SyncObject" || so == "/SyncObject/Mutex" ||
                         so == "/SyncObject/Mutex/0x1000";
             auto& c = f[hierarchy::code];
             bool code = c != "/Code/app/main" || true;  // main calls locker: inclusive
             return lock && code ? 0.6 : 0.0;
           }};
  d.run(30);
  bool found_lock = false;
  for (auto& n : s.graph().nodes()) {
    if (n.hyp != hypothesis::excessive_sync_waiting_time) continue;
    CHECK(n.focus[hierarchy::machine] == "/Machine");
    if (n.state == node_state::true_ &&
        n.focus[hierarchy::syncobject] == "/SyncObject/Mutex/0x1000" &&
        n.focus[hierarchy::code] == "/Code/app/locker")
      found_lock = true;
    if (n.focus[hierarchy::syncobject] == "/SyncObject/Mutex/0x2000")
      CHECK(n.state != node_state::true_);
  }
  CHECK(found_lock);
}

TEST_CASE("pc: over several hosts sync waiting is refined by machine too, down to the process",
          "[pc]") {
  tunables t;
  t.sufficient_time = 1;
  search_engine s(t, 0);
  for (auto r : {"/Code/app/main", "/Code/app/locker", "/Machine/h1/app{1}/app{1}",
                 "/Machine/h2/app{2}/app{2}", "/SyncObject/Mutex/0x1000"})
    s.add_resource(r);
  s.set_call_graph({"/Code/app/main"}, {{"/Code/app/main", "/Code/app/locker"}});
  // Only host h2's process waits, on its lock.
  driver d{s, [](const std::string& metric, const focus& f) {
             if (metric != "sync_wait") return 0.0;
             auto& m = f[hierarchy::machine];
             bool there = m == "/Machine" || m.rfind("/Machine/h2", 0) == 0;
             return there ? 0.6 : 0.0;
           }};
  d.run(30);
  bool found_process = false, h1_true = false;
  for (auto& n : s.graph().nodes()) {
    if (n.hyp != hypothesis::excessive_sync_waiting_time || n.state != node_state::true_) continue;
    if (n.focus[hierarchy::machine] == "/Machine/h2/app{2}") found_process = true;
    if (n.focus[hierarchy::machine].rfind("/Machine/h1", 0) == 0) h1_true = true;
  }
  CHECK(found_process);
  CHECK_FALSE(h1_true);
  // Not down to the threads: each would repeat its process's lock.
  for (auto& n : s.graph().nodes())
    if (n.hyp == hypothesis::excessive_sync_waiting_time)
      CHECK(n.focus[hierarchy::machine] != "/Machine/h2/app{2}/app{2}");
}

TEST_CASE("pc: over several hosts each top hypothesis starts at every process too, so one "
          "process in eight that waits is found though the whole is below the threshold",
          "[pc]") {
  tunables t;
  t.sufficient_time = 1;
  search_engine s(t, 0);
  s.add_resource("/Code/app/main");
  for (int h = 1; h <= 8; ++h) {
    auto host = "/Machine/h" + std::to_string(h);
    s.add_resource(host + "/app{" + std::to_string(h) + "}/app{" + std::to_string(h) + "}");
  }
  s.add_resource("/SyncObject/Mutex/0x1000");
  s.set_call_graph({"/Code/app/main"}, {});
  // Host h8's process waits 60 % of its time: 7.5 % of the eight processes' time.
  driver d{s, [](const std::string& metric, const focus& f) {
             if (metric != "sync_wait") return 0.0;
             auto& m = f[hierarchy::machine];
             bool there = m == "/Machine" || m.rfind("/Machine/h8", 0) == 0;
             return there ? 0.6 : 0.0;
           }};
  d.run(30);
  auto sync = hypothesis::excessive_sync_waiting_time;
  auto top = s.graph().find(sync, focus{});
  REQUIRE(top);
  CHECK(s.graph().at(*top).state == node_state::false_);
  auto outlier = s.graph().find(sync, focus{}.with(hierarchy::machine, "/Machine/h8/app{8}"));
  REQUIRE(outlier);
  CHECK(s.graph().at(*outlier).state == node_state::true_);
  auto quiet = s.graph().find(sync, focus{}.with(hierarchy::machine, "/Machine/h3/app{3}"));
  REQUIRE(quiet);
  CHECK(s.graph().at(*quiet).state == node_state::false_);
  // Refined there like any true node: where in its code it waits, on which lock.
  auto lock = s.graph().find(sync, focus{}
                                       .with(hierarchy::machine, "/Machine/h8/app{8}")
                                       .with(hierarchy::code, "/Code/app/main")
                                       .with(hierarchy::syncobject, "/SyncObject/Mutex/0x1000"));
  REQUIRE(lock);
  CHECK(s.graph().at(*lock).state == node_state::true_);
}

TEST_CASE("pc: on one host the search starts at the top only", "[pc]") {
  tunables t;
  t.sufficient_time = 1;
  search_engine s(t, 0);
  s.add_resource("/Machine/h1/app{1}/app{1}");
  s.add_resource("/Machine/h1/app{2}/app{2}");
  for (auto h : {hypothesis::cpu_bound, hypothesis::excessive_sync_waiting_time})
    CHECK_FALSE(s.graph().find(h, focus{}.with(hierarchy::machine, "/Machine/h1/app{1}")));
}

TEST_CASE("pc: I/O blocking is refined why-first into TooManySmallIOOps", "[pc]") {
  tunables t;
  t.sufficient_time = 1;
  search_engine s(t, 0);
  s.add_resource("/Code/app/writer");
  s.add_resource("/Machine/h/app{1}");
  s.set_call_graph({"/Code/app/writer"}, {});
  driver d{s, [](const std::string& metric, const focus&) {
             if (metric == "io_wait") return 0.5;
             if (metric == "io_ops") return 1000.0;
             if (metric == "io_bytes") return 16000.0;  // 16 bytes per operation
             return 0.0;
           }};
  // Stop right after the top I/O node is true: its why-child must come before any
  // where-child in the admission order.
  auto top = *s.graph().find(hypothesis::excessive_io_blocking_time, focus{});
  while (s.graph().at(top).state != node_state::true_) d.step();
  auto orders = s.admit();
  REQUIRE_FALSE(orders.empty());
  CHECK(s.graph().at(orders[0].node).hyp == hypothesis::too_many_small_io_ops);
  CHECK(orders[0].metric == "io_bytes");
  CHECK(orders[1].metric == "io_ops");
  for (auto& o : orders) {
    d.metric_of[{o.node, o.input}] = o.metric;
    s.enabled(o.node, o.input, d.now);
  }
  d.run(d.now + 10);
  auto small = s.graph().find(hypothesis::too_many_small_io_ops, focus{});
  REQUIRE(small);
  CHECK(s.graph().at(*small).state == node_state::true_);
  CHECK(s.graph().at(*small).value == Approx(16));
  auto small_writer = s.graph().find(hypothesis::too_many_small_io_ops,
                                     focus{}.with(hierarchy::code, "/Code/app/writer"));
  REQUIRE(small_writer);
  CHECK(s.graph().at(*small_writer).state == node_state::true_);
}

TEST_CASE("pc: no I/O operation at all is no small I/O (a division by 0 tests false)", "[pc]") {
  tunables t;
  t.sufficient_time = 1;
  search_engine s(t, 0);
  s.add_resource("/Code/app/f");
  driver d{s, [](const std::string& metric, const focus&) {
             return metric == "io_wait" ? 0.5 : 0.0;  // blocked, but no operation counted
           }};
  d.run(10);
  auto small = s.graph().find(hypothesis::too_many_small_io_ops, focus{});
  REQUIRE(small);
  CHECK(s.graph().at(*small).state == node_state::false_);
  CHECK(s.graph().at(*small).value == 0);
}

TEST_CASE("pc: ending a search makes every node inactive and keeps its truth", "[pc]") {
  tunables t;
  t.sufficient_time = 1;
  search_engine s(t, 0);
  cpu_program(s);
  driver d{s, cpu_rates};
  d.run(3);
  auto top = *s.graph().find(hypothesis::cpu_bound, focus{});
  REQUIRE(s.graph().at(top).state == node_state::true_);
  auto disables = s.end();
  CHECK_FALSE(disables.empty());
  for (auto& n : s.graph().nodes()) CHECK_FALSE(n.active);
  CHECK(s.graph().at(top).state == node_state::true_);
  CHECK(s.admit().empty());
  auto size = s.graph().size();
  d.run(10);  // data after the end changes nothing
  CHECK(s.graph().size() == size);
}

TEST_CASE("pc: the cost budget pauses admission while the measured cost is over it", "[pc]") {
  tunables t;
  t.sufficient_time = 1;
  search_engine s(t, 0);
  cpu_program(s);
  driver d{s, cpu_rates};
  d.run(2);  // the top nodes are true: refinements queued
  s.observe_cost(0.2, 1.0);
  CHECK(s.cost_limited());
  CHECK(s.admit().empty());
  s.observe_cost(0.01, 1.0);
  CHECK_FALSE(s.cost_limited());
  CHECK_FALSE(s.admit().empty());
}

TEST_CASE("pc: a function discovered after its caller was refined is added to it", "[pc]") {
  tunables t;
  t.sufficient_time = 1;
  search_engine s(t, 0);
  s.add_resource("/Code/app/start");
  s.set_call_graph({"/Code/app/start"}, {});
  driver d{s, cpu_rates};
  d.run(6);
  auto start =
      s.graph().find(hypothesis::cpu_bound, focus{}.with(hierarchy::code, "/Code/app/start"));
  REQUIRE(start);
  CHECK(s.graph().at(*start).state == node_state::true_);
  CHECK_FALSE(
      s.graph().find(hypothesis::cpu_bound, focus{}.with(hierarchy::code, "/Code/app/compute")));
  s.set_call_graph({"/Code/app/start"}, {{"/Code/app/start", "/Code/app/compute"}});
  CHECK(s.graph().find(hypothesis::cpu_bound, focus{}.with(hierarchy::code, "/Code/app/compute")));
}

TEST_CASE("pc: I/O blocking is refined along /File straight to the files, CPU and sync never",
          "[pc]") {
  tunables t;
  t.sufficient_time = 1;
  search_engine s(t, 0);
  for (auto r : {"/Code/app/writer", "/Machine/h/app{1}", "/File/var/db/test.db",
                 "/File/var/db/test.db-journal", "/File/socket:[4711]"})
    s.add_resource(r);
  s.set_call_graph({"/Code/app/writer"}, {});
  driver d{s, [](const std::string& metric, const focus& f) {
             auto& file = f[hierarchy::file];
             bool db = file == "/File" || file == "/File/var/db/test.db";
             if (metric == "io_wait") return db ? 0.5 : 0.0;
             if (metric == "cpu") return 0.6;
             if (metric == "sync_wait") return 0.4;
             return 0.0;
           }};
  d.run(30);
  auto at_db = s.graph().find(hypothesis::excessive_io_blocking_time,
                              focus{}.with(hierarchy::file, "/File/var/db/test.db"));
  REQUIRE(at_db);
  CHECK(s.graph().at(*at_db).state == node_state::true_);
  CHECK(focus{}.with(hierarchy::file, "/File/var/db/test.db").text() ==
        "</Code, /Machine, /SyncObject, /File/var/db/test.db>");
  CHECK(focus{}.text() == "</Code, /Machine, /SyncObject>");
  auto at_journal = s.graph().find(hypothesis::excessive_io_blocking_time,
                                   focus{}.with(hierarchy::file, "/File/var/db/test.db-journal"));
  REQUIRE(at_journal);
  CHECK(s.graph().at(*at_journal).state == node_state::false_);
  for (auto& n : s.graph().nodes()) {
    // No node at a directory: the files are reached at once.
    CHECK(n.focus[hierarchy::file] != "/File/var");
    CHECK(n.focus[hierarchy::file] != "/File/var/db");
    if (n.hyp == hypothesis::cpu_bound || n.hyp == hypothesis::excessive_sync_waiting_time)
      CHECK(n.focus[hierarchy::file] == "/File");
  }
}
