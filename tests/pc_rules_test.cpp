// The Performance Consultant's rules for programs with more than one thread of work, without
// actors or processes: the window's classes of thread-samples (idle, caused, contended), the
// values as shares of the active threads, blame, Paradyn's hierarchy for small I/O, and the
// ranking by what a fix would save (docs/PROTOCOL.md §12 "Idle, caused, contended").
#include <catch2/catch.hpp>

#include "pc/evidence.hpp"
#include "pc/findings.hpp"
#include "pc/search_wire.hpp"
#include "window/sample_window.hpp"
#include "window/window_evidence.hpp"

using namespace perfdm;

namespace {

constexpr std::int64_t ms = 1000000;
const native::sampled_process app{"h", "app", 7};

native::sampled_thread running(int tid, const char* function) {
  native::sampled_thread t;
  t.tid = tid;
  t.name = "t" + std::to_string(tid);
  t.activity = native::thread_activity::runs;
  t.functions = {{"app", function}, {"app", "main"}};
  return t;
}

native::sampled_thread waiting(int tid, const char* kind, const char* object,
                               const char* function) {
  native::sampled_thread t;
  t.tid = tid;
  t.name = "t" + std::to_string(tid);
  t.activity = std::string(kind) == "Mutex" ? native::thread_activity::blocks
                                            : native::thread_activity::waits;
  t.functions = {{"libc.so.6", "pthread_cond_wait"}, {"app", function}};
  t.waits_on = {kind, object, function};
  return t;
}

// The window's counts at a focus since 0, as one process's evidence.
pc::process_evidence evidence(const window::sample_window& w, std::vector<std::string> focus) {
  return pc::evidence_of(
      window::evidence_counts_of(w.count(native::parse_pc_focus(focus), 0), 7, ""));
}

double per_sample(double sum, const window::focus_counts& c) {
  return sum / static_cast<double>(c.ticks);
}

}  // namespace

TEST_CASE("pc R1: a parked pool's waits are idle, not sync waiting, its threads are counted idle",
          "[pc][pc-rules]") {
  // The main thread computes; four pool threads wait on the queue's condition and never run.
  window::sample_window w(app);
  for (int i = 1; i <= 100; ++i) {
    std::vector<native::sampled_thread> threads{running(7, "compute")};
    for (int k = 0; k < 4; ++k)
      threads.push_back(waiting(8 + k, "CondVar", "0x5000", "pool_worker"));
    w.add(i * 10 * ms, 0.01, threads);
  }
  auto all = w.count(native::parse_pc_focus({}), 0);
  CHECK(all.runs == 100);
  CHECK(all.syncs == 0);  // the pool is idle
  CHECK(per_sample(all.idle, all) == Approx(4));
  CHECK(per_sample(all.runs_share, all) == Approx(1.0));  // of the one active thread
  auto cond = w.count(native::parse_pc_focus({"/SyncObject/CondVar"}), 0);
  CHECK(cond.syncs == 0);
  CHECK(cond.ticks == 100);
  // What the search concludes from it: no sync waiting at all, CPU 100 %.
  auto sync = pc::evaluate_evidence(pc::value_kind::rate_per_process, pc::sampled_state::syncs,
                                    {evidence(w, {})}, 2.576, {});
  CHECK(sync.value == 0);
  CHECK(sync.idle == Approx(4));
  auto cpu = pc::evaluate_evidence(pc::value_kind::rate_per_process, pc::sampled_state::runs,
                                   {evidence(w, {})}, 2.576, {});
  CHECK(cpu.value == Approx(1.0));
  CHECK(cpu.score == Approx(1.0));
  // A pool thread that works now and then (more than 2 % of its samples) is not parked.
  window::sample_window busy_pool(app);
  for (int i = 1; i <= 100; ++i)
    busy_pool.add(
        i * 10 * ms, 0.01,
        {running(7, "compute"),
         i % 10 == 0 ? running(8, "task") : waiting(8, "CondVar", "0x5000", "pool_worker")});
  auto pool = busy_pool.count(native::parse_pc_focus({"/Machine/h/app{7}/t8{8}"}), 0);
  CHECK(pool.idle == 0);
  CHECK(pool.runs == 10);
}

TEST_CASE("pc R4: a wait on a condition while other threads work is caused, blamed on the work",
          "[pc][pc-rules]") {
  // A producer waits for queue space 90 % of the time; the consumer renders all the time.
  window::sample_window w(app);
  for (int i = 1; i <= 100; ++i)
    w.add(i * 10 * ms, 0.01,
          {i % 10 == 0 ? running(8, "make_item") : waiting(8, "CondVar", "0x6000", "producer"),
           running(9, "render_item")});
  auto all = w.count(native::parse_pc_focus({}), 0);
  CHECK(all.syncs == 0);  // caused: no sync waiting of its own
  CHECK(all.idle == 0);   // and not idle either: the producer works
  auto render = w.count(native::parse_pc_focus({"/Code/app/render_item"}), 0);
  CHECK(render.runs == 100);
  // Blame: 0.9 threads wait for the consumer's work on average.
  CHECK(per_sample(render.runs_blamed, render) == Approx(0.9));
  // The producer's own CPU is 10 % of its samples.
  auto producer = w.count(native::parse_pc_focus({"/Machine/h/app{7}/t8{8}"}), 0);
  CHECK(per_sample(producer.runs_share, producer) == Approx(0.1));
  auto v = pc::evaluate_evidence(pc::value_kind::rate_per_process, pc::sampled_state::runs,
                                 {evidence(w, {"/Code/app/render_item"})}, 2.576, {});
  CHECK(v.blamed == Approx(0.9));
  // The active threads are both: rendering is 100 of 190 thread-samples' share per sample.
  CHECK(v.value == Approx((90 * 0.5 + 10 * 0.5) / 100.0));
  // What rendering faster would save: all of it when it runs alone, half when both run.
  CHECK(v.score == Approx((90 * 1.0 + 10 * 0.5) / 100.0));
}

TEST_CASE("pc R15: threads taking turns at one object are contention, a lock always is",
          "[pc][pc-rules]") {
  // CPython's GIL without its symbols: four threads, one runs, three wait on one condition.
  window::sample_window gil(app);
  for (int i = 1; i <= 100; ++i) {
    std::vector<native::sampled_thread> threads;
    for (int k = 0; k < 4; ++k)
      threads.push_back(k == i % 4 ? running(8 + k, "eval")
                                   : waiting(8 + k, "CondVar", "0x9000", "take"));
    gil.add(i * 10 * ms, 0.01, threads);
  }
  auto all = gil.count(native::parse_pc_focus({}), 0);
  CHECK(all.syncs == 300);
  CHECK(all.syncs_most == 3);
  CHECK(per_sample(all.syncs_share, all) == Approx(0.75));
  CHECK(all.idle == 0);
  auto v = pc::evaluate_evidence(pc::value_kind::rate_per_process, pc::sampled_state::syncs,
                                 {evidence(gil, {})}, 2.576, {});
  CHECK(v.value == Approx(0.75));  // a share: never over 100 %
  CHECK(v.ci.high <= 1.0);
  CHECK(v.threads == Approx(3));  // "3.0 threads waiting on average"
  // A mutex's waiters are contention whoever runs, even a thread that never takes it.
  window::sample_window lock(app);
  for (int i = 1; i <= 50; ++i)
    lock.add(i * 10 * ms, 0.01, {running(7, "other"), waiting(8, "Mutex", "0x7000", "update")});
  CHECK(lock.count(native::parse_pc_focus({"/SyncObject/Mutex"}), 0).syncs == 50);
  // A wait while nothing else in the process is busy keeps its finding: its cause is outside.
  window::sample_window alone(app);
  for (int i = 1; i <= 50; ++i)
    alone.add(i * 10 * ms, 0.01,
              {i % 5 == 0 ? running(8, "reply") : waiting(8, "Futex", "0x8000", "rpc_wait")});
  CHECK(alone.count(native::parse_pc_focus({}), 0).syncs == 40);
}

TEST_CASE("pc R2: without shares (one thread at a time) the counts stand for them",
          "[pc][pc-rules]") {
  pc::process_evidence p;
  p.ticks = 100;
  p.most = {1, 0, 0};
  p.hits = {90, 0, 0};
  p.last = 1;
  auto v = pc::evaluate_evidence(pc::value_kind::rate_per_process, pc::sampled_state::runs, {p},
                                 2.576, {});
  CHECK(v.value == Approx(0.9));
  CHECK(v.score == Approx(0.9));  // the share stands for the saving too
  // Given shares, they decide: four threads of which one runs.
  p.most = {1, 0, 0};
  p.hits = {100, 0, 0};
  p.share = {25, 0, 0};
  p.saving = {100, 0, 0};
  v = pc::evaluate_evidence(pc::value_kind::rate_per_process, pc::sampled_state::runs, {p}, 2.576,
                            {});
  CHECK(v.value == Approx(0.25));
  CHECK(v.score == Approx(1.0));
}

namespace {

// 100 stack samples over 1 s of a thread running half the time and never blocked in I/O, which
// made `ops` operations of `bytes` bytes in all.
pc::process_evidence unblocked(double ops, double bytes) {
  pc::process_evidence e;
  e.ticks = 100;
  e.first = 0;
  e.last = 1;
  e.io_ops = ops;
  e.io_bytes = bytes;
  e.share = {50, 0, 0};
  e.most = {1, 0, 0};
  return e;
}

}  // namespace

TEST_CASE("pc R9: TooManySmallIOOps is tested only under true I/O blocking", "[pc][pc-rules]") {
  auto small = unblocked(100, 1600);  // 100 operations of 16 bytes
  pc::evidence_rule rule{4096, false, 0.05, 0.99, {}, 0.2};
  pc::evidence_decision startup(rule);
  CHECK(startup.take(pc::hypothesis::too_many_small_io_ops, {small}));
  CHECK(startup.concluded() == pc::truth::false_);
  // Blocked in I/O 80 % of the time: now they are the bottleneck.
  auto blocked = small;
  blocked.hits = {0, 0, 80};
  blocked.most = {0, 0, 1};
  blocked.share = {0, 0, 80};
  blocked.saving = {0, 0, 80};
  pc::evidence_decision io(rule);
  CHECK(io.take(pc::hypothesis::too_many_small_io_ops, {blocked}));
  CHECK(io.concluded() == pc::truth::true_);
  CHECK(io.last().score == Approx(0.8));  // ranked as the I/O blocking it is under
  // Without the parent's threshold (a rule of its own) the ratio alone decides, as before.
  pc::evidence_decision alone({4096, false, 0.05, 0.99, {}, 0});
  CHECK(alone.take(pc::hypothesis::too_many_small_io_ops, {small}));
  CHECK(alone.concluded() == pc::truth::true_);
}

TEST_CASE("pc R9: too few operations to size where the program never blocks in I/O is false",
          "[pc][pc-rules]") {
  auto once = unblocked(1, 41);  // one 41-byte write (a first line on standard output)
  pc::evidence_decision d({4096, false, 0.05, 0.99, {}, 0.2});
  CHECK(d.take(pc::hypothesis::too_many_small_io_ops, {once}));
  CHECK(d.concluded() == pc::truth::false_);
  // Blocked in I/O half the time, the same single operation says nothing yet.
  auto blocked = once;
  blocked.hits = {0, 0, 50};
  blocked.most = {0, 0, 1};
  blocked.share = {0, 0, 50};
  pc::evidence_decision open({4096, false, 0.05, 0.99, {}, 0.2});
  CHECK_FALSE(open.take(pc::hypothesis::too_many_small_io_ops, {blocked}));
  CHECK(open.concluded() == pc::truth::unknown);
  // Nor does it before the samples' floor.
  auto early = once;
  early.ticks = 5;
  pc::evidence_decision soon({4096, false, 0.05, 0.99, {}, 0.2});
  CHECK_FALSE(soon.take(pc::hypothesis::too_many_small_io_ops, {early}));
  CHECK(soon.concluded() == pc::truth::unknown);
}

namespace {

pc::node_view finding_node(std::uint64_t id, const char* hypothesis, const char* code,
                           const char* machine, double value, double score) {
  pc::node_view n;
  n.id = id;
  n.hypothesis = hypothesis;
  n.code = code;
  n.machine = machine;
  n.state = "true";
  n.value = value;
  n.threshold = std::string(hypothesis) == "CPUbound" ? 0.3 : 0.2;
  n.since = 1;
  n.score = score;
  return n;
}

}  // namespace

TEST_CASE("pc R14: findings rank by what a fix would save, and say how many threads",
          "[pc][pc-rules]") {
  // xz -T2: each worker's lzma_code is 100 % of its thread but shares the machine with the
  // other (a fix saves half); a lock three threads wait on saves three quarters.
  std::vector<pc::node_view> nodes{
      finding_node(1, "CPUbound", "/Code/liblzma.so.5/lzma_code", "/Machine/h/xz{1}/xz{2}", 1.0,
                   0.5),
      finding_node(2, "ExcessiveSyncWaitingTime", "/Code/app/update", "/Machine", 0.6, 0.75)};
  nodes[1].syncobject = "/SyncObject/Mutex/0x10";
  nodes[1].threads = 3;
  nodes[0].blamed = 0.9;
  auto f = pc::findings(nodes);
  REQUIRE(f.size() == 2);
  CHECK(f[0].node.id == 2);
  CHECK(f[0].text ==
        "ExcessiveSyncWaitingTime 60% of time (3.0 threads waiting on average) in "
        "update (app) \u2014 on Mutex/0x10 \u2014 since 1.0 s");
  CHECK(f[1].text ==
        "CPUbound 100% of time in lzma_code (liblzma.so.5) \u2014 thread xz{2} "
        "\u2014 0.9 threads wait for it \u2014 since 1.0 s");
  // Without the evidence's score (Paradyn's rule), value over threshold ranks, as before.
  nodes[0].score = nodes[1].score = std::nan("");
  f = pc::findings(nodes);
  CHECK(f[0].node.id == 1);  // 1.0 / 0.3 over 0.6 / 0.2
  // The idle threads, said once.
  pc::node_view top;
  top.id = 0;
  top.hypothesis = "CPUbound";
  top.idle = 4.02;
  CHECK(pc::idle_threads({top}) == Approx(4.02));
  CHECK(pc::idle_text(4.02) == "4 threads idle, waiting for work");
  CHECK(pc::idle_text(0.2).empty());
}
