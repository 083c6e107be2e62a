// Concluding on the evidence, without actors: the stack sample window
// (window/sample_window.hpp), the statistics (pc/evidence.hpp) and a search that decides its
// nodes on the samples since it began, including those taken before a node was made.
#include <catch2/catch.hpp>
#include <random>

#include "pc/evidence.hpp"
#include "pc/search_engine.hpp"
#include "pc/search_wire.hpp"
#include "window/sample_window.hpp"
#include "window/window_evidence.hpp"

using namespace perfdm;
using namespace perfdm::pc;

namespace {

native::sampled_thread thread(int tid, const char* name, native::thread_activity a,
                              std::vector<std::pair<std::string, std::string>> functions) {
  native::sampled_thread t;
  t.tid = tid;
  t.name = name;
  t.activity = a;
  t.functions = std::move(functions);
  if (a == native::thread_activity::blocks) t.waits_on = {"Mutex", "0x1000", ""};
  return t;
}

const native::sampled_process app{"h", "app", 7};

// Runs in hot() (called by main) on thread 7; thread 8 waits on a mutex in lock_it().
std::vector<native::sampled_thread> busy_threads() {
  return {thread(7, "app", native::thread_activity::runs, {{"app", "hot"}, {"app", "main"}}),
          thread(8, "worker", native::thread_activity::blocks,
                 {{"libc.so.6", "futex_wait"}, {"app", "lock_it"}})};
}

constexpr std::int64_t ms = 1000000;

// The window's counts as an EVIDENCE without shares gives them (one thread at a time: the
// counts stand for them), so that these tests keep to the decision itself; the shares are
// tests/pc_rules_test.cpp's.
process_evidence of(const window::focus_counts& c) {
  auto e = evidence_of(window::evidence_counts_of(c, 7, ""));
  e.share = e.saving = {std::nan(""), std::nan(""), std::nan("")};
  return e;
}

}  // namespace

TEST_CASE("pc evidence: z and Wilson's interval match their textbook values", "[pc][pc-evidence]") {
  CHECK(z_two_sided(0.05) == Approx(1.95996).epsilon(1e-4));
  CHECK(z_two_sided(0.01) == Approx(2.57583).epsilon(1e-4));
  auto w = wilson(0.5, 100, 1.95996);
  CHECK(w.low == Approx(0.4038).epsilon(1e-3));
  CHECK(w.high == Approx(0.5962).epsilon(1e-3));
  // Near 0 it stays inside [0, 1] and is not degenerate.
  auto z = wilson(0, 20, 2.576);
  CHECK(z.low == Approx(0).margin(1e-12));
  CHECK(z.high > 0.2);
}

TEST_CASE("pc window: a focus counts the thread-samples at it since a time", "[pc][pc-evidence]") {
  window::sample_window w(app);
  for (int i = 1; i <= 100; ++i) w.add(i * 10 * ms, 0.01, busy_threads());
  auto hot = w.count(native::parse_pc_focus({"/Code/app/hot"}), 0);
  CHECK(hot.ticks == 100);
  CHECK(hot.runs == 100);
  CHECK(hot.runs_most == 1);
  CHECK(hot.syncs == 0);
  CHECK(hot.scope == 2);  // both threads are in the focus's /Machine part (all of it)
  CHECK(hot.cpu_s == Approx(1.0));
  auto lock = w.count(native::parse_pc_focus({"/SyncObject/Mutex"}), 0.5);
  CHECK(lock.ticks == 51);  // 0.50 s … 1.00 s
  CHECK(lock.syncs == 51);
  CHECK(lock.runs == 0);
  CHECK(lock.first == Approx(0.5));
  CHECK(lock.last == Approx(1.0));
  auto worker = w.count(native::parse_pc_focus({"/Code/app/hot", "/Machine/h/app{7}/worker{8}"}), 0);
  CHECK(worker.runs == 0);
  CHECK(worker.scope == 1);
  auto nothing = w.count(native::parse_pc_focus({"/Process/x"}), 0);
  CHECK(nothing.ticks == 0);
  // Another process's thread: outside the focus, no samples (a rate per process is not
  // divided by this process).
  auto elsewhere = w.count(native::parse_pc_focus({"/Machine/h/sh{9}"}), 0);
  CHECK(elsewhere.ticks == 0);
  CHECK(elsewhere.scope == 0);
  CHECK(w.stats().shapes == 2);  // two threads, each with one stack: interned once
}

TEST_CASE("pc window: a thread joining another is idle, not a sync wait", "[pc][pc-evidence]") {
  // The main thread joins its worker, which waits on a mutex: only the mutex is sync time.
  auto threads = busy_threads();
  auto joining = thread(7, "app", native::thread_activity::waits, {{"libc.so.6", "pthread_join"}});
  joining.waits_on = {"Join", "0x7f00", "main"};
  threads[0] = joining;
  window::sample_window w(app);
  for (int i = 1; i <= 50; ++i) w.add(i * 10 * ms, 0.01, threads);
  auto all = w.count(native::parse_pc_focus({"/"}), 0);
  CHECK(all.syncs == 50);
  CHECK(all.syncs_most == 1);
  CHECK(all.sync_s == Approx(0.5));
  CHECK(w.count(native::parse_pc_focus({"/SyncObject/Join"}), 0).syncs == 0);
  CHECK(w.count(native::parse_pc_focus({"/SyncObject/Mutex"}), 0).syncs == 50);
}

TEST_CASE("pc window: the span and the byte bound evict the oldest samples, counted",
          "[pc][pc-evidence]") {
  window::sample_window by_span(app, {1.0, 1u << 30});
  for (int i = 1; i <= 300; ++i) by_span.add(i * 10 * ms, 0.01, busy_threads());
  auto s = by_span.stats();
  CHECK(s.ticks == 101);  // 2.00 s … 3.00 s
  CHECK(s.evicted_ticks == 199);
  CHECK(s.evicted_thread_samples == 398);
  CHECK(s.oldest == Approx(2.0));
  CHECK(by_span.count(native::parse_pc_focus({}), 0).ticks == 101);

  window::sample_window by_bytes(app, {120, 8192});
  for (int i = 1; i <= 1000; ++i) by_bytes.add(i * 10 * ms, 0.01, busy_threads());
  auto b = by_bytes.stats();
  CHECK(b.bytes <= 8192);
  CHECK(b.ticks > 10);
  CHECK(b.evicted_ticks == 1000 - b.ticks);
  CHECK(b.evicted_bytes > 0);
  // A stack no sample holds any more is dropped with its last sample.
  window::sample_window changing(app, {0.05, 1u << 30});
  for (int i = 1; i <= 20; ++i)
    changing.add(i * 10 * ms, 0.01,
                 {thread(7, "app", native::thread_activity::runs,
                         {{"app", "f" + std::to_string(i)}})});
  CHECK(changing.stats().shapes == 6);
}

TEST_CASE("pc evidence: a clear case concludes at the floor, a short burst does not",
          "[pc][pc-evidence]") {
  evidence_rule rule{0.30, true, 0.05, 0.99, {}};
  window::sample_window w(app);
  evidence_decision d(rule);
  auto focus = native::parse_pc_focus({"/Code/app/hot"});
  int i = 1;
  // 40 samples in 0.4 s: more than 20, but under the 0.5 s span.
  for (; i <= 40; ++i) w.add(i * 10 * ms, 0.01, busy_threads());
  CHECK_FALSE(d.take(hypothesis::cpu_bound, {of(w.count(focus, 0))}));
  CHECK(d.looks() == 0);
  CHECK(d.last().value == Approx(1.0));
  for (; i <= 52; ++i) w.add(i * 10 * ms, 0.01, busy_threads());
  CHECK(d.take(hypothesis::cpu_bound, {of(w.count(focus, 0))}));
  CHECK(d.concluded() == truth::true_);
  CHECK(d.last().ci.low > 0.315);
  // The same counts for a function that never runs: false as soon.
  evidence_decision idle(rule);
  CHECK(idle.take(hypothesis::cpu_bound,
                  {of(w.count(native::parse_pc_focus({"/Code/app/lock_it"}), 0))}));
  CHECK(idle.concluded() == truth::false_);
}

TEST_CASE("pc evidence: repeated looks keep wrong conclusions rare at the indifference edge",
          "[pc][pc-evidence]") {
  // 200 nodes whose true share is 0.285 (threshold 0.30 − hysteresis): looked at as samples
  // come, up to 30 s at 100 samples/s, none may conclude true more often than the 1 % the
  // confidence allows (a fixed 99 % at every look would, far more often).
  std::mt19937 rng(24);
  std::bernoulli_distribution running(0.285);
  int wrong = 0, concluded = 0;
  for (int node = 0; node < 200; ++node) {
    evidence_decision d({0.30, true, 0.05, 0.99, {}});
    process_evidence e;
    e.most = {1, 0, 0};
    for (int i = 1; i <= 3000; ++i) {
      ++e.ticks;
      e.hits[0] += running(rng) ? 1 : 0;
      e.last = i * 0.01;
      if (i % 25 == 0 && d.take(hypothesis::cpu_bound, {e})) break;
    }
    wrong += d.concluded() == truth::true_ ? 1 : 0;
    concluded += d.concluded() != truth::unknown ? 1 : 0;
  }
  CHECK(wrong <= 4);
  CHECK(concluded < 200);  // right at the edge, many stay unknown: no forced answer
}

TEST_CASE("pc evidence: several threads and processes, per process", "[pc][pc-evidence]") {
  // 4 threads waiting on one lock at every sample, counted without shares (EVIDENCE that gives
  // none: the counts stand for them): 4 per process. The windows give shares (R2, below 1:
  // tests/pc_rules_test.cpp).
  process_evidence p;
  p.ticks = 100;
  p.most = {0, 4, 0};
  p.hits = {0, 400, 0};
  p.last = 1;
  auto one = evaluate_evidence(value_kind::rate_per_process, sampled_state::syncs, {p}, 2.576, {});
  CHECK(one.value == Approx(4));
  CHECK(one.ci.low > 3.5);
  CHECK(one.enough);
  // Two such processes: the rate per process stays 4; the interval widens (Bonferroni).
  auto two =
      evaluate_evidence(value_kind::rate_per_process, sampled_state::syncs, {p, p}, 2.576, {});
  CHECK(two.value == Approx(4));
  CHECK(two.ci.low <= one.ci.low);
  CHECK(two.samples == 200);
  // I/O blocking too is per process (a share, never summed over processes past 100 %).
  auto io = p;
  io.most = {0, 0, 1};
  io.hits = {0, 0, 50};
  auto per =
      evaluate_evidence(value_kind::rate_per_process, sampled_state::ios, {io, io}, 2.576, {});
  CHECK(per.value == Approx(0.5));
  // A ratio is counted, not sampled; no operation is no small operation.
  process_evidence ops;
  ops.ticks = 100;
  ops.last = 1;
  ops.io_ops = 100;
  ops.io_bytes = 51200;
  auto small = evaluate_evidence(value_kind::ratio, sampled_state::runs, {ops}, 2.576, {});
  CHECK(small.value == Approx(512));
  CHECK(small.enough);
  evidence_decision none({4096, false, 0.05, 0.99, {}});
  ops.io_ops = ops.io_bytes = 0;
  CHECK(none.take(hypothesis::too_many_small_io_ops, {ops}));
  CHECK(none.concluded() == truth::false_);
}

namespace {

// The evidence of a program that has run `t` seconds at 100 stack samples/s, with hot()
// (under start() and compute()) running on worker{2} 90 % of the time.
std::vector<process_evidence> cpu_evidence(const focus& f, double t) {
  auto& c = f[hierarchy::code];
  auto& m = f[hierarchy::machine];
  bool code = c == "/Code" || c == "/Code/app" || c == "/Code/app/start" ||
              c == "/Code/app/compute" || c == "/Code/app/hot";
  bool machine = m == "/Machine" || m == "/Machine/h" || m == "/Machine/h/app{1}" ||
                 m == "/Machine/h/app{1}/worker{2}";
  process_evidence e;
  e.ticks = static_cast<std::uint64_t>(t * 100);
  e.most = {1, 0, 0};
  e.hits = {code && machine ? e.ticks * 9 / 10 : 0, 0, 0};
  e.last = t;
  return {e};
}

}  // namespace

TEST_CASE("pc evidence: a node made later is decided on the samples since the search began",
          "[pc][pc-evidence]") {
  search_engine s(tunables{}, 0);  // no SUFFICIENT_TIME: the evidence rule
  REQUIRE(s.uses_evidence());
  for (auto r : {"/Code/app/main", "/Code/app/idle", "/Code/app/start", "/Code/app/compute",
                 "/Code/app/hot", "/Machine/h/app{1}/app{1}", "/Machine/h/app{1}/worker{2}"})
    s.add_resource(r);
  s.set_call_graph({"/Code/app/main", "/Code/app/start"}, {{"/Code/app/main", "/Code/app/idle"},
                                                           {"/Code/app/start", "/Code/app/compute"},
                                                           {"/Code/app/compute", "/Code/app/hot"}});
  // Rounds at 0.6 s, 0.61 s, …: each round's new nodes are decided at once, on all the
  // samples since 0, so the whole chain is found within a few rounds, not a sufficient time
  // per level.
  double t = 0.6;
  for (int round = 0; round < 20; ++round, t += 0.01) {
    s.admit();
    for (auto id : s.wanting_evidence()) s.evidence(id, cpu_evidence(s.graph().at(id).focus, t), t);
  }
  auto hot = s.graph().find(hypothesis::cpu_bound,
                            focus{}
                                .with(hierarchy::code, "/Code/app/hot")
                                .with(hierarchy::machine, "/Machine/h/app{1}/worker{2}"));
  REQUIRE(hot);
  CHECK(s.graph().at(*hot).state == node_state::true_);
  CHECK(*s.graph().at(*hot).since < 0.8);
  auto idle_thread = s.graph().find(hypothesis::cpu_bound,
                                    focus{}
                                        .with(hierarchy::code, "/Code/app/hot")
                                        .with(hierarchy::machine, "/Machine/h/app{1}/app{1}"));
  REQUIRE(idle_thread);
  CHECK(s.graph().at(*idle_thread).state == node_state::false_);
  auto main = s.graph().find(hypothesis::cpu_bound, focus{}.with(hierarchy::code, "/Code/app/main"));
  REQUIRE(main);
  CHECK(s.graph().at(*main).state == node_state::false_);
  // The search's MIs still exist: every node that was started asked for them.
  CHECK(s.graph().at(*hot).active);
}

TEST_CASE("pc evidence: SUFFICIENT_TIME selects Paradyn's fixed wait instead",
          "[pc][pc-evidence]") {
  tunables t;
  t.sufficient_time = 2;
  search_engine s(t, 0);
  CHECK_FALSE(s.uses_evidence());
  s.admit();
  CHECK(s.wanting_evidence().empty());  // decided on the MIs' data, as before
}

TEST_CASE("pc evidence: a process sampled 4 times a second concludes on 10 clear samples",
          "[pc][pc-evidence]") {
  // A daemon of a loaded cluster: one busy thread, a sample every 0.25 s.
  evidence_rule rule{0.30, true, 0.05, 0.99, {}};
  window::sample_window w(app);
  evidence_decision d(rule);
  auto focus = native::parse_pc_focus({"/Code/app/hot"});
  bool concluded = false;
  int i = 1;
  for (; i <= 40 && !concluded; ++i) {
    w.add(i * 250 * ms, 0.25, busy_threads());
    concluded = d.take(hypothesis::cpu_bound, {of(w.count(focus, 0))});
  }
  CHECK(concluded);
  CHECK(d.concluded() == truth::true_);
  CHECK(i - 1 <= 12);  // 2.5–3 s of samples, not the 5 s 20 of them take
  CHECK(i - 1 >= 10);  // the floor
}

TEST_CASE("pc evidence: a round that left a process out changes neither the value nor the "
          "conclusion",
          "[pc][pc-evidence]") {
  // Over a cluster a late daemon's process is missing from a round (its counts come in the
  // next): the node, concluded true at 100 %, was shown at 0 %.
  evidence_rule rule{0.30, true, 0.05, 0.99, {}};
  window::sample_window w(app);
  evidence_decision d(rule);
  auto focus = native::parse_pc_focus({"/Code/app/hot"});
  for (int i = 1; i <= 60; ++i) w.add(i * 10 * ms, 0.01, busy_threads());
  REQUIRE(d.take(hypothesis::cpu_bound, {of(w.count(focus, 0))}));
  REQUIRE(d.concluded() == truth::true_);
  CHECK_FALSE(d.take(hypothesis::cpu_bound, {}));
  CHECK(d.concluded() == truth::true_);
  CHECK(d.last().value == Approx(1.0));
  CHECK(d.last().samples == 60);
  // The next round with it again goes on as before.
  for (int i = 61; i <= 70; ++i) w.add(i * 10 * ms, 0.01, busy_threads());
  CHECK_FALSE(d.take(hypothesis::cpu_bound, {of(w.count(focus, 0))}));
  CHECK(d.last().samples == 70);
  CHECK(d.last().value == Approx(1.0));
}

TEST_CASE("pc evidence: WINDOW's answers as EVIDENCE leave out the processes with no sample",
          "[pc][pc-evidence]") {
  using namespace perfdm::pc;
  focus top;
  auto f = top.with(hierarchy::code, "/Code/app/work");
  window_answers a;
  evidence_counts own_at_top{}, own_at_f{}, remote_at_top{}, silent{};
  own_at_top.pid = 10, own_at_top.ticks = 4, own_at_top.last = 2.5;
  own_at_f.pid = 10, own_at_f.ticks = 3, own_at_f.last = 2.5;
  remote_at_top.pid = 10, remote_at_top.ticks = 2, remote_at_top.last = 3.25;
  silent.pid = 11;  // no sample at /Code/app/work
  a.processes.push_back({10, "engine-host", {own_at_top, own_at_f}, 0, 5, 0});
  a.processes.push_back({10, "node-b", {remote_at_top, silent}, 0, 2, 0});
  auto note = evidence_note_of(7, 1.0, {top, f}, a, "engine-host");
  CHECK(note.search == 7);
  CHECK(note.time == 3.25);  // the latest sample counted, later than the data time given
  CHECK(note.evicted == 7);
  REQUIRE(note.foci.size() == 2);
  CHECK(note.foci[0].code == "/Code");
  REQUIRE(note.foci[0].processes.size() == 2);
  CHECK(note.foci[0].processes[0].host.empty());  // the engine's own names no host
  CHECK(note.foci[0].processes[1].host == "node-b");
  CHECK(note.foci[1].code == "/Code/app/work");
  REQUIRE(note.foci[1].processes.size() == 1);  // node-b's process had no sample there
  CHECK(note.foci[1].processes[0].ticks == 3);
  CHECK(focus_of(note.foci[1]) == f);
  // An answer later than every sample keeps its own time.
  CHECK(evidence_note_of(0, 9.0, {top}, a, "engine-host").time == 9.0);
}
