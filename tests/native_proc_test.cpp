// /proc sampling (native/proc_stats.*): the parsers on their own, then a real process.
#include <algorithm>
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include "native/native_error.hpp"
#include "native/proc_stats.hpp"
#include "native_test_process.hpp"

using namespace perfdm::native;
using native_test::eventually;
using native_test::target_process;

namespace {

// A stat line with 52 fields as proc(5) numbers them, the name given.
std::string stat_line(const std::string& comm, char state = 'S') {
  std::string out = "4242 (" + comm + ") " + state;
  for (int n = 4; n <= 52; ++n) {
    std::string v = n == 14 ? "150" : n == 15 ? "25" : n == 20 ? "6" : n == 24 ? "321" : "0";
    out += " " + v;
  }
  return out + "\n";
}

}  // namespace

TEST_CASE("a stat line is read around a name with spaces and parentheses", "[native][proc]") {
  for (std::string comm : std::vector<std::string>{"plain", "two words", "a) (b", ") S 1 2 (", "((", ""}) {
    auto s = parse_stat(stat_line(comm, 'R'));
    CHECK(s.comm == comm);
    CHECK(s.state == 'R');
    CHECK(s.utime_ticks == 150);
    CHECK(s.stime_ticks == 25);
    CHECK(s.num_threads == 6);
    CHECK(s.rss_pages == 321);
  }
}

TEST_CASE("what is not a stat line is a clear error, never a crash", "[native][proc]") {
  for (std::string bad : std::vector<std::string>{"", "4242", "4242 (name", "4242 name) S 1", "4242 (x) S 1 2 3",
                          "4242 (x) SS" + stat_line("y").substr(10)}) {
    try {
      parse_stat(bad);
      FAIL("accepted: " << bad);
    } catch (const native_error& e) {
      CHECK(e.code == native_errc::bad_data);
    }
  }
  auto line = stat_line("x");
  line.replace(line.find(" 150 "), 5, " 1x0 ");
  CHECK_THROWS_AS(parse_stat(line), native_error);
}

TEST_CASE("status and io fields are read by key, missing ones stay 0", "[native][proc]") {
  auto st = parse_status(
      "Name:\tx\nThreads:\t7\nVmRSS:\t    2048 kB\nvoluntary_ctxt_switches:\t11\n"
      "nonvoluntary_ctxt_switches:\t3\n");
  CHECK(st.threads == 7);
  CHECK(st.vm_rss_bytes == 2048 * 1024);
  CHECK(st.voluntary_ctxt_switches == 11);
  CHECK(st.nonvoluntary_ctxt_switches == 3);
  auto none = parse_status("Name:\tkthread\n");
  CHECK(none.vm_rss_bytes == 0);
  auto io = parse_io("rchar: 100\nwchar: 200\nsyscr: 1\nread_bytes: 4096\nwrite_bytes: 0\n");
  CHECK(io.rchar == 100);
  CHECK(io.wchar == 200);
  CHECK(io.read_bytes == 4096);
  CHECK(parse_io("garbage").rchar == 0);
}

TEST_CASE("a running program's CPU time, memory, I/O, switches and threads", "[native][proc]") {
  target_process t;
  process_stats p;
  // The hot thread burns CPU: a few ticks show up quickly.
  REQUIRE(eventually([&] {
    p = read_process_stats(t.pid);
    return p.cpu_user_ns >= 50'000'000;
  }));
  CHECK(p.name == "native_target");
  CHECK(p.threads == 6);
  REQUIRE(p.per_thread.size() == 6);
  CHECK(p.rss_bytes > 0);
  CHECK(p.ctx_voluntary > 0);  // the blocked threads switched out voluntarily
  bool hot_running = false;
  for (auto& th : p.per_thread)
    if (th.name == "nt_hot") hot_running = th.cpu_user_ns > 0;
  CHECK(hot_running);
  // CPU time only grows.
  auto later = read_process_stats(t.pid);
  CHECK(later.cpu_user_ns >= p.cpu_user_ns);
  // The program printed its pid: at least those bytes went through write(2).
  CHECK(later.io_write_bytes >= std::to_string(t.pid).size() + 1);
  auto lean = read_process_stats(t.pid, {false, false});
  CHECK(lean.per_thread.empty());
  CHECK(lean.threads == 6);
}

TEST_CASE("a process that is gone is no_such_process", "[native][proc]") {
  int gone = fork();
  if (gone == 0) _exit(0);
  // A zombie (exited, not yet reaped) counts as gone.
  REQUIRE(eventually([&] {
    try {
      read_process_stats(gone);
      return false;
    } catch (const native_error& e) {
      return e.code == native_errc::no_such_process;
    }
  }));
  waitpid(gone, nullptr, 0);
  try {
    read_process_stats(gone);
    FAIL("a reaped process was read");
  } catch (const native_error& e) {
    CHECK(e.code == native_errc::no_such_process);
    CHECK_THAT(e.what(), Catch::Contains(std::to_string(gone)));
  }
  CHECK_THROWS_AS(read_process_stats(-1), native_error);
}

TEST_CASE("a process exiting while it is read repeatedly: clear errors, never a crash",
          "[native][proc]") {
  for (int round = 0; round < 5; ++round) {
    target_process t(0.05);
    std::size_t ok = 0;
    bool gone = false;
    while (!gone) {
      try {
        read_process_stats(t.pid);
        ++ok;
      } catch (const native_error& e) {
        REQUIRE(e.code == native_errc::no_such_process);
        gone = true;
      }
      if (!gone) t.exited();  // reaps it once it exited, so the pid disappears
    }
    CHECK(ok > 0);
  }
}

TEST_CASE("every thread of a running program with its name and state, one read each",
          "[native][proc]") {
  target_process t;
  std::vector<thread_stats> threads;
  // Each thread names itself once it runs: wait for the names too.
  REQUIRE(eventually([&] {
    threads = read_threads(t.pid);
    return threads.size() == 6 && std::any_of(threads.begin(), threads.end(), [](auto& x) {
             return x.name == "nt_hot";
           });
  }));
  bool hot = false, main_thread = false;
  for (std::size_t i = 0; i < threads.size(); ++i) {
    if (i > 0) CHECK(threads[i - 1].tid < threads[i].tid);  // ascending
    CHECK(std::string(state_name(threads[i].state)) != "unknown");
    hot = hot || threads[i].name == "nt_hot";
    main_thread = main_thread || threads[i].tid == t.pid;
  }
  CHECK(hot);
  CHECK(main_thread);
  CHECK_THROWS_AS(read_threads(-1), native_error);
}
