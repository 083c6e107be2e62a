// Leaving a command that runs an actor system (daemon, relay) in bounded time.
//
// Why: CAF 0.17's ~actor_system stops the clock thread, then waits for every detached actor's
// thread, and such a thread ends only once its actor object is destroyed. A timer still
// pending in the stopped clock (a delayed_send to a detached actor, or from it, or a request
// timeout of one that quit before its answer came) holds a strong reference to that actor
// forever: the process hangs in await_detached_threads() ("the engine at ... went
// away", then no exit, and SIGTERM no longer ends it). The native sources and frame ingest
// actors are detached and tick with delayed_send, so the daemon hit it whenever it ended
// within a tick of a source.
#pragma once

#include <caf/actor_system.hpp>
#include <chrono>

namespace perfdm {

// Waits (at most `patience`) until no actor of `sys` runs any more, then drops the clock's
// pending timers, so the detached actors among the ended ones can be destroyed and
// ~actor_system returns. Call it just before `sys` goes out of scope, after the command sent
// its actors the exit they need (hide any scoped_actor still alive: it counts as running).
// Returns false if some actor still ran when the patience ran out.
bool settle_actor_system(caf::actor_system& sys, std::chrono::milliseconds patience);

// The last resort: a watchdog thread ends the process with `status` (std::_Exit, standard
// output flushed first) if it still runs `after` from now. Armed once the command decided to
// leave; it covers what settling cannot (an actor blocked in a system call).
void exit_within(std::chrono::milliseconds after, int status);

// Ends the process now with `status`, standard output and error flushed, without destroying
// the actor system: for a node whose upstream went away, once settle_actor_system let its
// actors end. It has nothing left to send, and tearing CAF 0.17 down after a lost connection
// can still wait on a detached actor nobody releases (await_detached_threads, until the
// watchdog above ends it).
[[noreturn]] void leave_now(int status);

}  // namespace perfdm
