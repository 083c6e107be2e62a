// Which stacks are a runtime waiting (docs/NATIVE.md §8 "Runtime waits"): for work, where a
// thread is idle and never a bottleneck, or for another thread or process, where it waits even
// while it is on the CPU (a spin loop). The thread's state and its blocking call
// (thread_states.hpp, sync_object.hpp) cannot tell these apart: a pool thread parked in
// pthread_cond_wait and a thread waiting for a lock's holder both sleep in a futex, and an
// OpenMP thread spinning at a barrier runs. Plain C++.
//
// The rules, first match wins (the Performance Consultant's rules R1, R5, R8, R10, R12, R15):
// - MPI: a frame of an MPI call anywhere on the stack (MPI_Allreduce or its profiling entry
//   PMPI_Allreduce, Fortran's mpi_allreduce_): waiting (kind Message, object the call the
//   program made, the outermost: "MPI_Allreduce"), on the CPU or not. Open MPI's blocking
//   calls poll (opal_progress, sched_yield, mca_pml_ob1_recv) while the other ranks are late.
// - OpenMP (libgomp, libomp, libiomp5): the innermost frame outside the C library is the
//   runtime's. With a frame of the program further out it waits at a barrier, a lock or a
//   task wait, spinning or asleep: waiting (kind Barrier, or Mutex, Semaphore when the
//   runtime's symbols say so). With none, the thread is the pool's, between regions or done
//   with its part of one: idle.
// - Go's runtime: a thread in the scheduler's sleep with no goroutine (runtime.stopm, mPark,
//   notesleep, findRunnable, templateThread), the system monitor (runtime.sysmon) or the
//   network poller (runtime.netpoll), with no frame of the program further out: idle. A
//   runtime lock (runtime.lock2): waiting (Mutex). Names are compared without `.abi0`.
// - libuv (node): a thread in uv_cond_wait (the thread pool's and node's task queues): idle.
// - Event loops: an event wait (epoll_wait, epoll_pwait, poll, ppoll, select, pselect) under
//   a loop (uv_run, uv__io_poll, libevent's event_base_loop, libev's ev_run, GLib's main
//   context, Open MPI's progress_engine): idle. Without a loop, such a wait stays I/O.
// - CPython's GIL (take_gil): waiting, a known serialiser: threads taking turns at it are
//   contention, whatever else runs.
// - A sched_yield loop (the innermost call of the program is sched_yield): waiting (kind
//   Yield), on the CPU or not.
// A runtime's own rule plugs in by adding a function to the table in runtime_waits.cpp
// (before the generic ones: a rule that knows its frames best goes first).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "native/stack_sampler.hpp"

namespace perfdm::native {

enum class wait_role : unsigned char {
  none,     // nothing known: the state and the blocking call decide
  idle,     // waiting for work: never a bottleneck
  waiting,  // waiting for another thread or process, also while on the CPU
};

struct runtime_wait {
  wait_role role = wait_role::none;
  // For `waiting`: the /SyncObject kind ("Barrier", "Yield"); "" leaves it to the blocking
  // call (sync_object.hpp), which names futex waits by their address.
  std::string kind;
  // An object the runtime names ("MPI_Allreduce"); "" for the futex address (or none).
  std::string object;
  // A known global serialiser (CPython's GIL): its waits are contention by definition.
  bool serializer = false;
};

// A rule: the thread's one-letter state and its stack, innermost first; nothing when it does
// not know the stack.
using wait_rule = std::optional<runtime_wait> (*)(char state,
                                                  const std::vector<stack_frame>& frames);

// What the rules say of a thread (role none when no rule knows its stack).
runtime_wait match_runtime_wait(char state, const std::vector<stack_frame>& frames);

// A function's name as the rules compare it: plain_function_name, without a Go ABI suffix
// (`.abi0`) or a compiler clone's (`.cold`, `.constprop.0`, `.isra.0`, `.part.0`).
std::string rule_name(const std::string& function);

// Whether a frame is the C library's (libc, libpthread, the loader, the vDSO): code between a
// runtime and the kernel that says nothing of who waits.
bool c_library_frame(const stack_frame& frame);

}  // namespace perfdm::native
