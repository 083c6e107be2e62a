// Which synchronisation object a blocked or waiting thread waits on, as far as its stack
// and its system call tell (the /SyncObject hierarchy, docs/NATIVE.md §8). Plain C++.
//
// Every futex wait is an object named by its address, the first argument of the system call
// (/proc/PID/task/TID/syscall, read with the thread's state before it is stopped). Its kind is
// that of the innermost known blocking call on the stack (the glibc functions
// thread_states.hpp knows): Mutex (pthread_mutex_*lock, __lll_lock_wait*), RWLock, CondVar,
// Semaphore, Barrier, Join; Futex when none is known. glibc's lock word is the first member of
// pthread_mutex_t and sem_t, so a mutex's or semaphore's address is the object's own
// (`0x55d0c0a4a140`, what `printf("%p", &m)` prints); a condition variable waits on one of two
// words 4 bytes apart, rounded down to 8 so that both name one object (base + 40 in glibc
// 2.36); a join waits on the joined thread's id word.
// A thread that waits but not in a futex has its kind when a known call shows it (Spinlock,
// FileLock, Child, Signal, or a lock caught on its way in or just woken) and no object: it
// counts at /SyncObject/<kind>. A function name is never an object.
//
// sync_object_namer keeps names consistent across samples:
// - a lock caught with no address (on its way into the futex, or just woken: its system call
//   reads "running") is named by the object its call site was seen waiting on, unless that
//   call site waited on two objects (a function that locks the mutex it is given);
// - the state and the system call are read together before the thread is stopped, its stack
//   after: a thread asleep in a lock's futex at the first read may have the lock and run on by
//   the second, its stack showing no blocking call (kind Futex). When that futex address was
//   seen under a known call, that object names the sample (the time was spent waiting on it).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "native/stack_sampler.hpp"
#include "native/thread_proc_files.hpp"

namespace perfdm::native {

struct sync_object {
  std::string kind;       // "" when nothing names what it waits on
  std::string object;     // a resource part, 0x…; "" when only the kind is known
  std::string call_site;  // where the program called the blocking function (<function>@<line>)
};

// The object a thread that BLOCKS or WAITS (thread_states.hpp) waits on.
sync_object identify_sync_object(const std::vector<stack_frame>& frames,
                                 const thread_syscall& syscall);

// Whether the wait is for work the program itself started to finish: a thread joining
// another (Join), a process waiting for its child (Child), a thread waiting for a signal
// (Signal). Such a wait is idle time, not contention: the work waited for is where the time
// goes, so the Performance Consultant's sync_wait leaves it out (docs/NATIVE.md §8).
bool waits_for_own_work(const sync_object& object);

class sync_object_namer {
 public:
  sync_object name(const std::vector<stack_frame>& frames, const thread_syscall& syscall);

 private:
  // (kind, call site) → the object seen there; "" once a second one was seen.
  std::map<std::pair<std::string, std::string>, std::string> addresses_;
  // Futex address → the (kind, object) seen sleeping on it under a known call.
  std::map<std::string, std::pair<std::string, std::string>> objects_;
};

}  // namespace perfdm::native
