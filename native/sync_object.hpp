// Which synchronisation object a blocked or waiting thread waits on, as far as its stack
// and its system call tell (the /SyncObject hierarchy, docs/NATIVE.md §8). Plain C++.
//
// The kind is that of the innermost known blocking call on the stack (the same glibc
// functions thread_states.hpp knows): Mutex (pthread_mutex_*lock, __lll_lock_wait*),
// RWLock, Spinlock, FileLock (flock, lockf), CondVar, Join, Semaphore, Barrier, Child
// (wait*), Signal (sigwait*); none known: Other.
//
// The object:
// - a Mutex or a Semaphore whose thread sleeps in futex(2): the futex address, the first
//   argument of the system call (/proc/PID/task/TID/syscall) — glibc's lock word is the
//   first member of pthread_mutex_t and of sem_t, so it is the object's own address
//   (`0x55d0c0a4a140`, what `printf("%p", &m)` prints);
// - otherwise the call site: the first frame outside the blocking call, the C library,
//   libstdc++ and `std::` wrappers, as `<function>@<line>` (`<function>` without line
//   information). A condition variable's futex is a word inside it that changes with its
//   group, and a join's the joined thread's, so those are named by call site too.
// - Other: the innermost named function.
// A thread caught on its way into the futex (still runnable) or just woken (its system call
// reads "running") shows no address; sync_object_namer remembers which address each call site
// blocked on and names such a sample by it, so that one mutex is one resource. A call site
// seen blocking on two addresses (a function that locks the mutex it is given) is ambiguous
// and keeps its call-site name.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "native/stack_sampler.hpp"
#include "native/thread_proc_files.hpp"

namespace perfdm::native {

struct sync_object {
  std::string kind;       // "" when the thread waits on nothing (it runs, sleeps or does I/O)
  std::string object;     // a resource part: 0x… or <function>@<line>
  std::string call_site;  // where the program called the blocking function
};

// The object a thread that BLOCKS or WAITS (thread_states.hpp) waits on.
sync_object identify_sync_object(const std::vector<stack_frame>& frames,
                                 const thread_syscall& syscall);

class sync_object_namer {
 public:
  sync_object name(const std::vector<stack_frame>& frames, const thread_syscall& syscall);

 private:
  // (kind, call site) → the address seen there; "" once a second one was seen.
  std::map<std::pair<std::string, std::string>, std::string> addresses_;
};

}  // namespace perfdm::native
