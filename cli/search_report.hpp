// What `perfdm search` reports: its findings as they settle (one line each), then ranked, the
// open nodes of a search that ended before they concluded, and the same as JSON.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli/report_json.hpp"
#include "messages/search_messages.hpp"
#include "pc/finding_folding.hpp"
#include "pc/findings.hpp"

namespace perfdm {

// The nodes of one search as SHGNODE events tell them; announces each finding once, when it
// has settled (pc::settled_findings) and was already true at the previous look, so that its
// refinement, published with it, has arrived.
class finding_watch {
 public:
  void update(const shg_node_info& n);
  // The findings to print now, each once.
  std::vector<pc::finding> take_new();
  std::vector<pc::node_view> nodes() const;

 private:
  std::map<std::uint64_t, shg_node_info> nodes_;
  std::set<std::uint64_t> seen_true_;  // true at the previous look
  std::set<std::uint64_t> announced_;
};

// [{"rank":…,"hypothesis":…,"focus":{"code":…,"machine":…,"syncobject":…,"file":…},"value":…,
// "threshold":…,"since":…,"pid":…,"tid":…,"function":…,"text":…,"score":…}], ranked.
report_json findings_json(const std::vector<finding_info>& findings);
// Open nodes: the same with "low", "high", "samples" (null when unknown), no "since".
report_json inconclusive_json(const std::vector<pc::finding>& open);

// The ranked list of the text report shows this many findings, then "… and K more findings":
// an I/O pattern (TooManySmallIOOps) is true at every I/O call on its stacks and would bury
// the rest; --json and --shg list every one.
inline constexpr std::size_t findings_in_list = 8;

// The end of the text report over one process: the findings ranked, or what the data showed
// (folded_findings_text reads the same there; tests/pc_finding_folding_test.cpp holds it).
std::string findings_text(const std::vector<finding_info>& findings,
                          const std::vector<pc::finding>& open);

// The folded findings, ranked (pc/finding_folding.hpp): each "N. text", then each outlier on
// a line of its own ("     process job{42}: …", at most pc::outliers_in_line, then "… and K
// more processes"), then the open nodes as findings_text prints them. With one process this
// is findings_text's report, byte for byte.
std::string folded_findings_text(const std::vector<pc::folded_finding>& folded,
                                 const std::vector<pc::finding>& open);

// [{"rank","hypothesis","focus","low","high","since","processes","of","pids","outliers":
// [{"pid","process","text","host"}],"text","hosts"}]: "focus" is common to the members
// ("/SyncObject/Mutex" where their objects differ); "text" the one-line form, outliers
// included where shown (pc::outliers_shown); "outliers" lists every one; "hosts" holds each
// process's host as "pids" its pid (two hosts may run the same pid), null where not known.
report_json folded_json(const std::vector<pc::folded_finding>& folded);

}  // namespace perfdm
