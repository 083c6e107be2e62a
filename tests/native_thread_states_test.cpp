// Thread states over the stack samples (native/thread_states.*): how one sampled thread is
// classified, and the counts of the real test program, whose threads run, block on a mutex,
// wait on a condition, read a pipe and sleep in known places.
#include <catch2/catch.hpp>

#include "native/stack_sampler.hpp"
#include "native/thread_states.hpp"
#include "native_test_process.hpp"

using namespace perfdm::native;
using native_test::eventually;
using native_test::target_process;

namespace {

std::vector<stack_frame> stack(std::initializer_list<const char*> functions) {
  std::vector<stack_frame> out;
  for (auto* f : functions) out.push_back(stack_frame{0x1000, "/usr/lib/libc.so.6", f, "", 0});
  return out;
}

// The default I/O functions of CLASSES, by function name only.
bool io_function(const std::string&, const std::string& function) {
  return function == "read" || function == "write" || function == "poll";
}

}  // namespace

TEST_CASE("glibc's decorations are taken off function names", "[native][threads]") {
  CHECK(plain_function_name("__GI___clock_nanosleep") == "clock_nanosleep");
  CHECK(plain_function_name("__libc_read") == "read");
  CHECK(plain_function_name("___pthread_mutex_lock") == "pthread_mutex_lock");
  CHECK(plain_function_name("__lll_lock_wait") == "lll_lock_wait");
  CHECK(plain_function_name("read@GLIBC_2.2.5") == "read");
  CHECK(plain_function_name("std::mutex::lock()") == "std::mutex::lock()");
  CHECK(plain_function_name("_") == "_");
  CHECK(plain_function_name("") == "");
}

TEST_CASE("a sampled thread is running, blocked, waiting, in I/O or sleeping",
          "[native][threads]") {
  CHECK(classify_thread('R', stack({"hot", "main"}), io_function) == thread_activity::runs);
  CHECK(classify_thread('R', stack({"__libc_write", "main"}), io_function) == thread_activity::ios);
  CHECK(classify_thread('R', {}, io_function) == thread_activity::runs);
  // Runnable inside the C library's blocking call (on its way in, or let go by a sample):
  // where it is going; the program's own code below it decides nothing.
  auto in_program = [](std::vector<stack_frame> s, const char* f) {
    s.push_back(stack_frame{0x2000, "/opt/app/prog", f, "", 0});
    return s;
  };
  CHECK(classify_thread('R', stack({"__GI___clock_nanosleep", "nanosleep"}), io_function) ==
        thread_activity::sleeps);
  CHECK(classify_thread('R', in_program(stack({"__lll_lock_wait"}), "main"), io_function) ==
        thread_activity::blocks);
  CHECK(classify_thread('R', in_program({}, "pthread_cond_wait"), io_function) ==
        thread_activity::runs);
  CHECK(classify_thread('D', stack({"fsync"}), io_function) == thread_activity::ios);
  CHECK(classify_thread('S', stack({"__lll_lock_wait", "___pthread_mutex_lock", "f"}),
                        io_function) == thread_activity::blocks);
  CHECK(classify_thread('S',
                        stack({"__futex_abstimed_wait_common64", "__pthread_cond_wait_common",
                               "___pthread_cond_wait", "f"}),
                        io_function) == thread_activity::waits);
  CHECK(classify_thread('S', stack({"__GI___clock_nanosleep", "__sleep", "f"}), io_function) ==
        thread_activity::sleeps);
  CHECK(classify_thread('S', stack({"__libc_read", "f"}), io_function) == thread_activity::ios);
  // The innermost known call decides: a read inside a lock's slow path is still the lock.
  CHECK(classify_thread('S', stack({"__lll_lock_wait", "read"}), io_function) ==
        thread_activity::blocks);
  // Asleep in the kernel for something unnamed: waiting.
  CHECK(classify_thread('S', stack({"syscall", "f"}), io_function) == thread_activity::waits);
  CHECK(classify_thread('S', {}, io_function) == thread_activity::waits);
  CHECK(classify_thread('S', stack({"read"}), {}) == thread_activity::waits);  // no I/O classes
  for (char c : {'T', 't', 'Z', 'X', '?'})
    CHECK(classify_thread(c, stack({"read"}), io_function) == thread_activity::other);
}

TEST_CASE("thread counts: one per sample, the state's counter, names kept, ended threads stay",
          "[native][threads]") {
  thread_state_table table;
  stack_snapshot s;
  s.threads = {thread_stack{7, "a", 'R', stack({"hot"}), "", ""},
               thread_stack{8, "b", 'S', stack({"nanosleep"}), "", ""}};
  table.add(s, io_function);
  s.threads[0].state = 'S';
  s.threads[0].frames = stack({"read"});
  s.threads[0].name = "a2";
  s.threads.pop_back();  // thread 8 ended
  table.add(s, io_function);
  auto counts = table.counts();
  REQUIRE(counts.size() == 2);
  CHECK(counts[0].tid == 7);
  CHECK(counts[0].name == "a2");
  CHECK(counts[0].samples == 2);
  CHECK(counts[0].runs == 1);
  CHECK(counts[0].ios == 1);
  CHECK(counts[0].blocks + counts[0].waits + counts[0].sleeps == 0);
  CHECK(counts[1].tid == 8);
  CHECK(counts[1].samples == 1);
  CHECK(counts[1].sleeps == 1);
}

TEST_CASE("the test program's threads, counted over real samples, are where they block",
          "[native][threads][stack]") {
  target_process t;
  stack_sampler sampler(t.pid);
  // The default classes make libc's read I/O.
  auto is_io = [](const std::string&, const std::string& f) { return f == "read"; };
  // Once every thread is in place (the program printed its pid before some got there), every
  // sample finds it in the same state.
  auto in_place = [&](const stack_snapshot& s) {
    thread_state_table one;
    one.add(s, is_io);
    int found = 0;
    for (auto& c : one.counts())
      found += (c.name == "nt_mutex" && c.blocks == 1) ||
               (c.name == "nt_condition" && c.waits == 1) || (c.name == "nt_read" && c.ios == 1) ||
               (c.name == "nt_sleep" && c.sleeps == 1);
    return found == 4;
  };
  REQUIRE(eventually([&] { return in_place(sampler.sample()); }));
  thread_state_table table;
  const int samples = 20;
  for (int i = 0; i < samples; ++i) table.add(sampler.sample(), is_io);
  auto counts = table.counts();
  auto named = [&](const std::string& name) {
    for (auto& c : counts)
      if (c.name == name) return c;
    FAIL("no thread " << name);
    return thread_state_counts{};
  };
  // Samples taken back to back: a thread let go by the previous sample may still be on its
  // way back into its wait (runnable, 'R') when the next one reads its state. Every other
  // sample finds it where it blocks.
  auto where_it_blocks = [&](const char* name, std::uint64_t thread_state_counts::*counter) {
    auto c = named(name);
    INFO(name << ": " << c.*counter << " of " << samples << ", runs " << c.runs);
    CHECK(c.*counter + c.runs == samples);
    CHECK(c.*counter > samples / 2);
  };
  where_it_blocks("nt_mutex", &thread_state_counts::blocks);
  where_it_blocks("nt_condition", &thread_state_counts::waits);
  where_it_blocks("nt_read", &thread_state_counts::ios);
  where_it_blocks("nt_sleep", &thread_state_counts::sleeps);
  // The hot thread burns CPU: running (or runnable) whenever it is sampled.
  CHECK(named("nt_hot").runs == samples);
  for (auto& c : counts) CHECK(c.samples == samples);
}

TEST_CASE("a sample restricted to some threads stops and reads only those",
          "[native][threads][stack]") {
  target_process t;
  stack_sampler sampler(t.pid);
  auto all = sampler.sample();
  REQUIRE(all.threads.size() == 6);
  int chosen = all.threads[2].tid;
  auto some = sampler.sample(128, [&](int tid) { return tid == chosen; });
  REQUIRE(some.threads.size() == 1);
  CHECK(some.threads[0].tid == chosen);
  CHECK_FALSE(some.threads[0].frames.empty());
  CHECK(sampler.sample(128, [](int) { return false; }).threads.empty());
}
