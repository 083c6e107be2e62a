// The Performance Consultant's evidence (docs/PROTOCOL.md §12 "Deciding on the
// evidence"): the search actor asks the watched processes' stack sample windows for the
// counts at its nodes' foci since its search began (WINDOW, internal), and feeds what they
// answered back through the data manager as EVIDENCE, a request of its own, so that a
// recording holds it and its replay decides the same nodes the same way. EVIDENCE also
// carries the sampled call graph's new calls, along which /Code is refined.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "messages/inspect_macros.hpp"

namespace perfdm {

// One process's counts at one focus (window/sample_window.hpp focus_counts).
struct evidence_counts {
  std::int32_t pid = 0;
  std::uint64_t ticks = 0;  // stack samples since the search began
  std::uint64_t runs = 0, syncs = 0, ios = 0;  // thread-samples in each state at the focus
  std::uint32_t runs_most = 0, syncs_most = 0, ios_most = 0;  // most at one sample
  double io_ops = 0, io_bytes = 0;
  double first = 0, last = 0;  // seconds: the first and last stack sample counted
  // Normalised and weighed (window/sample_window.hpp focus_counts): per state the sums of the
  // shares of the active threads and of the busy threads; NaN where not given (an EVIDENCE
  // of one thread at a time: the shares are the counts).
  double runs_share = std::nan(""), syncs_share = std::nan(""), ios_share = std::nan("");
  double runs_saving = std::nan(""), syncs_saving = std::nan(""), ios_saving = std::nan("");
  double runs_blamed = 0, ios_blamed = 0;  // caused waits shared among the busy, at the focus
  double idle = 0;                         // idle threads, summed over the stack samples
  // The process's host (its /Machine host part), "" for the engine's own: a process is its
  // host and pid together, as two hosts may run the same pid (EVIDENCE's HOST).
  std::string host;
};
PERFDM_INSPECT(evidence_counts, x.pid, x.ticks, x.runs, x.syncs, x.ios, x.runs_most, x.syncs_most,
               x.ios_most, x.io_ops, x.io_bytes, x.first, x.last, x.runs_share, x.syncs_share,
               x.ios_share, x.runs_saving, x.syncs_saving, x.ios_saving, x.runs_blamed,
               x.ios_blamed, x.idle, x.host)

// WINDOW (internal: search actor -> data manager -> registry -> every native source).
struct window_query {
  double since = 0;                             // seconds, engine time
  std::vector<std::vector<std::string>> foci;  // each focus's resource names
};
PERFDM_INSPECT(window_query, x.since, x.foci)

struct window_answer {
  std::int32_t pid = 0;
  std::string host;  // the process's /Machine host part (native::host_part() where it runs)
  std::vector<evidence_counts> counts;  // one per focus, in the query's order
  std::uint64_t held_ticks = 0, evicted_ticks = 0;
  std::uint64_t held_bytes = 0;
};
PERFDM_INSPECT(window_answer, x.pid, x.host, x.counts, x.held_ticks, x.evicted_ticks,
               x.held_bytes)

struct window_answers {
  std::vector<window_answer> processes;
};
PERFDM_INSPECT(window_answers, x.processes)

struct evidence_focus {
  std::string code, machine, syncobject;
  std::string file = "/File";  // the focus's /File part (FILE, printed when not the root)
  std::vector<evidence_counts> processes;
};
PERFDM_INSPECT(evidence_focus, x.code, x.machine, x.syncobject, x.file, x.processes)

struct evidence_call {
  std::string caller;  // "" : `callee` is an entry function
  std::string callee;
};
PERFDM_INSPECT(evidence_call, x.caller, x.callee)

// EVIDENCE: `<EVIDENCE SEARCH TIME EVICTED><AT CODE MACHINE SYNCOBJECT [FILE]><P [HOST] …/>…</AT>…
// <CALL CALLER CALLEE/>…</EVIDENCE>`; answered OK.
struct evidence_note {
  std::uint64_t search = 0;
  double time = 0;  // data time the counts reach
  std::uint64_t evicted = 0;  // stack samples the windows dropped so far (all processes)
  std::vector<evidence_focus> foci;
  std::vector<evidence_call> calls;
};
PERFDM_INSPECT(evidence_note, x.search, x.time, x.evicted, x.foci, x.calls)

}  // namespace perfdm
