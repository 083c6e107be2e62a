// The program the native module tests observe (built with -g -O0): one thread burns CPU in a
// known hot function, and one thread each is blocked in a known place: on a mutex, on a
// condition variable, in a read on a pipe, in sleep. Every thread has a name (comm), so
// STACKS can be checked thread by thread. It prints its pid once every thread is in place,
// then runs until killed (or for argv[1] seconds, when given). `native_target work N` runs
// the hot function for N rounds on the main thread, the blocked threads around it, and exits
// (the benchmark's fixed amount of work).
#include <pthread.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

namespace {

std::mutex held;  // locked by main for ever: the mutex thread waits on it
std::mutex cv_mutex;
std::condition_variable never_signalled;
int pipe_fds[2];
volatile unsigned long long sink;

void name_thread(const char* name) { pthread_setname_np(pthread_self(), name); }

}  // namespace

// The hot function: all of this program's CPU time is spent here, on the marked line.
extern "C" __attribute__((noinline)) void native_hot_function(unsigned long long rounds) {
  unsigned long long x = 0;
  for (unsigned long long i = 0; i < rounds; ++i) {
    x = ((x * 6364136223846793005ULL + i) ^ (x >> 13)) * 0x9E3779B97F4A7C15ULL + (x << 7) + (x >> 3) + (x ^ i) * 31;  // NATIVE_HOT_LINE
  }
  sink = x;
}

extern "C" __attribute__((noinline)) void native_blocked_on_mutex() {
  std::lock_guard<std::mutex> lock(held);
}

extern "C" __attribute__((noinline)) void native_blocked_on_condition() {
  std::unique_lock<std::mutex> lock(cv_mutex);
  never_signalled.wait(lock, [] { return false; });
}

extern "C" __attribute__((noinline)) void native_blocked_in_read() {
  char c;
  while (read(pipe_fds[0], &c, 1) != 0) {
  }
}

extern "C" __attribute__((noinline)) void native_blocked_in_sleep() {
  for (;;) sleep(1000);
}

int main(int argc, char** argv) {
  if (pipe(pipe_fds) != 0) return 1;
  held.lock();
  bool fixed_work = argc > 2 && std::string(argv[1]) == "work";
  std::thread hot([fixed_work] {
    name_thread("nt_hot");
    if (fixed_work) return;  // the main thread does the work
    for (;;) native_hot_function(100'000'000ULL);
  });
  std::thread mutex_waiter([] {
    name_thread("nt_mutex");
    native_blocked_on_mutex();
  });
  std::thread cv_waiter([] {
    name_thread("nt_condition");
    native_blocked_on_condition();
  });
  std::thread reader([] {
    name_thread("nt_read");
    native_blocked_in_read();
  });
  std::thread sleeper([] {
    name_thread("nt_sleep");
    native_blocked_in_sleep();
  });
  std::printf("%d\n", static_cast<int>(getpid()));
  std::fflush(stdout);
  if (argc > 2 && std::string(argv[1]) == "work") {
    native_hot_function(std::strtoull(argv[2], nullptr, 10));
    std::_Exit(0);
  }
  double seconds = argc > 1 ? std::atof(argv[1]) : 0;
  if (seconds > 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    std::_Exit(0);
  }
  for (;;) pause();
}
