// Stack sampling (native/stack_sampler.*) of the real test program: every thread with its
// state and the function it is blocked in, the hot function with its source line, a process
// that exits mid-sample or is caught mid-exec, and a sampler without permission.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <filesystem>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <string>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

#include "native/cpu_profile.hpp"
#include "native/native_error.hpp"
#include "native/proc_stats.hpp"
#include "native/stack_sampler.hpp"
#include "native_test_process.hpp"
#include "tests/skip_test.hpp"
#include "tests/vfork_waiter.hpp"

using namespace perfdm::native;
using native_test::eventually;
using native_test::target_process;

namespace {

const thread_stack* thread_named(const stack_snapshot& s, const std::string& name) {
  for (auto& t : s.threads)
    if (t.name == name) return &t;
  return nullptr;
}

bool has_function(const thread_stack& t, const std::string& function) {
  return std::any_of(t.frames.begin(), t.frames.end(),
                     [&](const stack_frame& f) { return f.function == function; });
}

// The threads are in place once each is blocked in its own function (the program printed
// its pid before some of them got there).
bool settled(const stack_snapshot& s) {
  const std::pair<const char*, const char*> places[] = {
      {"nt_mutex", "native_blocked_on_mutex"},
      {"nt_condition", "native_blocked_on_condition"},
      {"nt_read", "native_blocked_in_read"},
      {"nt_sleep", "native_blocked_in_sleep"},
  };
  for (auto& [name, function] : places) {
    auto* t = thread_named(s, name);
    if (t == nullptr || !has_function(*t, function) || t->state != 'S') return false;
  }
  return true;
}

}  // namespace

TEST_CASE("every thread's stack: state, the function it is blocked in, source lines",
          "[native][stack]") {
  target_process t;
  stack_sampler sampler(t.pid);
  stack_snapshot s;
  REQUIRE(eventually([&] {
    s = sampler.sample();
    return settled(s);
  }));
  CHECK(s.pid == t.pid);
  CHECK(s.threads.size() == 6);
  CHECK(s.cost_ns > 0);
  auto* mutex = thread_named(s, "nt_mutex");
  // Blocked in libc's futex wait, called from the program's function: both on the stack.
  CHECK(std::any_of(mutex->frames.begin(), mutex->frames.end(), [](const stack_frame& f) {
    return f.module.find("libc") != std::string::npos;
  }));
  for (auto& f : mutex->frames)
    if (f.function == "native_blocked_on_mutex") {
      CHECK(f.module == PERFDM_NATIVE_TARGET);
      CHECK_THAT(f.file, Catch::EndsWith("native_target.cpp"));
      CHECK(f.line > 0);
    }
  // The frames lead from the innermost up to the thread's start.
  auto* sleeper = thread_named(s, "nt_sleep");
  CHECK(std::find_if(sleeper->frames.begin(), sleeper->frames.end(), [](const stack_frame& f) {
          return f.function == "native_blocked_in_sleep";
        }) != sleeper->frames.begin());
  // The program runs on between samples: the hot thread gets CPU again.
  auto* main_thread = thread_named(s, "native_target");
  REQUIRE(main_thread != nullptr);
  CHECK(has_function(*main_thread, "main"));
  // The max depth is honoured.
  auto shallow = sampler.sample(2);
  for (auto& th : shallow.threads) CHECK(th.frames.size() <= 2);
}

TEST_CASE("perfdm's preloaded I/O library is left out of the stacks it sits in",
          "[native][stack][io]") {
  // The library's path, as `perfdm io --library` gives it.
  std::string library;
  if (FILE* p = popen(PERFDM_BINARY " io --library", "r")) {
    char line[4096];
    if (std::fgets(line, sizeof line, p)) library = line;
    pclose(p);
  }
  while (!library.empty() && library.back() == '\n') library.pop_back();
  REQUIRE(!library.empty());
  char dir[] = "/tmp/perfdm_stack_io_XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  // dd writing 16-byte blocks to a file: each write goes through the library's wrapper (a
  // counted file; a call on an uncounted descriptor jumps straight to the C library's).
  const std::string out = std::string("of=") + dir + "/dd.bin";
  std::vector<std::string> env = {"LD_PRELOAD=" + library, std::string("PERFDM_IO_LOG=") + dir,
                                  std::string("PERFDM_IO_SEGMENT_DIR=") + dir};
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    for (auto& e : env) putenv(e.data());
    execl("/bin/dd", "dd", "if=/dev/zero", out.c_str(), "bs=16", "count=100000000", "status=none",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int writes = 0, library_frames = 0;
  {
    stack_sampler sampler(pid);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (int i = 0; i < 200 && writes < 5 && std::chrono::steady_clock::now() < until; ++i) {
      stack_snapshot s;
      try {
        s = sampler.sample();
      } catch (const native_error&) {
        continue;  // dd still starting
      }
      for (auto& th : s.threads) {
        bool in_write = false;
        for (auto& f : th.frames) {
          if (f.module.find("libperfdm-io") != std::string::npos) ++library_frames;
          if (f.module.find("libc") != std::string::npos &&
              f.function.find("write") != std::string::npos)
            in_write = true;
        }
        writes += in_write;
      }
    }
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  std::filesystem::remove_all(dir);
  CHECK(writes >= 5);          // samples caught dd in the C library's write
  CHECK(library_frames == 0);  // and none showed the wrapper that called it
}

TEST_CASE("the hot function tops the profile and its line is detailed", "[native][stack][profile]") {
  target_process t;
  stack_sampler sampler(t.pid);
  cpu_profile profile;
  int hot_line = native_test::source_line("NATIVE_HOT_LINE");
  REQUIRE(hot_line > 0);
  auto item = std::string("native_target@native_hot_function");
  // Enough samples for detailing (MIN_TOTAL 250 running stacks) and then some lines.
  REQUIRE(eventually([&] {
    auto snap = sampler.sample();
    profile.add(snap, 0.001, 0);
    return profile.active() >= 400;
  }));
  auto s = profile.summary();
  REQUIRE_FALSE(s.items.empty());
  CHECK(s.items[0].name == item);
  CHECK(s.items[0].detailed);
  // Its lines follow it; the hot line is the first (most samples innermost).
  REQUIRE(s.items.size() > 1);
  CHECK(s.items[1].name == item + "@" + std::to_string(hot_line));
  CHECK_THAT(s.items[1].file, Catch::EndsWith("native_target.cpp"));
  CHECK(s.items[1].base > 0);
}

TEST_CASE("a process that exits during sampling: a clean error, nothing left stopped",
          "[native][stack]") {
  for (int round = 0; round < 5; ++round) {
    target_process t(0.2);
    std::unique_ptr<stack_sampler> sampler;
    try {
      sampler = std::make_unique<stack_sampler>(t.pid);
    } catch (const native_error& e) {
      CHECK(e.code == native_errc::no_such_process);
      continue;
    }
    bool gone = false;
    std::size_t samples = 0;
    while (!gone) {
      try {
        sampler->sample();
        ++samples;
      } catch (const native_error& e) {
        INFO(e.what());
        CHECK(e.code == native_errc::no_such_process);
        gone = true;
      }
      t.exited();
      REQUIRE(samples < 100000);
    }
    // The process was not kept stopped by a ptrace left behind: it exited by itself.
    CHECK(eventually([&] { return t.exited(); }));
  }
}

TEST_CASE("a process in the middle of an exec is read once its new program is there",
          "[native][stack]") {
  // /bin/sh executing itself again and again: each exec has a moment when the kernel shows no
  // auxiliary vector yet, and libdw reads that as no program at all (ENOEXEC).
  const char* again = "n=$1; if [ $n -gt 0 ]; then exec /bin/sh -c \"$0\" \"$0\" $((n-1)); fi";
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", again, again, "200", static_cast<char*>(nullptr));
    _exit(127);
  }
  int watched = 0;
  std::string refused;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    try {
      stack_sampler s(pid);
      ++watched;
    } catch (const native_error& e) {
      if (e.code != native_errc::no_such_process) refused += std::string(e.what()) + "\n";
    }
  }
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(watched > 20);
  CHECK(refused == "");
}

TEST_CASE("a process that is not there: no_such_process", "[native][stack]") {
  int gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  try {
    stack_sampler s(gone);
    FAIL("sampled a process that is gone");
  } catch (const native_error& e) {
    CHECK(e.code == native_errc::no_such_process);
  }
}

TEST_CASE("sampling another user's process is not permitted, and says so", "[native][stack]") {
  if (geteuid() != 0) return skip_test("not root: cannot drop to another user");
  target_process t;  // root's
  int report[2];
  REQUIRE(pipe(report) == 0);
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    close(report[0]);
    std::string out = "no error";
    if (setgid(65534) != 0 || setuid(65534) != 0) {
      out = "cannot drop privileges";
    } else {
      try {
        stack_sampler s(t.pid);
        s.sample();
      } catch (const native_error& e) {
        out = std::string(to_string(e.code)) + ": " + e.what();
      }
    }
    (void)!write(report[1], out.data(), out.size());
    _exit(0);
  }
  close(report[1]);
  std::string out;
  char buf[512];
  for (ssize_t n; (n = read(report[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  close(report[0]);
  waitpid(child, nullptr, 0);
  CHECK_THAT(out, Catch::StartsWith("not_permitted: process " + std::to_string(t.pid)));
  CHECK_THAT(out, Catch::Contains("not permitted"));
}

TEST_CASE("a child of the sampling process, whose stops another thread reaps: samples go on",
          "[native][stack][ptrace]") {
  // The test program as a direct child, and a thread that waits for any child (waitpid(-1)
  // with __WALL): it sees, and takes, the ptrace stops of every tracee of this process.
  int out[2];
  REQUIRE(pipe(out) == 0);
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    execl(PERFDM_NATIVE_TARGET, PERFDM_NATIVE_TARGET, static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  char c = 0;
  std::string line;
  while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
  close(out[0]);
  REQUIRE(std::stoi(line) == child);
  std::atomic<int> stops_taken{0};
  std::thread waiter([&] {
    for (;;) {
      int status = 0;
      pid_t r = waitpid(-1, &status, __WALL);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return;  // no child left
      if (WIFSTOPPED(status)) ++stops_taken;
      if (r == child && (WIFEXITED(status) || WIFSIGNALED(status))) return;
    }
  });
  // The child is killed and the waiter joined however the test ends.
  struct ending {
    pid_t child;
    std::thread& waiter;
    ~ending() {
      kill(child, SIGKILL);
      waiter.join();
    }
  } end{child, waiter};
  stack_sampler sampler(child);
  REQUIRE(eventually([&] { return settled(sampler.sample()); }));
  for (int i = 0; i < 30; ++i) {
    auto s = sampler.sample();
    CHECK(s.threads.size() == 6);
    // Every stack is there (a thread let go a moment ago may still read 'R' while it goes
    // back into its wait, so the states are not checked).
    for (auto* name : {"nt_mutex", "nt_condition", "nt_read", "nt_sleep"}) {
      auto* th = thread_named(s, name);
      REQUIRE(th != nullptr);
      CHECK_FALSE(th->frames.empty());
    }
    CHECK(has_function(*thread_named(s, "nt_sleep"), "native_blocked_in_sleep"));
  }
  INFO("stop notifications the other thread took: " << stops_taken.load());
  CHECK(stops_taken.load() > 0);  // the hazard was there, and did not stop the sampler
}

TEST_CASE("a thread that cannot stop within the sample's 0.5 s is let go once it stops, and "
          "sampling goes on",
          "[native][stack][ptrace]") {
  // Its one thread waits 1.2 s for a vfork child (tests/vfork_waiter.hpp). Detaching a
  // running tracee fails: a sampler that gave up on it left it traced, stopped for ever once
  // it stopped, and every later sample refused (EPERM).
  native_test::vfork_waiter child({1, 200'000'000});
  REQUIRE(eventually([&] { return child.waiting(); }));
  stack_sampler sampler(child.pid());
  try {
    sampler.sample();
    FAIL("the sample unwound a thread that could not stop");
  } catch (const native_error& e) {
    INFO(e.what());
    CHECK(e.code == native_errc::unwind_failed);
  }
  CHECK(sampler.late_threads() == 1);
  // Once the vfork child is gone the thread stops (the interrupt is pending) and is let go.
  REQUIRE(eventually([&] { return sampler.release_late() == 0; }));
  CHECK(child.ran_on(5000));  // it ran on: not held stopped
  // And it can be sampled again (not still traced by this thread: no EPERM).
  auto s = sampler.sample();
  REQUIRE(s.threads.size() == 1);
  CHECK_FALSE(s.threads[0].frames.empty());
}
