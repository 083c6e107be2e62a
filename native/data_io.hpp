// Which I/O is the program's data I/O (docs/NATIVE.md §8): the Performance Consultant's I/O
// hypotheses are about reads and writes a device or a peer makes the program wait for, so
// some I/O calls are not counted as I/O (Paradyn's TooManySmallIOOps was about disk blocks):
// - pseudo-files: /proc, /sys and /dev/shm are answered by the kernel or from memory, not a
//   device; an event descriptor (anon_inode:[eventfd], [timerfd], [signalfd], [eventpoll])
//   carries no data;
// - a sync call is I/O blocking but moves no bytes: the operations counted around it are
//   charged to the calls that made them (TooManySmallIOOps at fdatasync is meaningless);
// - start-up discovery: hwloc reading the machine's topology from /proc and /sys, once per
//   process, or an MPI runtime starting (MPI_Init, Open MPI's opal_init).
// Plain C++.
#pragma once

#include <string>
#include <vector>

#include "native/stack_sampler.hpp"

namespace perfdm::native {

// `file`: a /File resource (pc_resources.hpp file_resource), "" when not known.
bool pseudo_file(const std::string& file);

// A stack (innermost first) in start-up discovery.
bool startup_discovery(const std::vector<stack_frame>& frames);

// A stack (innermost first) in a call that writes back what was written before and moves
// no bytes itself (fsync, fdatasync, sync_file_range, syncfs, sync, msync): the time is I/O
// blocking, but the reads and writes since the thread's last sample were made elsewhere.
bool sync_call(const std::vector<stack_frame>& frames);

}  // namespace perfdm::native
