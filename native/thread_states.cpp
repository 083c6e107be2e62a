#include "native/thread_states.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "proc/system_modules.hpp"

namespace perfdm::native {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool one_of(const std::string& name, std::initializer_list<std::string_view> names) {
  return std::any_of(names.begin(), names.end(), [&](std::string_view n) { return name == n; });
}

// The blocking calls of glibc, by what the thread waits for.
bool is_lock(const std::string& f) {
  return one_of(f, {"pthread_mutex_lock", "pthread_mutex_timedlock", "pthread_mutex_clocklock",
                    "lll_lock_wait", "lll_lock_wait_private", "pthread_rwlock_rdlock",
                    "pthread_rwlock_wrlock", "pthread_rwlock_timedrdlock",
                    "pthread_rwlock_timedwrlock", "pthread_rwlock_clockrdlock",
                    "pthread_rwlock_clockwrlock", "pthread_spin_lock", "flock", "lockf"});
}
bool is_wait(const std::string& f) {
  return one_of(f, {"pthread_cond_wait", "pthread_cond_timedwait", "pthread_cond_clockwait",
                    "pthread_join", "pthread_timedjoin_np", "pthread_clockjoin_np", "sem_wait",
                    "sem_timedwait", "sem_clockwait", "pthread_barrier_wait", "waitpid", "wait",
                    "wait4", "waitid", "sigwait", "sigwaitinfo", "sigtimedwait"});
}
bool is_sleep(const std::string& f) {
  return one_of(f, {"nanosleep", "clock_nanosleep", "sleep", "usleep", "pause"});
}

}  // namespace

const char* to_string(thread_activity a) {
  switch (a) {
    case thread_activity::runs:
      return "RUNS";
    case thread_activity::blocks:
      return "BLOCKS";
    case thread_activity::waits:
      return "WAITS";
    case thread_activity::ios:
      return "IOS";
    case thread_activity::sleeps:
      return "SLEEPS";
    case thread_activity::other:
      return "OTHER";
  }
  return "OTHER";
}

std::string plain_function_name(const std::string& function) {
  std::string_view f = function;
  f = f.substr(0, f.find('@'));
  // C++ names (std::mutex::lock()) and names with arguments are not glibc's entry points.
  if (f.find_first_of(":( ") != std::string_view::npos) return std::string(f);
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (std::string_view prefix : {"_", "GI_", "libc_"})
      if (starts_with(f, prefix) && f.size() > prefix.size()) {
        f.remove_prefix(prefix.size());
        stripped = true;
      }
  }
  return std::string(f);
}

thread_activity classify_thread(char state, const std::vector<stack_frame>& frames,
                                const io_predicate& is_io) {
  auto io = [&](const stack_frame& frame, const std::string& plain) {
    if (!is_io) return false;
    auto slash = frame.module.rfind('/');
    return is_io(slash == std::string::npos ? frame.module : frame.module.substr(slash + 1), plain);
  };
  switch (state) {
    case 'R':
      // Runnable while its innermost frames are already the C library's blocking entry
      // point: on its way into the wait, or just let go by the previous sample's stop (the
      // interrupted call restarts). Counted where it is, as if asleep there; a thread running
      // its own code, or the library's on its behalf, is RUNS.
      for (auto& frame : frames) {
        if (!proc::c_library_module(frame.module)) break;
        auto f = plain_function_name(frame.function);
        if (is_lock(f)) return thread_activity::blocks;
        if (is_wait(f)) return thread_activity::waits;
        if (is_sleep(f)) return thread_activity::sleeps;
      }
      return !frames.empty() && io(frames.front(), plain_function_name(frames.front().function))
                 ? thread_activity::ios
                 : thread_activity::runs;
    case 'D':
      return thread_activity::ios;
    case 'S':
    case 'I':
      for (auto& frame : frames) {
        if (frame.function.empty()) continue;
        auto f = plain_function_name(frame.function);
        if (is_lock(f)) return thread_activity::blocks;
        if (is_wait(f)) return thread_activity::waits;
        if (is_sleep(f)) return thread_activity::sleeps;
        if (io(frame, f)) return thread_activity::ios;
      }
      return thread_activity::waits;
    default:
      return thread_activity::other;
  }
}

void thread_state_table::add(const thread_stack& thread, thread_activity activity) {
  auto& c = threads_[thread.tid];
  c.tid = thread.tid;
  c.name = thread.name;
  ++c.samples;
  switch (activity) {
    case thread_activity::runs:
      ++c.runs;
      break;
    case thread_activity::blocks:
      ++c.blocks;
      break;
    case thread_activity::waits:
      ++c.waits;
      break;
    case thread_activity::ios:
      ++c.ios;
      break;
    case thread_activity::sleeps:
      ++c.sleeps;
      break;
    case thread_activity::other:
      break;
  }
}

void thread_state_table::add(const stack_snapshot& snapshot, const io_predicate& is_io) {
  for (auto& t : snapshot.threads) add(t, classify_thread(t.state, t.frames, is_io));
}

std::vector<thread_state_counts> thread_state_table::counts() const {
  std::vector<thread_state_counts> out;
  out.reserve(threads_.size());
  std::transform(threads_.begin(), threads_.end(), std::back_inserter(out),
                 [](const auto& kv) { return kv.second; });
  return out;
}

}  // namespace perfdm::native
