#include "cli/search_report.hpp"

#include <cmath>
#include <map>

#include "cli/shg_print.hpp"
#include "pc/search_wire.hpp"

namespace perfdm {

namespace {

report_json focus_json(const std::string& code, const std::string& machine,
                       const std::string& syncobject, const std::string& file) {
  // null: the focus names no file
  return {{"code", code},
          {"machine", machine},
          {"syncobject", syncobject},
          {"file", file == "/File" ? report_json(nullptr) : report_text(file)}};
}

}  // namespace

void finding_watch::update(const shg_node_info& n) {
  nodes_[n.id] = n;
}

std::vector<pc::node_view> finding_watch::nodes() const {
  std::vector<pc::node_view> out;
  for (auto& [id, n] : nodes_) out.push_back(pc::view_of(n));
  return out;
}

std::vector<pc::finding> finding_watch::take_new() {
  auto views = nodes();
  std::vector<pc::finding> out;
  for (auto& f : pc::settled_findings(views))
    if (seen_true_.count(f.node.id) && announced_.insert(f.node.id).second) out.push_back(f);
  seen_true_.clear();
  for (auto& v : views)
    if (v.state == "true") seen_true_.insert(v.id);
  return out;
}

report_json findings_json(const std::vector<finding_info>& findings) {
  auto out = report_json::array();
  for (auto& f : findings)
    out.push_back({{"rank", f.rank},
                   {"hypothesis", f.hypothesis},
                   {"focus", focus_json(f.code, f.machine, f.syncobject, f.file)},
                   {"value", report_number(f.value)},
                   {"threshold", report_number(f.threshold)},
                   {"since", f.since >= 0 ? report_number(f.since) : report_json(nullptr)},
                   {"pid", f.pid ? report_json(f.pid) : report_json(nullptr)},
                   {"tid", f.tid ? report_json(f.tid) : report_json(nullptr)},
                   {"function", report_text(f.function)},
                   {"text", f.text},
                   {"score", report_number(f.score)}});
  return out;
}

report_json inconclusive_json(const std::vector<pc::finding>& open) {
  auto out = report_json::array();
  for (auto& f : open) {
    auto& n = f.node;
    out.push_back({{"hypothesis", n.hypothesis},
                   {"focus", focus_json(n.code, n.machine, n.syncobject, n.file)},
                   {"value", report_number(n.value)},
                   {"threshold", report_number(n.threshold)},
                   {"low", report_number(n.low)},
                   {"high", report_number(n.high)},
                   {"samples", n.samples >= 0 ? report_json(n.samples) : report_json(nullptr)},
                   {"text", f.text},
                   {"score", report_number(n.score)}});
  }
  return out;
}

namespace {

// "  … and K more findings (…)\n" past findings_in_list, "" otherwise.
std::string more_findings(std::size_t count) {
  if (count <= findings_in_list) return "";
  return "  \u2026 and " + std::to_string(count - findings_in_list) +
         " more findings (--json or --shg lists every one)\n";
}

// The open nodes after the findings (or, with none, as what the data showed).
std::string open_nodes_text(const std::vector<pc::finding>& open, bool any_finding) {
  if (open.empty()) return "";
  std::string out = any_finding ? "not concluded when the search ended:\n"
                                : "what the data showed (not concluded):\n";
  for (auto& f : open) out += "  " + f.text + "\n";
  return out;
}

}  // namespace

std::string findings_text(const std::vector<finding_info>& findings,
                          const std::vector<pc::finding>& open) {
  std::string out;
  if (!findings.empty()) {
    out += "findings, ranked:\n";
    for (std::size_t i = 0; i < findings.size() && i < findings_in_list; ++i)
      out += "  " + std::to_string(findings[i].rank) + ". " + findings[i].text + "\n";
    out += more_findings(findings.size());
  } else {
    out += "no finding: no hypothesis concluded true\n";
  }
  return out + open_nodes_text(open, !findings.empty());
}

std::string folded_findings_text(const std::vector<pc::folded_finding>& folded,
                                 const std::vector<pc::finding>& open) {
  std::string out;
  if (!folded.empty()) {
    out += "findings, ranked:\n";
    std::size_t rank = 0;
    for (auto& f : folded) {
      if (rank == findings_in_list) break;
      out += "  " + std::to_string(++rank) + ". " + f.text + "\n";
      std::size_t shown = 0;
      for (auto& o : f.outliers) {
        if (!pc::outliers_shown(f)) break;
        if (++shown > pc::outliers_in_line) {
          out += "     \u2026 and " + std::to_string(f.outliers.size() - pc::outliers_in_line) +
                 " more processes\n";
          break;
        }
        out += "     process " + o.process + ": " + o.text + "\n";
      }
    }
    out += more_findings(folded.size());
  } else {
    out += "no finding: no hypothesis concluded true\n";
  }
  return out + open_nodes_text(open, !folded.empty());
}

report_json folded_json(const std::vector<pc::folded_finding>& folded) {
  auto out = report_json::array();
  std::size_t rank = 0;
  for (auto& f : folded) {
    auto hosts = report_json::array(), outliers = report_json::array();
    for (auto& h : f.hosts) hosts.push_back(report_text(h));  // null: not known
    for (auto& o : f.outliers)
      outliers.push_back({{"pid", o.pid},
                          {"process", o.process},
                          {"text", o.text},
                          {"host", report_text(o.host)}});
    out.push_back({{"rank", ++rank},
                   {"hypothesis", f.members.front().node.hypothesis},
                   {"focus", focus_json(f.code, f.machine, f.syncobject, f.file)},
                   {"low", report_number(f.low)},
                   {"high", report_number(f.high)},
                   {"since", f.since >= 0 ? report_number(f.since) : report_json(nullptr)},
                   {"processes", f.pids.size()},
                   {"of", f.of},
                   {"pids", f.pids},
                   {"outliers", std::move(outliers)},
                   {"text", f.line},
                   {"hosts", std::move(hosts)},
                   {"alike", f.alike}});
  }
  return out;
}

}  // namespace perfdm
