#include "cli/search_report.hpp"

#include <cmath>

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

std::string findings_text(const std::vector<finding_info>& findings,
                          const std::vector<pc::finding>& open) {
  std::string out;
  if (!findings.empty()) {
    out += "findings, ranked:\n";
    for (auto& f : findings) out += "  " + std::to_string(f.rank) + ". " + f.text + "\n";
  } else {
    out += "no finding: no hypothesis concluded true\n";
  }
  if (!open.empty()) {
    out += findings.empty() ? "what the data showed (not concluded):\n"
                            : "not concluded when the search ended:\n";
    for (auto& f : open) out += "  " + f.text + "\n";
  }
  return out;
}

}  // namespace perfdm
