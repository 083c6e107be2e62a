// The Performance Consultant's metrics from synthetic stack samples, without actors or
// processes: resource names, focus matching, inclusive attribution, the object a blocked
// thread waits on, the sampled call graph, and the sampler that turns samples into DM samples.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <regex>

#include "messages/callgraph_messages.hpp"
#include "messages/xml_codec.hpp"
#include "native/call_graph.hpp"
#include "native/focus_attribution.hpp"
#include "native/pc_resources.hpp"
#include "native/sync_object.hpp"
#include "native/thread_proc_files.hpp"
#include "sources/callgraph_report.hpp"
#include "sources/pc_sample_builder.hpp"
#include "tests/sampled_stacks.hpp"

using namespace perfdm;
using namespace perfdm::native;
using sampled_stacks::frame;
using sampled_stacks::futex_on;

namespace {

const char* const app = "/opt/app/pc_cpu";
const char* const libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";

// main → run → parse → tokenize, innermost first, below glibc's start-up code.
std::vector<stack_frame> tokenize_stack() {
  return {frame(app, "(anonymous namespace)::tokenize(std::string const&)", 30),
          frame(app, "(anonymous namespace)::parse(std::string const&)", 42),
          frame(app, "(anonymous namespace)::run()", 50),
          frame(app, "main", 66),
          frame(libc, "__libc_start_call_main"),
          frame(libc, "__libc_start_main_impl"),
          frame(app, "_start")};
}

// A thread blocked on a mutex in update_shared_table.
std::vector<stack_frame> mutex_stack() {
  return {frame(libc, "__lll_lock_wait"),
          frame(libc, "___pthread_mutex_lock"),
          frame(app, "update_shared_table()", 34),
          frame(app, "locker(int)", 41),
          frame(libc, "start_thread"),
          frame(libc, "clone3")};
}

std::vector<stack_frame> sleep_stack() {
  return {frame(libc, "__GI___clock_nanosleep"), frame(libc, "__GI___nanosleep"),
          frame(app, "(anonymous namespace)::idle_housekeeping()", 58), frame(libc, "start_thread"),
          frame(libc, "clone3")};
}

const sampled_process process{"h", "pc_cpu", 100};

sampled_thread thread(int tid, const char* name, char state, std::vector<stack_frame> frames,
                      const thread_syscall& syscall = {}) {
  thread_stack t{tid, name, state, std::move(frames), {}, {}};
  auto io = [](const std::string&, const std::string& f) { return f == "read" || f == "write"; };
  return describe_thread(t, classify_thread(state, t.frames, io), syscall);
}

double amount_at(const std::string& focus_list, pc_metric metric,
                 const std::vector<sampled_thread>& threads, double covered) {
  std::vector<std::string> resources;
  for (std::size_t at = 0; at <= focus_list.size();) {
    auto comma = focus_list.find(',', at);
    if (comma == std::string::npos) comma = focus_list.size();
    resources.push_back(focus_list.substr(at, comma - at));
    at = comma + 1;
  }
  auto focus = parse_pc_focus(resources);
  double sum = 0;
  for (auto& t : threads)
    if (focus_matches(focus, process, t))
      sum += thread_amount(metric, t, covered, focus.at_call());
  return sum;
}

// One stack sample of thread 101 with its io counters `io`, at `at`: what each MI got added to
// `total`.
void sample_io(pc_sample_builder& s, sampled_thread t, thread_io io, time_ns at,
               std::map<std::uint64_t, double>& total) {
  std::vector<sampled_thread> threads = {std::move(t)};
  s.apply_io(threads, {{101, io}});
  s.add(threads, 0.01, at);
  std::vector<sample> out;
  s.flush(0, out, true);
  for (auto& x : out) total[x.mi.id] += x.value;
}

}  // namespace

TEST_CASE("PC resource names: functions without parameters, parts safe for a FOCUS list",
          "[pc-metrics]") {
  CHECK(function_part("(anonymous namespace)::tokenize(std::string const&)") == "tokenize");
  CHECK(function_part("ns::Parser::parse(int, char) const") == "ns::Parser::parse");
  CHECK(function_part("Functor::operator()(int)") == "Functor::operator()");
  // The characters a resource part cannot hold are %XX in a function's part, read back whole.
  CHECK(function_part("std::map<int, int>::find") == "std::map<int%2C%20int>::find");
  CHECK(function_part("crypto/sha256.block") == "crypto%2Fsha256.block");
  CHECK(function_name("crypto/sha256.(*digest).Write") == "crypto/sha256.(*digest).Write");
  CHECK(function_name("main.main.func1") == "main.main.func1");
  CHECK(function_name("S::get() const &&") == "S::get");
  CHECK(function_part("[jit node]") == "[jit%20node]");
  CHECK(function_part("100%") == "100%25");
  CHECK(function_part("a/b") == "a%2Fb");
  CHECK(function_part("") == "?");
  CHECK(function_part("main") == "main");
  CHECK(module_part("/usr/lib/x86_64-linux-gnu/libc.so.6") == "libc.so.6");
  CHECK(module_part("") == "?");
  CHECK(code_resource(tokenize_stack()[0]) == "/Code/pc_cpu/tokenize");
  CHECK(thread_resource("h", "pc_cpu", 100, "worker 2", 101) ==
        "/Machine/h/pc_cpu{100}/worker_2{101}");
  CHECK(sync_object_resource("Mutex", "0x10") == "/SyncObject/Mutex/0x10");
}

TEST_CASE("PC focus: one part per hierarchy, ids in braces, roots constrain nothing",
          "[pc-metrics]") {
  auto f =
      parse_pc_focus({"/Code/pc_cpu/parse", "/Machine/h/pc_cpu{100}/worker{124}", "/SyncObject"});
  CHECK_FALSE(f.matches_nothing);
  REQUIRE(f.code.size() == 1);
  CHECK(f.code[0].module == "pc_cpu");
  CHECK(f.code[0].function == "parse");
  REQUIRE(f.machine.size() == 1);
  CHECK(f.machine[0].pid == 100);
  CHECK(f.machine[0].tid == 124);
  CHECK(f.machine[0].thread == "worker");
  CHECK(f.sync.empty());
  CHECK(parse_pc_focus({"/"}).code.empty());
  CHECK(parse_pc_focus({"/Code", "/Machine"}).machine.empty());
  CHECK(parse_pc_focus({"/Process/app{1}"}).matches_nothing);
  CHECK(parse_pc_focus({"/Code/m/f/g"}).matches_nothing);
  CHECK(parse_pc_focus({"/Machine/h/p{1}/t{2}/x"}).matches_nothing);
  // A process part without a well-formed id is matched by name.
  auto by_name = parse_pc_focus({"/Machine/h/pc_cpu{x}"});
  REQUIRE(by_name.machine.size() == 1);
  CHECK(by_name.machine[0].pid == 0);
  CHECK(by_name.machine[0].process == "pc_cpu{x}");
}

TEST_CASE(
    "PC metrics are inclusive along /Code: a sample counts for every function on its "
    "stack",
    "[pc-metrics]") {
  std::vector<sampled_thread> threads = {thread(100, "pc_cpu", 'R', tokenize_stack()),
                                         thread(101, "housekeeper", 'S', sleep_stack())};
  const double covered = 0.01;
  for (const char* f : {"tokenize", "parse", "run", "main"})
    CHECK(amount_at(std::string("/Code/pc_cpu/") + f, pc_metric::cpu, threads, covered) ==
          Approx(covered));
  CHECK(amount_at("/Code/pc_cpu/idle_housekeeping", pc_metric::cpu, threads, covered) == 0);
  CHECK(amount_at("/Code/pc_cpu/idle_housekeeping", pc_metric::active_threads, threads, covered) ==
        1);
  CHECK(amount_at("/Code/pc_cpu", pc_metric::cpu, threads, covered) == Approx(covered));
  CHECK(amount_at("/Code/libc.so.6", pc_metric::active_threads, threads, covered) == 2);
  CHECK(amount_at("/", pc_metric::cpu, threads, covered) == Approx(covered));
  CHECK(amount_at("/Code,/Machine,/SyncObject", pc_metric::active_threads, threads, covered) == 2);
  // The machine hierarchy: by tid, by name, another host or process matches nothing.
  CHECK(amount_at("/Code/pc_cpu/tokenize,/Machine/h/pc_cpu{100}/pc_cpu{100}", pc_metric::cpu,
                  threads, covered) == Approx(covered));
  CHECK(amount_at("/Code/pc_cpu/tokenize,/Machine/h/pc_cpu{100}/housekeeper{101}", pc_metric::cpu,
                  threads, covered) == 0);
  CHECK(amount_at("/Machine/h/pc_cpu/housekeeper", pc_metric::active_threads, threads, covered) ==
        1);
  CHECK(amount_at("/Machine/other", pc_metric::active_threads, threads, covered) == 0);
  CHECK(amount_at("/Machine/h/pc_cpu{99}", pc_metric::active_threads, threads, covered) == 0);
  // A sleeping thread is in none of the time metrics.
  CHECK(amount_at("/Machine/h/pc_cpu{100}/x{101}", pc_metric::sync_wait, threads, covered) == 0);
  CHECK(amount_at("/Machine/h/pc_cpu{100}/x{101}", pc_metric::io_wait, threads, covered) == 0);
  // A function absent from every stack, and a foreign resource, match nothing.
  CHECK(amount_at("/Code/pc_cpu/absent", pc_metric::active_threads, threads, covered) == 0);
  CHECK(amount_at("/Process/pc_cpu{100}", pc_metric::active_threads, threads, covered) == 0);
}

TEST_CASE("PC metrics: a blocked thread's time is sync_wait at the object it waits on",
          "[pc-metrics]") {
  std::vector<sampled_thread> threads = {
      thread(201, "locker-0", 'S', mutex_stack(), futex_on(0x55d0c0a4a140)),
      thread(202, "locker-1", 'S', mutex_stack(), futex_on(0x55d0c0a4a140)),
      thread(203, "locker-2", 'R',
             {frame(app, "spin()"), frame(app, "update_shared_table()", 35),
              frame(app, "locker(int)", 41)}),
      thread(204, "reader", 'S',
             {frame(libc, "__libc_read"), frame(app, "read_records()", 12), frame(app, "main")})};
  const double covered = 0.02;
  CHECK(amount_at("/", pc_metric::sync_wait, threads, covered) == Approx(2 * covered));
  CHECK(amount_at("/SyncObject/Mutex/0x55d0c0a4a140", pc_metric::sync_wait, threads, covered) ==
        Approx(2 * covered));
  CHECK(amount_at("/SyncObject/Mutex", pc_metric::sync_wait, threads, covered) ==
        Approx(2 * covered));
  CHECK(amount_at("/SyncObject/Mutex/0x1", pc_metric::sync_wait, threads, covered) == 0);
  CHECK(amount_at("/SyncObject/CondVar", pc_metric::sync_wait, threads, covered) == 0);
  // The holder runs: cpu at the function, none at the mutex.
  CHECK(amount_at("/Code/pc_cpu/update_shared_table", pc_metric::cpu, threads, covered) ==
        Approx(covered));
  CHECK(amount_at("/Code/pc_cpu/update_shared_table", pc_metric::sync_wait, threads, covered) ==
        Approx(2 * covered));
  CHECK(amount_at("/SyncObject/Mutex/0x55d0c0a4a140", pc_metric::cpu, threads, covered) == 0);
  CHECK(amount_at("/Machine/h/pc_cpu{100}/locker-1{202}", pc_metric::sync_wait, threads, covered) ==
        Approx(covered));
  // Blocked in read: io_wait.
  CHECK(amount_at("/Code/pc_cpu/read_records", pc_metric::io_wait, threads, covered) ==
        Approx(covered));
  CHECK(amount_at("/", pc_metric::io_wait, threads, covered) == Approx(covered));
}

TEST_CASE("PC metrics: waiting for a joined thread, a child or a signal is idle, not sync_wait",
          "[pc-metrics]") {
  // A main thread joining its workers, a shell waiting for its command, a signal thread: the
  // work they wait for is where the time goes (docs/NATIVE.md section 8).
  std::vector<sampled_thread> threads = {
      thread(301, "main", 'S',
             {frame(libc, "__futex_abstimed_wait_common"), frame(libc, "___pthread_join"),
              frame(app, "main", 80)},
             futex_on(0x7f00)),
      thread(302, "sh", 'S', {frame(libc, "wait4"), frame(app, "main", 12)}),
      thread(303, "signals", 'S', {frame(libc, "sigtimedwait"), frame(app, "signal_loop()")}),
      thread(304, "locker", 'S', mutex_stack(), futex_on(0x55d0c0a4a140))};
  const double covered = 0.02;
  CHECK(threads[0].waits_on.kind == "Join");
  CHECK(threads[1].waits_on.kind == "Child");
  CHECK(threads[2].waits_on.kind == "Signal");
  for (int i = 0; i < 3; ++i) CHECK(threads[i].activity == thread_activity::waits);
  CHECK(amount_at("/", pc_metric::sync_wait, threads, covered) == Approx(covered));
  CHECK(amount_at("/SyncObject/Join", pc_metric::sync_wait, threads, covered) == 0);
  CHECK(amount_at("/SyncObject/Child", pc_metric::sync_wait, threads, covered) == 0);
  CHECK(amount_at("/SyncObject/Mutex", pc_metric::sync_wait, threads, covered) ==
        Approx(covered));
  // The object is still the thread's resource (the timeline and the resource tree show it).
  auto resources = thread_resources(process, threads[0]);
  CHECK(std::find(resources.begin(), resources.end(), "/SyncObject/Join/0x7f00") !=
        resources.end());
}

TEST_CASE("the sync object: every futex wait by its address, its kind from the libc call",
          "[pc-metrics]") {
  auto m = identify_sync_object(mutex_stack(), futex_on(0x55d0c0a4a140));
  CHECK(m.kind == "Mutex");
  CHECK(m.object == "0x55d0c0a4a140");
  CHECK(m.call_site == "update_shared_table@34");
  // The thread was let go before its system call was read: the kind, no object (never the
  // call site: a function is no sync object).
  thread_syscall running;
  running.valid = running.running = true;
  auto site = identify_sync_object(mutex_stack(), running);
  CHECK(site.kind == "Mutex");
  CHECK(site.object.empty());
  CHECK(sync_object_resource(site.kind, site.object) == "/SyncObject/Mutex");
  // A condition variable by its futex word, rounded down to 8: both of glibc's words (4 bytes
  // apart) name one object.
  std::vector<stack_frame> cv_stack = {
      frame(libc, "__futex_abstimed_wait_common"), frame(libc, "___pthread_cond_wait"),
      frame("/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
            "std::condition_variable::wait(std::unique_lock<std::mutex>&)"),
      frame(app, "consumer()")};
  auto cv = identify_sync_object(cv_stack, futex_on(0x1238));
  CHECK(cv.kind == "CondVar");
  CHECK(cv.object == "0x1238");
  CHECK(identify_sync_object(cv_stack, futex_on(0x123c)).object == "0x1238");
  // Python's GIL: pthread_cond_timedwait under take_gil.
  auto gil = identify_sync_object({frame(libc, "__futex_abstimed_wait_common"),
                                   frame(libc, "___pthread_cond_timedwait64"),
                                   frame("/usr/bin/python3.11", "take_gil"),
                                   frame("/usr/bin/python3.11", "PyEval_RestoreThread")},
                                  futex_on(0x7f00aa48));
  CHECK(gil.kind == "CondVar");
  CHECK(gil.object == "0x7f00aa48");
  auto rw = identify_sync_object(
      {frame(libc, "__futex_abstimed_wait_common"), frame(libc, "___pthread_rwlock_wrlock"),
       frame(app, "writer()")},
      futex_on(0x400c));
  CHECK(rw.kind == "RWLock");
  CHECK(rw.object == "0x400c");
  auto sem = identify_sync_object(
      {frame(libc, "__futex_abstimed_wait_common"), frame(libc, "__new_sem_wait_slow64"),
       frame(libc, "sem_wait"), frame(app, "consumer()")},
      futex_on(0x5000));
  CHECK(sem.kind == "Semaphore");
  CHECK(sem.object == "0x5000");
  auto barrier = identify_sync_object(
      {frame(libc, "futex_wait"), frame(libc, "pthread_barrier_wait"), frame(app, "step()")},
      futex_on(0x6000));
  CHECK(barrier.kind == "Barrier");
  CHECK(barrier.object == "0x6000");
  auto join = identify_sync_object({frame(libc, "__futex_abstimed_wait_common"),
                                    frame(libc, "___pthread_join"), frame(app, "main", 80)},
                                   futex_on(0x7f00));
  CHECK(join.kind == "Join");
  CHECK(join.object == "0x7f00");
  // CPython at its exit waits for its threads (Py_FinalizeEx takes each thread's lock, a
  // semaphore at C level): a join, not a lock; the same wait elsewhere is the semaphore.
  const char* py = "/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0";
  std::vector<stack_frame> lock_wait = {frame(libc, "__futex_abstimed_wait_common"),
                                        frame(libc, "__new_sem_wait_slow64.constprop.0"),
                                        frame(py, "PyThread_acquire_lock_timed"),
                                        frame(py, "lock_PyThread_acquire_lock")};
  auto py_lock = identify_sync_object(lock_wait, futex_on(0x9000));
  CHECK(py_lock.kind == "Semaphore");
  lock_wait.push_back(frame(py, "Py_FinalizeEx"));
  lock_wait.push_back(frame(py, "Py_RunMain"));
  auto py_exit = identify_sync_object(lock_wait, futex_on(0x9000));
  CHECK(py_exit.kind == "Join");
  CHECK(py_exit.object == "0x9000");
  CHECK(waits_for_own_work(py_exit));
  // A futex under no known call (a wait inlined into libc, a program's own futex): Futex.
  auto futex = identify_sync_object(
      {frame(libc, "__futex_abstimed_wait_common"), frame(app, "PyObject_Free")},
      futex_on(0x8000));
  CHECK(futex.kind == "Futex");
  CHECK(futex.object == "0x8000");
  // Waits that are no futex: the kind when a call shows it, no object.
  auto child = identify_sync_object({frame(libc, "wait4"), frame(app, "main", 12)}, {});
  CHECK(child.kind == "Child");
  CHECK(child.object.empty());
  auto other = identify_sync_object({frame(libc, "epoll_pwait2"), frame(app, "loop()")}, {});
  CHECK(other.kind.empty());
  CHECK(identify_sync_object({}, {}).kind.empty());
  // A function name never becomes a sync object.
  for (auto& o : {m, site, cv, gil, rw, sem, barrier, join, futex, child, other})
    CHECK((o.object.empty() || o.object.compare(0, 2, "0x") == 0));
}

TEST_CASE("sync_object_namer: the address a call site waited on names its samples without one",
          "[pc-metrics]") {
  sync_object_namer namer;
  thread_syscall running;
  running.valid = running.running = true;
  // Before any address was seen: the kind only.
  CHECK(namer.name(mutex_stack(), running).object.empty());
  CHECK(namer.name(mutex_stack(), futex_on(0xabc)).object == "0xabc");
  CHECK(namer.name(mutex_stack(), running).object == "0xabc");
  CHECK(namer.name(mutex_stack(), {}).object == "0xabc");
  // A second address at the same call site: ambiguous, back to the kind.
  CHECK(namer.name(mutex_stack(), futex_on(0xdef)).object == "0xdef");
  CHECK(namer.name(mutex_stack(), running).object.empty());
  // Asleep in the futex of a known mutex when the state was read, running by the time the stack
  // was: that mutex. An unknown futex is a Futex by its address; no futex, nothing.
  std::vector<stack_frame> ran_on = {frame(app, "spin()"), frame(app, "update_shared_table()", 35)};
  auto woken = namer.name(ran_on, futex_on(0xabc));
  CHECK(woken.kind == "Mutex");
  CHECK(woken.object == "0xabc");
  auto unknown = namer.name(ran_on, futex_on(0x999));
  CHECK(unknown.kind == "Futex");
  CHECK(unknown.object == "0x999");
  CHECK(namer.name(ran_on, running).kind.empty());
  // Both words of a condition variable, and a woken waiter on either, are one object.
  std::vector<stack_frame> cv = {frame(libc, "___pthread_cond_wait"), frame(app, "consumer()", 9)};
  CHECK(namer.name(cv, futex_on(0x1028)).object == "0x1028");
  auto other_word = namer.name(ran_on, futex_on(0x102c));
  CHECK(other_word.kind == "Futex");  // that word not seen under the call yet
  CHECK(namer.name(cv, futex_on(0x102c)).object == "0x1028");
  auto woken_cv = namer.name(ran_on, futex_on(0x102c));
  CHECK(woken_cv.kind == "CondVar");
  CHECK(woken_cv.object == "0x1028");
}

TEST_CASE("/File: the descriptor of an I/O call names its file, by path or as the kernel does",
          "[pc-metrics]") {
  CHECK(file_resource("/var/lib/app/test.db") == "/File/var/lib/app/test.db");
  CHECK(file_resource("/tmp/a b,c") == "/File/tmp/a_b_c");
  CHECK(file_resource("socket:[4711]") == "/File/socket:[4711]");
  CHECK(file_resource("pipe:[812]") == "/File/pipe:[812]");
  CHECK(file_resource("") == "");
  auto fsync = parse_thread_syscall("74 0x3 0x0 0x0 0x0 0x0 0x0 0x7ffd 0x7f12\n");  // fsync(3)
  REQUIRE(io_call_descriptor(fsync));
  CHECK(*io_call_descriptor(fsync) == 3);
  CHECK(io_call_descriptor(parse_thread_syscall("0 0x5 0x7f00 0x1000 0x0 0x0 0x0 0x1 0x2")) == 5);
  CHECK_FALSE(io_call_descriptor(futex_on(0x1000)));
  CHECK_FALSE(io_call_descriptor(parse_thread_syscall("running")));
  CHECK_FALSE(io_call_descriptor(parse_thread_syscall("-1 0x7ffd 0x7f12")));
  // A descriptor of this process: its path, a pipe as the kernel names it.
  int p[2];
  REQUIRE(pipe(p) == 0);
  CHECK(std::regex_match(read_descriptor_target(getpid(), p[0]), std::regex("pipe:\\[[0-9]+\\]")));
  close(p[0]);
  close(p[1]);
  CHECK(read_descriptor_target(getpid(), 99999).empty());
}

TEST_CASE("PC metrics: a thread in an I/O call counts at its file and the file's folders",
          "[pc-metrics]") {
  auto db = thread(301, "writer", 'D',
                   {frame(libc, "fsync"), frame(app, "commit()", 20), frame(app, "main")});
  db.file = "/File/var/db/test.db";
  db.io_ops = db.stack_io_ops = 10;
  db.io_bytes = db.stack_io_bytes = 400;
  auto journal = thread(302, "journal", 'D', {frame(libc, "write"), frame(app, "log()", 5)});
  journal.file = "/File/var/db/test.db-journal";
  journal.io_ops = journal.stack_io_ops = 1;
  auto cpu = thread(303, "cpu", 'R', tokenize_stack());
  cpu.io_ops = 7;  // counted while it ran: never at a file
  std::vector<sampled_thread> threads{db, journal, cpu};
  const double covered = 0.01;
  CHECK(amount_at("/File/var/db/test.db", pc_metric::io_wait, threads, covered) ==
        Approx(covered));
  CHECK(amount_at("/File/var/db", pc_metric::io_wait, threads, covered) == Approx(2 * covered));
  CHECK(amount_at("/File/var/d", pc_metric::io_wait, threads, covered) == 0);
  CHECK(amount_at("/File", pc_metric::io_wait, threads, covered) == Approx(2 * covered));
  CHECK(amount_at("/File/var/db/test.db", pc_metric::io_ops, threads, covered) == 10);
  CHECK(amount_at("/File/var/db/test.db", pc_metric::io_bytes, threads, covered) == 400);
  CHECK(amount_at("/File", pc_metric::io_ops, threads, covered) == 18);
  CHECK(amount_at("/File/var/db/test.db", pc_metric::cpu, threads, covered) == 0);
  auto resources = thread_resources(process, db);
  CHECK(std::find(resources.begin(), resources.end(), "/File/var/db/test.db") != resources.end());
}

TEST_CASE("/proc/PID/task/TID/syscall and io are read", "[pc-metrics]") {
  auto futex = parse_thread_syscall("202 0x55db1324a140 0x80 0x2 0x0 0x0 0x0 0x7ffd 0x7f12\n");
  CHECK(futex.valid);
  CHECK_FALSE(futex.running);
  CHECK(futex.number == 202);
  CHECK(futex.args[0] == 0x55db1324a140u);
  CHECK(futex.args[2] == 2);
  CHECK(parse_thread_syscall("running\n").running);
  CHECK(parse_thread_syscall("-1 0x7ffd 0x7f12\n").number == -1);
  CHECK_FALSE(parse_thread_syscall("").valid);
  CHECK_FALSE(parse_thread_syscall("garbage").valid);
  CHECK_FALSE(parse_thread_syscall("202 0x1 0x2").valid);
  auto io = parse_thread_io(
      "rchar: 6476\nwchar: 74211112\nsyscr: 11\nsyscw: 4638193\n"
      "read_bytes: 0\nwrite_bytes: 0\ncancelled_write_bytes: 0\n");
  CHECK(io.rchar == 6476);
  CHECK(io.wchar == 74211112);
  CHECK(io.syscr == 11);
  CHECK(io.syscw == 4638193);
  CHECK(parse_thread_io("").syscw == 0);
}

TEST_CASE("the sampled call graph: entries and caller-callee edges with stack counts",
          "[pc-metrics]") {
  call_graph g;
  g.add_stack(tokenize_stack());
  g.add_stack(tokenize_stack());
  g.add_stack(mutex_stack());
  // Recursion: f → f adds no edge, and main → f counts once per stack.
  g.add_stack({frame(app, "f()"), frame(app, "f()"), frame(app, "main")});
  g.add_stack({});
  auto v = g.view();
  CHECK(v.stacks == 4);
  auto edge = [&](const std::string& caller, const std::string& callee) -> std::uint64_t {
    for (auto& e : v.edges)
      if (e.caller == caller && e.callee == callee) return e.samples;
    return 0;
  };
  CHECK(edge("/Code/pc_cpu/parse", "/Code/pc_cpu/tokenize") == 2);
  CHECK(edge("/Code/pc_cpu/run", "/Code/pc_cpu/parse") == 2);
  CHECK(edge("/Code/pc_cpu/main", "/Code/pc_cpu/run") == 2);
  CHECK(edge("/Code/libc.so.6/__libc_start_call_main", "/Code/pc_cpu/main") == 2);
  CHECK(edge("/Code/pc_cpu/update_shared_table", "/Code/libc.so.6/___pthread_mutex_lock") == 1);
  CHECK(edge("/Code/pc_cpu/main", "/Code/pc_cpu/f") == 1);
  CHECK(edge("/Code/pc_cpu/f", "/Code/pc_cpu/f") == 0);
  CHECK(edge("/Code/pc_cpu/tokenize", "/Code/pc_cpu/parse") == 0);
  // Entries: the outermost frame outside the start-up code (main, a thread's routine).
  std::map<std::string, std::uint64_t> entries(v.entries.begin(), v.entries.end());
  CHECK(entries.count("/Code/pc_cpu/_start") == 0);  // in the program, but start-up code
  CHECK(entries["/Code/pc_cpu/locker"] == 1);
  CHECK(entries["/Code/pc_cpu/main"] == 3);
  call_graph wrapped;
  wrapped.add_stack(
      {frame(app, "worker()"), frame(app, "void std::__invoke_impl<void, void (*)()>()"),
       frame(app,
             "std::thread::_State_impl<std::thread::_Invoker<std::tuple<void "
             "(*)()> > >::_M_run()"),
       frame("/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "execute_native_thread_routine"),
       frame(libc, "start_thread"), frame(libc, "clone3")});
  REQUIRE(wrapped.view().entries.size() == 1);
  CHECK(wrapped.view().entries[0].first == "/Code/pc_cpu/worker");
  call_graph all_system;
  all_system.add_stack({frame(libc, "epoll_wait"), frame(libc, "clone3")});
  CHECK(all_system.view().entries[0].first == "/Code/libc.so.6/clone3");
  call_graph_view both = v;
  merge_call_graph(both, v);
  CHECK(both.stacks == 8);
  std::uint64_t merged = 0;
  for (auto& e : both.edges)
    if (e.caller == "/Code/pc_cpu/parse" && e.callee == "/Code/pc_cpu/tokenize") merged = e.samples;
  CHECK(merged == 4);
}

TEST_CASE("pc_sample_builder: samples per collecting MI, spanning the sampling interval",
          "[pc-metrics]") {
  pc_sample_builder s(process);
  std::vector<collecting_mi> mis = {
      {mi_handle{1}, "cpu", {"/Code/pc_cpu/tokenize"}},
      {mi_handle{2}, "cpu", {"/Code/pc_cpu/idle_housekeeping"}},
      {mi_handle{3}, "active_threads", {"/"}},
      {mi_handle{4}, "proc.cpu_user", {"/"}},           // another source's metric
      {mi_handle{5}, "cpu", {"/Process/pc_cpu{100}"}},  // another hierarchy
      {mi_handle{6}, "io_bytes", {"/Code/pc_cpu/read_records"}},
      {mi_handle{7}, "io_ops", {"/"}}};
  s.set_collecting(mis);
  CHECK(s.collecting());
  CHECK(s.needs_io());
  std::vector<sampled_thread> threads = {
      thread(100, "pc_cpu", 'R', tokenize_stack()), thread(101, "housekeeper", 'S', sleep_stack()),
      thread(102, "reader", 'S', {frame(libc, "read"), frame(app, "read_records()")})};
  std::vector<sample> out;
  // The first io reading is the baseline; the second gives the deltas.
  s.apply_io(threads, {{102, thread_io{10, 0, 640, 0}}});
  CHECK(threads[2].io_ops == 0);
  s.add(threads, 0.0, 1'000'000'000);
  s.apply_io(threads, {{100, thread_io{1, 1, 5, 5}}, {102, thread_io{14, 0, 896, 0}}});
  CHECK(threads[2].io_ops == 4);
  CHECK(threads[2].io_bytes == 256);
  s.add(threads, 0.1, 1'100'000'000);
  s.flush(200'000'000, out);
  CHECK(out.empty());  // 0.1 s gathered, the interval is 0.2 s
  s.apply_io(threads, {{102, thread_io{14, 0, 896, 0}}});
  s.add(threads, 0.15, 1'250'000'000);
  s.flush(200'000'000, out);
  REQUIRE(out.size() == 5);
  std::map<std::uint64_t, sample> by_mi;
  for (auto& x : out) by_mi[x.mi.id] = x;
  CHECK(by_mi[1].start == Approx(1.0));
  CHECK(by_mi[1].end == Approx(1.25));
  CHECK(by_mi[1].value == Approx(0.25));  // running through both samples
  CHECK(by_mi[2].value == 0);             // idle: a sample of 0, not silence
  CHECK(by_mi[3].value == Approx(3));     // three threads throughout
  CHECK(by_mi[6].value == Approx(256));
  CHECK(by_mi[7].value == Approx(4));  // thread 100 had no baseline before
  CHECK(by_mi.count(4) == 0);
  CHECK(by_mi.count(5) == 0);
  out.clear();
  s.flush(200'000'000, out, true);
  CHECK(out.empty());  // nothing gathered since
  // Resources: each once.
  auto first = s.take_new_resources(threads);
  CHECK(std::find(first.begin(), first.end(), "/Code/pc_cpu/tokenize") != first.end());
  CHECK(std::find(first.begin(), first.end(), "/Machine/h/pc_cpu{100}/housekeeper{101}") !=
        first.end());
  CHECK(s.take_new_resources(threads).empty());
  s.set_collecting({});
  CHECK_FALSE(s.collecting());
  CHECK_FALSE(s.needs_io());
}

TEST_CASE("CALLGRAPH reads and prints in canonical form, and replies of processes merge",
          "[pc-metrics][xml]") {
  auto all = parse_request("<dyper pid='DM' command='callgraph'/>");
  REQUIRE_FALSE(all.error);
  CHECK(print_request("DM", all.request) == "<DYPER PID='DM' COMMAND='CALLGRAPH'/>");
  auto one = parse_request("<dyper pid='DM' command='CALLGRAPH'><process pid='0042'/></dyper>");
  REQUIRE_FALSE(one.error);
  CHECK(print_request("DM", one.request) ==
        "<DYPER PID='DM' COMMAND='CALLGRAPH'><PROCESS PID='42'/></DYPER>");
  CHECK(parse_request("<DYPER PID='DM' COMMAND='CALLGRAPH'><PROCESS/></DYPER>").error);
  CHECK(parse_request("<DYPER PID='DM' COMMAND='CALLGRAPH'><THREAD PID='1'/></DYPER>").error);
  callgraph_report r;
  r.pid = 7;
  r.stacks = 3;
  r.entries = {{"/Code/a/main", 3}};
  r.edges = {{"/Code/a/main", "/Code/a/f<int>", 2}};
  CHECK(print_reply("DM", caf::make_message(r)) ==
        "<DYPER_REPLY ID='DM'><CALLGRAPH PID='7' STACKS='3'><ENTRY NAME='/Code/a/main' "
        "SAMPLES='3'/><EDGE CALLER='/Code/a/main' CALLEE='/Code/a/f&lt;int&gt;' SAMPLES='2'/>"
        "</CALLGRAPH></DYPER_REPLY>");
  callgraph_report other;
  other.pid = 8;
  other.stacks = 1;
  other.entries = {{"/Code/b/main", 1}};
  other.edges = {{"/Code/a/main", "/Code/a/f<int>", 1}};
  callgraph_report merged;
  merge_callgraph_report(merged, r);
  merge_callgraph_report(merged, other);
  CHECK(merged.pid == 0);
  CHECK(merged.stacks == 4);
  CHECK(merged.entries.size() == 2);
  REQUIRE(merged.edges.size() == 1);
  CHECK(merged.edges[0].samples == 3);
  CHECK(print_reply("DM", caf::make_message(merged)).find("<CALLGRAPH STACKS='4'>") !=
        std::string::npos);
}

TEST_CASE(
    "pc_sample_builder: I/O counts go only to stacks seen in an I/O call, carried forward "
    "from samples that saw the thread asleep or computing",
    "[pc-metrics]") {
  // A feeder writes a record, then sleeps in clock_nanosleep; a sample almost always sees it
  // asleep. Its writes happened in write (called from feed), never in clock_nanosleep or in
  // steady_clock::now: those functions must get no io_ops, whatever the counters say.
  pc_sample_builder s(process);
  s.set_collecting({{mi_handle{1}, "io_ops", {"/Code/libc.so.6/clock_nanosleep"}},
                    {mi_handle{2}, "io_ops", {"/Code/pc_cpu/now"}},
                    {mi_handle{3}, "io_ops", {"/Code/pc_cpu/feed"}},
                    {mi_handle{4}, "io_bytes", {"/Code/pc_cpu/feed"}},
                    {mi_handle{5}, "io_ops", {"/Code", "/Machine/h/pc_cpu{100}/feeder{101}"}},
                    {mi_handle{6}, "io_ops", {"/"}}});
  auto feed_frame = frame(app, "(anonymous namespace)::feed()", 20);
  auto asleep = thread(101, "feeder", 'S',
                       {frame(libc, "__GI___clock_nanosleep"), frame(libc, "__GI___nanosleep"),
                        feed_frame, frame(libc, "start_thread")});
  auto computing = thread(101, "feeder", 'R', {frame(app, "now()", 12), feed_frame});
  auto writing = thread(101, "feeder", 'R', {frame(libc, "__GI___libc_write"), feed_frame});
  REQUIRE_FALSE(asleep.in_io_call);
  REQUIRE_FALSE(computing.in_io_call);
  REQUIRE(writing.in_io_call);
  std::map<std::uint64_t, double> total;
  auto step = [&](sampled_thread t, thread_io io, time_ns at) { sample_io(s, t, io, at, total); };
  step(asleep, thread_io{0, 10, 0, 640}, 1'000'000'000);     // the baseline
  step(asleep, thread_io{0, 13, 0, 832}, 1'010'000'000);     // 3 writes while it slept
  CHECK(total[6] == Approx(3));                              // the thread's total: at once
  CHECK(total[5] == Approx(3));                              // /Code root: as the total
  CHECK(total[3] == 0);                                      // carried, not charged yet
  step(computing, thread_io{0, 15, 0, 960}, 1'020'000'000);  // 2 more
  step(writing, thread_io{0, 16, 0, 1024}, 1'030'000'000);   // caught in write: 1 more
  CHECK(total[1] == 0);                                      // never in clock_nanosleep
  CHECK(total[2] == 0);                                      // nor in now()
  CHECK(total[3] == Approx(6));                              // all of it, where it was done
  CHECK(total[4] == Approx(384));
  CHECK(total[5] == Approx(6));
  CHECK(total[6] == Approx(6));
  // Nothing is charged twice: a later sample in write gets only what came since.
  step(writing, thread_io{0, 18, 0, 1152}, 1'040'000'000);
  CHECK(total[3] == Approx(8));
  CHECK(total[6] == Approx(8));
}

TEST_CASE("pc_sample_builder: a sync call moves no bytes: the writes before it go to the "
          "write that made them, never to fdatasync",
          "[pc-metrics]") {
  // sqlite's commit: a few writes (fast, rarely sampled), then fdatasync (slow, often
  // sampled). A sample in fdatasync is I/O blocking, but the writes were not made there.
  pc_sample_builder s(process);
  s.set_collecting({{mi_handle{1}, "io_ops", {"/Code/libc.so.6/fdatasync"}},
                    {mi_handle{2}, "io_ops", {"/Code/libc.so.6/write"}},
                    {mi_handle{3}, "io_ops", {"/"}},
                    {mi_handle{4}, "io_wait", {"/Code/libc.so.6/fdatasync"}}});
  auto commit = frame(app, "pager_commit", 30);
  auto syncing = thread(101, "db", 'D', {frame(libc, "fdatasync"), commit});
  auto writing = thread(101, "db", 'R', {frame(libc, "write"), commit});
  REQUIRE(syncing.in_io_call);
  REQUIRE(syncing.sync_call);
  REQUIRE(writing.in_io_call);
  REQUIRE_FALSE(writing.sync_call);
  std::map<std::uint64_t, double> total;
  auto step = [&](sampled_thread t, thread_io io, time_ns at) { sample_io(s, t, io, at, total); };
  step(syncing, thread_io{0, 10, 0, 40960}, 1'000'000'000);  // the baseline
  step(syncing, thread_io{0, 14, 0, 57344}, 1'010'000'000);  // 4 writes, then the sync
  step(syncing, thread_io{0, 18, 0, 73728}, 1'020'000'000);  // 4 more
  CHECK(total[1] == 0);                                      // none at fdatasync
  CHECK(total[3] == Approx(8));                              // the thread's, at once
  CHECK(total[4] > 0);                                       // its time is I/O blocking
  step(writing, thread_io{0, 19, 0, 77824}, 1'030'000'000);  // caught in write at last
  CHECK(total[2] == Approx(9));                              // all of it, at the write
  CHECK(total[1] == 0);
}

TEST_CASE("pc_sample_builder: an MI on another host's process gets nothing from this one, not "
          "even zeros, and an MI that goes on keeps what it gathered",
          "[pc-metrics]") {
  pc_sample_builder s(process);
  auto here = "/Machine/" + process.host + "/pc_cpu{" + std::to_string(process.pid) + "}";
  std::vector<collecting_mi> mis = {{mi_handle{1}, "cpu", {"/"}},
                                    {mi_handle{2}, "cpu", {"/Machine/elsewhere/job{7}"}},
                                    {mi_handle{3}, "cpu", {here}}};
  s.set_collecting(mis);
  std::vector<sampled_thread> threads = {thread(100, "pc_cpu", 'R', tokenize_stack())};
  s.add(threads, 0.1, 1'000'000'000);
  // The same MIs again, and one more (an update lists them all): MI 1's 0.1 s stays.
  mis.push_back({mi_handle{4}, "cpu", {"/Machine/elsewhere"}});
  s.set_collecting(mis);
  s.add(threads, 0.1, 1'100'000'000);
  std::vector<sample> out;
  s.flush(0, out, true);
  std::map<std::uint64_t, double> by_mi;
  for (auto& x : out) by_mi[x.mi.id] += x.value;
  CHECK(by_mi.count(2) == 0);
  CHECK(by_mi.count(4) == 0);
  CHECK(by_mi[1] == Approx(0.2));
  CHECK(by_mi[3] == Approx(0.2));
}
