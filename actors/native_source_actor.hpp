// One native source actor per watched process (WATCH): a data source of the data manager, like
// a frame ingest actor, for any native program, with no instrumentation. It reads /proc for
// the proc.* metrics that are collecting (sources/proc_sample_builder.hpp), once per sampling
// interval and only what is enabled, and samples every thread's stack (native/stack_sampler)
// at DyPer's exponentially distributed delays, within an overhead budget, into the CPU
// profile (native/cpu_profile) and the thread states (native/thread_states). It answers
// PROFILE and STACKS, follows the process's DyPer settings (native_settings: MONITOR,
// CPUTIME, CHECKTIME, USETHREAD, ...), and ends when the process exits or is unwatched; when
// it exits, it hands its last profile and stacks to the registry first (native_ended). It
// runs on a thread of its own: ptrace and /proc reads block, and a ptrace stop belongs to the
// thread that made it.
#pragma once

#include <memory>

#include <caf/actor.hpp>
#include <caf/event_based_actor.hpp>

#include "dyper/native_settings.hpp"
#include "messages/callgraph_messages.hpp"
#include "messages/flame_messages.hpp"
#include "messages/native_messages.hpp"
#include "messages/process_messages.hpp"
#include "native/cpu_profile.hpp"
#include "native/sampling_delay.hpp"
#include "native/stack_sampler.hpp"
#include "window/sample_window.hpp"
#include "profile/call_path_store.hpp"

namespace perfdm {

struct native_options {
  // Engine time 0 on CLOCK_MONOTONIC (the data manager's clock origin).
  std::int64_t origin_monotonic_ns = 0;
  bool stack_sampling = true;
  native::delay_settings delay;     // CHECKTIME 10 ms, budget 10 %, cap 10 s
  native::detail_settings detail;   // DyPer's METHOD_DETAIL_* defaults
  std::size_t max_depth = 128;      // MAXDEPTH
  window::window_limits window;     // the stack samples kept for the search: 120 s, 16 MiB
};

// Asks a new native source to define its resources and metrics and start; it answers ok_reply
// once the data manager knows them.
using native_start_atom = caf::atom_constant<caf::atom("natstart")>;

// Sent by a native source to its parent (the registry) as its process exits: what PROFILE,
// STACKS and REPORT answer for the process from then on, until UNWATCH or a new WATCH.
struct native_ended {
  cpu_profile_report profile;
  stacks_report stacks;
  callgraph_report callgraph;
};
PERFDM_INSPECT(native_ended, x.profile, x.stacks, x.callgraph)

// Sent by a native source to the registry with native_ended: its call paths (FLAMEGRAPH,
// TIMELINE, the log), which the source no longer touches. A local message only.
struct native_flame_ended {
  std::int32_t pid = 0;
  std::shared_ptr<const profile::call_path_store> store;
};

// Spawns the source of `pid`, whose name and sampler the caller got ready (so that WATCH
// fails at once, and clearly, for a process that cannot be observed). `parent` (the process
// registry) monitors it and hears native_ended from it. `settings`: the process's DyPer
// settings at the start; a native_settings message changes them at once.
caf::actor spawn_native_source(caf::event_based_actor* parent, caf::actor dm, process_info info,
                               std::shared_ptr<native::stack_sampler> sampler,
                               native_options options, native_settings settings);

}  // namespace perfdm

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(perfdm::native_flame_ended)
