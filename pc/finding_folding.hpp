// Sub-graph folding of the findings (after Paradyn's Distributed Performance Consultant, Roth &
// Miller, PPoPP 2006): a search over many processes that behave alike finds the same thing in
// each of them; a person should read it once, with how many processes it stands for, and
// the processes that differ.
//
// Two findings fold when they are the same hypothesis at the same /Code, the same /File and
// the same kind of /SyncObject (Mutex/0xA and Mutex/0xB fold: an object's address differs
// between processes; so do pipes and sockets, /File/pipe:[N]), and both name a process in
// /Machine (host and thread may differ). A process is its host and pid together (two hosts
// often run the same pid: containers, pid namespaces). A
// group folds when it covers two processes or more; then it says "in N of P processes" and
// lists its outliers, the processes searched that are not in it, each with its own best
// finding. Findings at a process-independent focus, and groups of one process, stay as they
// were, so a search over one process reads exactly as before.
//
// Alike so far: a search that ends while its processes are at different depths of the same
// call path (one found in main, another already in work, a third in relax below them) would
// read as one line per depth. A finding whose code lies on a deeper group's path (an
// ancestor's code of that group's nodes, the same hypothesis and object kinds), in a process
// where nothing on that path below it was concluded false, counts with that group instead:
// "— in 2 of 64 processes, alike so far in 59 more (30 in main, 4 in work, 25 at the whole
// process)". They are not its outliers.
//
// The folded line (docs/PROTOCOL.md §12.6):
//   CPUbound 93–99% of time in relax (cluster_job) — in 7 of 8 processes — since 1.0 s;
//   process cluster_job{4242}: ExcessiveSyncWaitingTime 71% of time in … — since 0.8 s
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "pc/findings.hpp"
#include "pc/machine_name.hpp"

namespace perfdm::pc {

// A process searched: its pid and, when known, its /Machine path ("/Machine/h/job{42}") or
// its name ("job"): what an outlier that no finding names is called by. Its host is
// `host`, else the host of `machine`; without either it is the process of that pid a finding
// names (a front end that watched it by pid alone). Processes are told apart by host and pid:
// two hosts may run the same pid.
struct searched_process {
  int pid = 0;
  std::string machine;
  std::string name;
  std::string host;
};

struct outlier {
  int pid = 0;
  std::string host;     // "" when not known
  std::string process;  // "cluster_job{4242}", "host17:cluster_job{4242}" across hosts
  // Its best finding (none is in the group); where it has none, the group's hypothesis in
  // it, from `nodes`: "CPUbound 0% of time in relax (job) — process job{42} — concluded
  // false" (or "— not concluded" for a node still open); else "no finding".
  std::string text;
};

struct folded_finding {
  std::vector<finding> members;  // ranked; members[0] is the group's best
  std::vector<int> pids;         // the processes it stands for, by (host, pid); empty: none
  std::vector<std::string> hosts;  // each one's host, as pids ("" when not known)
  std::size_t of = 0;            // the processes searched
  bool folded = false;           // two processes or more: printed in the folded form
  std::string code, machine, syncobject, file;  // the common focus ("/SyncObject/Mutex")
  double low = 0, high = 0;      // its members' values
  double since = -1;             // the earliest member's
  std::vector<outlier> outliers; // folded only: the processes searched not in the group
                                 // nor alike so far
  std::size_t alike = 0;         // the processes alike so far (their findings shallower)
  std::string text;              // the folded line without outliers (a member's text if not)
  std::string line;              // text, then "; process …: …" for each outlier (capped,
                                 // and only where outliers_shown)
};

// At most this many outliers are written into `line` (then "; … and K more processes").
inline constexpr std::size_t outliers_in_line = 5;

// Whether a person is shown the outliers (in `line`, in the text report): when the group
// holds most of the processes searched. Below that the others are not outliers but the rest
// of a mixed job, each in its own finding; `outliers` lists them all the same.
bool outliers_shown(const folded_finding& f);

// The folded view of ranked findings: one entry per group, in the rank of its best member.
// `processes` are the processes searched (P); a process that only the findings name counts
// too. With every finding in one process the result is one unfolded entry per finding.
// `nodes`, the search history graph, tells what an outlier without a finding showed.
std::vector<folded_finding> fold_findings(const std::vector<finding>& ranked,
                                          const std::vector<searched_process>& processes,
                                          const std::vector<node_view>& nodes = {});

}  // namespace perfdm::pc
