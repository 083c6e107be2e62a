#include "pc/search_wire.hpp"

#include <algorithm>

#include "dm/histogram.hpp"
#include "messages/time.hpp"
#include "pc/machine_name.hpp"

namespace perfdm::pc {

shg_node_info node_info(std::uint64_t search, const shg_node& n) {
  shg_node_info i;
  i.search = search;
  i.id = n.id;
  if (auto p = n.parent()) {
    i.has_parent = true;
    i.parent = *p;
  }
  i.hypothesis = info(n.hyp).name;
  i.code = n.focus[hierarchy::code];
  i.machine = n.focus[hierarchy::machine];
  i.syncobject = n.focus[hierarchy::syncobject];
  i.file = n.focus[hierarchy::file];
  i.state = state_name(n.state);
  i.active = n.active;
  i.value = n.value;
  i.threshold = n.threshold;
  i.since = n.since ? *n.since : -1;
  i.score = n.score;
  i.threads = n.threads;
  i.blamed = n.blamed;
  i.idle = n.idle;
  return i;
}

node_view view_of(const shg_node_info& n) {
  node_view v;
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
  v.score = n.score;
  v.threads = n.threads;
  v.blamed = n.blamed;
  v.idle = n.idle;
  return v;
}

std::vector<node_view> views_of(const search_graph& g) {
  std::vector<node_view> views;
  for (auto& n : g.nodes()) {
    auto v = view_of(node_info(0, n));
    v.parents.clear();
    for (auto& e : n.parents) v.parents.push_back(e.from);
    views.push_back(std::move(v));
  }
  return views;
}

std::vector<finding_info> finding_infos(std::uint64_t search, const search_graph& g) {
  std::vector<finding_info> out;
  std::uint64_t rank = 0;
  for (auto& f : findings(views_of(g))) {
    finding_info i;
    i.rank = ++rank;
    i.search = search;
    i.node = f.node.id;
    i.hypothesis = f.node.hypothesis;
    i.code = f.node.code;
    i.machine = f.node.machine;
    i.syncobject = f.node.syncobject;
    // FILE only when the finding names a file (the root is no answer).
    i.file = f.node.file == hierarchy_root(hierarchy::file) ? "" : f.node.file;
    i.value = f.node.value;
    i.threshold = f.node.threshold;
    i.since = f.node.since;
    i.score = f.node.score;
    i.pid = f.pid;
    i.tid = f.tid;
    i.function = f.function;
    i.text = f.text;
    out.push_back(std::move(i));
  }
  return out;
}

std::vector<finding> findings_of(const std::vector<finding_info>& infos,
                                 const std::vector<node_view>& nodes) {
  std::map<std::uint64_t, const node_view*> by_id;
  for (auto& n : nodes) by_id.emplace(n.id, &n);
  std::vector<finding> out;
  for (auto& i : infos) {
    finding f;
    auto n = by_id.find(i.node);
    if (n != by_id.end()) {
      f = finding_of(*n->second, nodes);
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
    f.node.score = i.score;
    f.score = i.score;
    f.inconclusive = false;
    f.pid = i.pid;
    f.tid = i.tid;
    machine_name m;
    if (parse_machine_name(i.machine, m)) f.host = m.host;
    f.text = i.text;
    out.push_back(std::move(f));
  }
  return out;
}

process_evidence evidence_of(const evidence_counts& c) {
  process_evidence e;
  e.ticks = c.ticks;
  e.hits = {c.runs, c.syncs, c.ios};
  e.most = {c.runs_most, c.syncs_most, c.ios_most};
  e.io_ops = c.io_ops;
  e.io_bytes = c.io_bytes;
  e.first = c.first;
  e.last = c.last;
  e.share = {c.runs_share, c.syncs_share, c.ios_share};
  e.saving = {c.runs_saving, c.syncs_saving, c.ios_saving};
  e.blamed = {c.runs_blamed, 0, c.ios_blamed};
  e.idle = c.idle;
  return e;
}

evidence_focus evidence_at(const focus& f) {
  return evidence_focus{
      f[hierarchy::code], f[hierarchy::machine], f[hierarchy::syncobject], f[hierarchy::file], {}};
}

focus focus_of(const evidence_focus& at) {
  focus f;
  f[hierarchy::code] = at.code;
  f[hierarchy::machine] = at.machine;
  f[hierarchy::syncobject] = at.syncobject;
  f[hierarchy::file] = at.file;
  return f;
}

std::map<focus, std::vector<process_evidence>> evidence_by_focus(const evidence_note& note) {
  std::map<focus, std::vector<process_evidence>> by_focus;
  for (auto& at : note.foci) {
    auto& v = by_focus[focus_of(at)];
    for (auto& p : at.processes) v.push_back(evidence_of(p));
  }
  return by_focus;
}

evidence_note evidence_note_of(std::uint64_t search, double time, const std::vector<focus>& foci,
                               const window_answers& answers, const std::string& own_host) {
  evidence_note note{search, time, 0, {}, {}};
  for (std::size_t i = 0; i < foci.size(); ++i) {
    auto ef = evidence_at(foci[i]);
    for (auto& p : answers.processes)
      if (i < p.counts.size() && p.counts[i].ticks > 0) {
        ef.processes.push_back(p.counts[i]);
        ef.processes.back().host = p.host == own_host ? "" : p.host;
        note.time = std::max(note.time, p.counts[i].last);
      }
    note.foci.push_back(std::move(ef));
  }
  for (auto& p : answers.processes) note.evicted += p.evicted_ticks;
  return note;
}

bucket_span span_of_bucket(std::uint64_t bucket, double width, double origin) {
  if (width <= 0) width = to_seconds(base_bucket_width);  // until the histogram says otherwise
  double begin = origin + static_cast<double>(bucket) * width;
  return {begin, begin + width};
}

}  // namespace perfdm::pc
