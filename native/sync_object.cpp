#include "native/sync_object.hpp"

#include <cstdio>
#include <string_view>
#include <utility>

#include "native/pc_resources.hpp"
#include "native/thread_states.hpp"

namespace perfdm::native {

namespace {

bool one_of(const std::string& name, std::initializer_list<std::string_view> names) {
  for (auto n : names)
    if (name == n) return true;
  return false;
}

// The kind of a blocking call by its plain name (plain_function_name), "" if none.
const char* blocking_kind(const std::string& f) {
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
  if (one_of(f, {"pthread_join", "pthread_timedjoin_np", "pthread_clockjoin_np"})) return "Join";
  if (one_of(f, {"sem_wait", "sem_timedwait", "sem_clockwait"})) return "Semaphore";
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
  auto module = module_part(f.module);
  return starts_with(module, "libc.so") || starts_with(module, "libc-") ||
         starts_with(module, "libpthread") || starts_with(module, "libstdc++") ||
         starts_with(f.function, "std::") || starts_with(f.function, "__gthread") ||
         starts_with(f.function, "__gnu_cxx::");
}

std::string call_site(const stack_frame& f) {
  auto name = function_part(f.function);
  return f.line > 0 ? name + "@" + std::to_string(f.line) : name;
}

}  // namespace

sync_object identify_sync_object(const std::vector<stack_frame>& frames,
                                 const thread_syscall& syscall) {
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const char* kind = blocking_kind(plain_function_name(frames[i].function));
    if (*kind == '\0') continue;
    std::string k = kind;
    std::string site = call_site(frames[i]);
    for (std::size_t j = i + 1; j < frames.size(); ++j)
      if (!library_frame(frames[j])) {
        site = call_site(frames[j]);
        break;
      }
    if ((k == "Mutex" || k == "Semaphore") && syscall.valid && !syscall.running &&
        syscall.number == futex_syscall_number()) {
      char address[32];
      std::snprintf(address, sizeof address, "0x%llx",
                    static_cast<unsigned long long>(syscall.args[0]));
      return sync_object{std::move(k), address, std::move(site)};
    }
    return sync_object{std::move(k), site, site};
  }
  for (auto& f : frames)
    if (!f.function.empty()) return sync_object{"Other", call_site(f), call_site(f)};
  return sync_object{"Other", "?", "?"};
}

sync_object sync_object_namer::name(const std::vector<stack_frame>& frames,
                                    const thread_syscall& syscall) {
  auto o = identify_sync_object(frames, syscall);
  if (o.kind != "Mutex" && o.kind != "Semaphore") return o;
  auto key = std::make_pair(o.kind, o.call_site);
  bool has_address = o.object.compare(0, 2, "0x") == 0;
  auto known = addresses_.find(key);
  if (has_address) {
    if (known == addresses_.end())
      addresses_.emplace(key, o.object);
    else if (known->second != o.object)
      known->second.clear();  // two addresses: ambiguous from now on
  } else if (known != addresses_.end() && !known->second.empty()) {
    o.object = known->second;
  }
  return o;
}

}  // namespace perfdm::native
