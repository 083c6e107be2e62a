#include "native/sync_object.hpp"

#include <cstdint>
#include <cstdio>
#include <string_view>
#include <utility>

#include "native/pc_resources.hpp"
#include "native/thread_states.hpp"
#include "proc/system_modules.hpp"

namespace perfdm::native {

namespace {

bool one_of(const std::string& name, std::initializer_list<std::string_view> names) {
  for (auto n : names)
    if (name == n) return true;
  return false;
}

// The kind of a blocking call by its plain name (plain_function_name), "" if none.
const char* blocking_kind_exact(const std::string& f);

// glibc's 64-bit time entry points carry a suffix (__pthread_cond_timedwait64), and its
// compiler clones another (__new_sem_wait_slow64.constprop.0).
const char* blocking_kind(std::string f) {
  f = f.substr(0, f.find('.'));
  const char* k = blocking_kind_exact(f);
  if (*k == '\0' && f.size() > 2 && f.compare(f.size() - 2, 2, "64") == 0)
    k = blocking_kind_exact(f.substr(0, f.size() - 2));
  return k;
}

const char* blocking_kind_exact(const std::string& f) {
  if (one_of(f, {"pthread_mutex_lock", "pthread_mutex_timedlock", "pthread_mutex_clocklock",
                 "lll_lock_wait", "lll_lock_wait_private"}))
    return "Mutex";
  if (one_of(f, {"pthread_rwlock_rdlock", "pthread_rwlock_wrlock", "pthread_rwlock_timedrdlock",
                 "pthread_rwlock_timedwrlock", "pthread_rwlock_clockrdlock",
                 "pthread_rwlock_clockwrlock"}))
    return "RWLock";
  if (f == "pthread_spin_lock") return "Spinlock";
  if (one_of(f, {"flock", "lockf"})) return "FileLock";
  if (one_of(f, {"pthread_cond_wait", "pthread_cond_timedwait", "pthread_cond_clockwait"}))
    return "CondVar";
  // pthread_join, pthread_timedjoin_np, pthread_clockjoin_ex (glibc's own), ...
  if (f.compare(0, 8, "pthread_") == 0 && f.find("join") != std::string::npos) return "Join";
  if (one_of(f, {"sem_wait", "sem_timedwait", "sem_clockwait", "new_sem_wait_slow"}))
    return "Semaphore";
  if (f == "pthread_barrier_wait") return "Barrier";
  if (one_of(f, {"waitpid", "wait", "wait4", "waitid"})) return "Child";
  if (one_of(f, {"sigwait", "sigwaitinfo", "sigtimedwait"})) return "Signal";
  return "";
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Library code between the program and the blocking call: not a call site.
bool library_frame(const stack_frame& f) {
  return proc::system_module(f.module) || starts_with(f.function, "std::") ||
         starts_with(f.function, "__gthread") || starts_with(f.function, "__gnu_cxx::");
}

bool in_futex(const thread_syscall& syscall) {
  return syscall.valid && !syscall.running && syscall.number == futex_syscall_number();
}

std::string hex_address(std::uint64_t address) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
  return text;
}

std::string call_site(const stack_frame& f) {
  auto name = function_part(f.function);
  return f.line > 0 ? name + "@" + std::to_string(f.line) : name;
}

}  // namespace

// An interpreter that waits at its exit for the threads it started: CPython's Py_FinalizeEx
// (wait_for_thread_shutdown, threading._shutdown) takes each thread's lock, a semaphore or
// mutex at C level, but the wait is a join.
bool joining_at_exit(const std::vector<stack_frame>& frames) {
  for (auto& f : frames)
    if (plain_function_name(f.function) == "Py_FinalizeEx") return true;
  return false;
}

sync_object identify_sync_object(const std::vector<stack_frame>& frames,
                                 const thread_syscall& syscall) {
  std::string kind, site;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const char* k = blocking_kind(plain_function_name(frames[i].function));
    if (*k == '\0') continue;
    kind = k;
    site = call_site(frames[i]);
    for (std::size_t j = i + 1; j < frames.size(); ++j)
      if (!library_frame(frames[j])) {
        site = call_site(frames[j]);
        break;
      }
    break;
  }
  if (!kind.empty() && kind != "Child" && kind != "Signal" && joining_at_exit(frames))
    kind = "Join";
  if (in_futex(syscall)) {
    // Every futex wait is an object named by its address; the kind from the libc function it
    // waits in, Futex when none is known.
    if (kind != "Mutex" && kind != "RWLock" && kind != "CondVar" && kind != "Semaphore" &&
        kind != "Barrier" && kind != "Join")
      kind = joining_at_exit(frames) ? "Join" : "Futex";
    std::uint64_t address = syscall.args[0];
    // A glibc condition variable waits on __g_signals[0] or [1], 4 bytes apart at an 8-byte
    // aligned offset of the (8-byte aligned) object: rounded down, both words name it once.
    if (kind == "CondVar") address &= ~std::uint64_t{7};
    return sync_object{std::move(kind), hex_address(address), std::move(site)};
  }
  // Not in a futex (caught on its way in or just woken, or a wait that is no futex: wait4,
  // sigwait, flock): the kind when a call shows it, no object. A function is never an object.
  return sync_object{std::move(kind), "", std::move(site)};
}

bool waits_for_own_work(const sync_object& object) {
  return object.kind == "Join" || object.kind == "Child" || object.kind == "Signal";
}

sync_object sync_object_namer::name(const std::vector<stack_frame>& frames,
                                    const thread_syscall& syscall) {
  auto o = identify_sync_object(frames, syscall);
  if (o.kind.empty()) return o;
  auto key = std::make_pair(o.kind, o.call_site);
  if (in_futex(syscall)) {
    auto raw = hex_address(syscall.args[0]);
    if (o.kind == "Futex") {
      // No known call on the stack (asleep in the futex when its state was read, on its way
      // by the time its stack was taken; or a futex of the program's own): the object a known
      // call was seen waiting on at that address names it.
      if (auto k = objects_.find(raw); k != objects_.end()) {
        o.kind = k->second.first;
        o.object = k->second.second;
      }
      return o;
    }
    objects_.emplace(raw, std::make_pair(o.kind, o.object));
    auto known = addresses_.find(key);
    if (known == addresses_.end())
      addresses_.emplace(key, o.object);
    else if (known->second != o.object)
      known->second.clear();  // two objects at one call site: ambiguous from now on
    return o;
  }
  if (o.object.empty())
    if (auto known = addresses_.find(key); known != addresses_.end()) o.object = known->second;
  return o;
}

}  // namespace perfdm::native
