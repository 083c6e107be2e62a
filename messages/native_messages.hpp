// Watching a running native program without instrumentation (the native modules: /proc
// sampling, stack sampling): WATCH/UNWATCH, and the two views of its stacks, the CPU profile
// (DyPer's REPORT CPU section) and the current stacks (DyPer's SHOWSTACK). WATCH and UNWATCH
// answer process_info (messages/process_messages.hpp), as ATTACH and DETACH do.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "messages/inspect_macros.hpp"

namespace perfdm {

struct watch_request {
  std::int32_t pid = 0;
};
PERFDM_INSPECT(watch_request, x.pid)
struct unwatch_request {
  std::int32_t pid = 0;
};
PERFDM_INSPECT(unwatch_request, x.pid)
struct profile_request {
  std::int32_t pid = 0;
};
PERFDM_INSPECT(profile_request, x.pid)
struct stacks_request {
  std::int32_t pid = 0;
};
PERFDM_INSPECT(stacks_request, x.pid)

// One item of the CPU profile: a function (module@function) or one of its source lines
// (module@function@line, with the file).
struct profile_entry {
  std::string name;
  std::string file;
  std::uint64_t total = 0;  // samples with it on the stack (inclusive)
  std::uint64_t base = 0;   // samples with it innermost (exclusive)
  std::string type;         // code class of CLASSES: NORMAL, SYSTEM, IO or SYSTEM_IO
};
PERFDM_INSPECT(profile_entry, x.name, x.file, x.total, x.base, x.type)
// What one thread was doing at the stack samples that saw it (REPORT's thread section;
// native/thread_states.hpp says how a state is decided).
struct thread_state_entry {
  std::int32_t tid = 0;
  std::string name;
  std::uint64_t samples = 0;
  std::uint64_t blocks = 0, runs = 0, waits = 0, ios = 0, sleeps = 0;
};
PERFDM_INSPECT(thread_state_entry, x.tid, x.name, x.samples, x.blocks, x.runs, x.waits, x.ios,
               x.sleeps)
// PROFILE's reply: `<COUNTERS MONTIME SAMPLES ACTIVE LAST><TOTALS …/><ITEM …/>…</COUNTERS>`.
struct cpu_profile_report {
  std::int32_t pid = 0;
  double montime = 0;         // seconds of the program's life the samples cover
  std::uint64_t samples = 0;  // stack samples taken
  std::uint64_t active = 0;   // running thread stacks counted
  double last = -1;           // engine time of the last sample, -1 before any
  std::uint64_t stacks = 0;   // thread stacks seen, running or not
  std::uint64_t detailed = 0; // functions whose lines are counted
  double checktime = 0;       // the mean delay between samples now (seconds), budget included
  double cost = 0;            // seconds the samples stopped the program, all together
  bool ended = false;         // the process exited: this is its last profile
  std::vector<profile_entry> items;
  std::vector<thread_state_entry> threads;  // by thread id (REPORT's thread section, the log)
};
PERFDM_INSPECT(cpu_profile_report, x.pid, x.montime, x.samples, x.active, x.last, x.stacks,
               x.detailed, x.checktime, x.cost, x.ended, x.items, x.threads)

struct stack_entry {
  std::string function;
  std::string file;
  std::int32_t line = 0;
  std::string module;
  std::uint64_t pc = 0;
};
PERFDM_INSPECT(stack_entry, x.function, x.file, x.line, x.module, x.pc)
struct thread_entry {
  std::int32_t tid = 0;
  std::string name;
  std::string state;  // running, sleeping, disk-sleep, ...
  std::vector<stack_entry> stack;  // innermost first
};
PERFDM_INSPECT(thread_entry, x.tid, x.name, x.state, x.stack)
// STACKS's reply: `<THREADS TIME><THREAD ID NAME STATE><STACK …/>…</THREAD>…</THREADS>`.
struct stacks_report {
  std::int32_t pid = 0;
  double time = 0;  // engine time of the sample
  bool ended = false;  // the process exited: these are the stacks of its last sample
  std::vector<thread_entry> threads;
};

PERFDM_INSPECT(stacks_report, x.pid, x.time, x.ended, x.threads)

}  // namespace perfdm
