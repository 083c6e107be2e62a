#include "cli/search_report.hpp"

#include <cmath>
#include <map>

#include "cli/shg_print.hpp"

namespace perfdm {

namespace {

std::string focus_json(const std::string& code, const std::string& machine,
                       const std::string& syncobject, const std::string& file) {
  return "{\"code\":" + shg_json_string(code) + ",\"machine\":" + shg_json_string(machine) +
         ",\"syncobject\":" + shg_json_string(syncobject) +
         ",\"file\":" + (file.empty() || file == "/File" ? std::string("null") : shg_json_string(file)) +
         "}";  // null: the focus names no file
}

// A process's host: null where it is not known (a process watched by pid alone).
std::string host_json(const std::string& host) {
  return host.empty() ? "null" : shg_json_string(host);
}

}  // namespace

pc::node_view node_view_of(const shg_node_info& n) {
  pc::node_view v;
  v.id = n.id;
  if (n.has_parent) v.parents.push_back(n.parent);
  v.hypothesis = n.hypothesis;
  v.code = n.code;
  v.machine = n.machine;
  v.syncobject = n.syncobject;
  v.file = n.file;
  v.state = n.state;
  v.active = n.active;
  v.value = n.value;
  v.threshold = n.threshold;
  v.since = n.since;
  return v;
}

void finding_watch::update(const shg_node_info& n) {
  nodes_[n.id] = n;
}

std::vector<pc::node_view> finding_watch::nodes() const {
  std::vector<pc::node_view> out;
  for (auto& [id, n] : nodes_) out.push_back(node_view_of(n));
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

std::string findings_json(const std::vector<finding_info>& findings) {
  std::string out = "[";
  for (auto& f : findings) {
    if (out.size() > 1) out += ',';
    out += "{\"rank\":" + std::to_string(f.rank) + ",\"hypothesis\":" + shg_json_string(f.hypothesis) +
           ",\"focus\":" + focus_json(f.code, f.machine, f.syncobject, f.file) +
           ",\"value\":" + shg_json_number(f.value) + ",\"threshold\":" + shg_json_number(f.threshold) +
           ",\"since\":" + (f.since >= 0 ? shg_json_number(f.since) : "null") +
           ",\"pid\":" + (f.pid ? std::to_string(f.pid) : "null") +
           ",\"tid\":" + (f.tid ? std::to_string(f.tid) : "null") +
           ",\"function\":" + (f.function.empty() ? "null" : shg_json_string(f.function)) +
           ",\"text\":" + shg_json_string(f.text) + "}";
  }
  return out + "]";
}

std::string inconclusive_json(const std::vector<pc::finding>& open) {
  std::string out = "[";
  for (auto& f : open) {
    auto& n = f.node;
    if (out.size() > 1) out += ',';
    out += "{\"hypothesis\":" + shg_json_string(n.hypothesis) +
           ",\"focus\":" + focus_json(n.code, n.machine, n.syncobject, n.file) +
           ",\"value\":" + shg_json_number(n.value) + ",\"threshold\":" + shg_json_number(n.threshold) +
           ",\"low\":" + (std::isnan(n.low) ? "null" : shg_json_number(n.low)) +
           ",\"high\":" + (std::isnan(n.high) ? "null" : shg_json_number(n.high)) +
           ",\"samples\":" + (n.samples >= 0 ? std::to_string(n.samples) : "null") +
           ",\"text\":" + shg_json_string(f.text) + "}";
  }
  return out + "]";
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

std::vector<pc::finding> pc_findings(const std::vector<finding_info>& findings,
                                     const std::vector<pc::node_view>& nodes) {
  std::map<std::uint64_t, const pc::node_view*> by_id;
  for (auto& n : nodes) by_id.emplace(n.id, &n);
  std::vector<pc::finding> out;
  for (auto& i : findings) {
    pc::finding f;
    auto n = by_id.find(i.node);
    if (n != by_id.end()) {
      f = pc::finding_of(*n->second, nodes);
    } else {  // a node the graph did not hold: what FINDINGS said of it
      f.node.id = i.node;
      f.node.hypothesis = i.hypothesis;
      f.node.code = i.code;
      f.node.machine = i.machine;
      f.node.syncobject = i.syncobject;
      f.node.file = i.file;
      f.node.state = "true";
      f.function = i.function;
    }
    f.node.value = i.value;
    f.node.threshold = i.threshold;
    f.node.since = i.since;
    f.inconclusive = false;
    f.pid = i.pid;
    f.tid = i.tid;
    pc::machine_name m;
    if (pc::parse_machine_name(i.machine, m)) f.host = m.host;
    f.text = i.text;
    out.push_back(std::move(f));
  }
  return out;
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

std::string folded_json(const std::vector<pc::folded_finding>& folded) {
  std::string out = "[";
  std::size_t rank = 0;
  for (auto& f : folded) {
    if (out.size() > 1) out += ',';
    std::string pids, hosts, outliers;
    for (auto p : f.pids) pids += (pids.empty() ? "" : ",") + std::to_string(p);
    for (auto& h : f.hosts) hosts += (hosts.empty() ? "" : ",") + host_json(h);
    for (auto& o : f.outliers)
      outliers += std::string(outliers.empty() ? "" : ",") + "{\"pid\":" + std::to_string(o.pid) +
                  ",\"process\":" + shg_json_string(o.process) + ",\"text\":" + shg_json_string(o.text) +
                  ",\"host\":" + host_json(o.host) + "}";
    out += "{\"rank\":" + std::to_string(++rank) +
           ",\"hypothesis\":" + shg_json_string(f.members.front().node.hypothesis) +
           ",\"focus\":" + focus_json(f.code, f.machine, f.syncobject, f.file) +
           ",\"low\":" + shg_json_number(f.low) + ",\"high\":" + shg_json_number(f.high) +
           ",\"since\":" + (f.since >= 0 ? shg_json_number(f.since) : "null") +
           ",\"processes\":" + std::to_string(f.pids.size()) + ",\"of\":" + std::to_string(f.of) +
           ",\"pids\":[" + pids + "],\"outliers\":[" + outliers + "],\"text\":" + shg_json_string(f.line) +
           ",\"hosts\":[" + hosts + "],\"alike\":" + std::to_string(f.alike) + "}";
  }
  return out + "]";
}

}  // namespace perfdm
