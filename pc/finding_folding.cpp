#include "pc/finding_folding.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

namespace perfdm::pc {

namespace {

// "/Machine/h/p{1}/t{2}" → {"Machine", "h", "p{1}", "t{2}"}.
std::vector<std::string> components(const std::string& name) {
  std::vector<std::string> out;
  std::size_t at = 1;
  while (at <= name.size() && name.size() > 1) {
    auto slash = name.find('/', at);
    if (slash == std::string::npos) slash = name.size();
    out.push_back(name.substr(at, slash - at));
    at = slash + 1;
  }
  return out;
}

bool names_process(const finding& f) {
  return f.pid != 0 && components(f.node.machine).size() >= 3;
}

// "/SyncObject/Mutex/0x55…" → "/SyncObject/Mutex": the kind of object, the same in every
// process where the address is not.
std::string sync_kind(const std::string& s) {
  auto c = components(s);
  if (c.size() <= 2) return s;
  return "/" + c[0] + "/" + c[1];
}

// "/File/pipe:[1499658]" → "/File/pipe:[…]": a pipe's or a socket's inode number is, like a
// lock's address, one process's instance of the same thing. Other files stay themselves.
std::string file_kind(const std::string& file) {
  for (const char* kind : {"/File/pipe:[", "/File/socket:[", "/File/anon_inode:["}) {
    std::string k = kind;
    if (file.size() > k.size() && file.compare(0, k.size(), k) == 0 && file.back() == ']')
      return k + "\u2026]";
  }
  return file;
}

std::string fold_key(const finding& f) {
  auto& n = f.node;
  return n.hypothesis + '\n' + n.code + '\n' + sync_kind(n.syncobject) + '\n' + file_kind(n.file);
}

// The longest common prefix, component by component ("/Machine/h" for two processes on h).
std::string common_prefix(const std::vector<std::string>& names) {
  if (names.empty()) return "";
  auto common = components(names.front());
  for (auto& n : names) {
    auto c = components(n);
    std::size_t k = 0;
    while (k < common.size() && k < c.size() && common[k] == c[k]) ++k;
    common.resize(k);
  }
  std::string out;
  for (auto& c : common) out += "/" + c;
  return out;
}

// What a person calls each process: "job{42}", or "host:job{42}" when they span hosts.
std::map<int, std::string> process_labels(const std::vector<finding>& ranked,
                                          const std::vector<searched_process>& processes) {
  std::map<int, std::pair<std::string, std::string>> where;  // pid: host, process component
  for (auto& p : processes) {
    auto c = components(p.machine);
    if (c.size() >= 3)
      where[p.pid] = {c[1], c[2]};
    else if (!p.name.empty())
      where.emplace(p.pid,
                    std::make_pair(std::string(), p.name + "{" + std::to_string(p.pid) + "}"));
  }
  for (auto& f : ranked)
    if (names_process(f)) {
      auto c = components(f.node.machine);
      auto& w = where[f.pid];
      if (w.second.empty() || w.first.empty()) w = {c[1], c[2]};
    }
  std::set<std::string> hosts;
  for (auto& [pid, w] : where)
    if (!w.first.empty()) hosts.insert(w.first);
  std::map<int, std::string> out;
  for (auto& [pid, w] : where) {
    auto label = w.second.empty() ? "pid " + std::to_string(pid) : w.second;
    out[pid] = hosts.size() > 1 && !w.first.empty() ? w.first + ":" + label : label;
  }
  for (auto& p : processes)
    if (!out.count(p.pid)) out[p.pid] = "pid " + std::to_string(p.pid);
  return out;
}

// "{4711}" at the end of a component: 4711 (0 when there is none).
int id_in_braces(const std::string& c) {
  auto open = c.rfind('{');
  if (open == std::string::npos || c.empty() || c.back() != '}') return 0;
  return std::atoi(c.c_str() + open + 1);
}

// `part` is `whole` or below it.
bool at_or_below(const std::string& part, const std::string& whole) {
  return part == whole || (part.size() > whole.size() &&
                           part.compare(0, whole.size(), whole) == 0 && part[whole.size()] == '/');
}

// For an outlier without a finding: the group's hypothesis in its process, at the group's
// code or the deepest code above it; concluded false before open, the process before a
// thread (an open node: a process the search had not decided on when it ended).
// `host`, when not empty, holds this process alone among those searched (a daemon's node of a
// cluster): a node at /Machine/<host> then speaks of the process too.
std::string shown_there(const folded_finding& g, int pid, const std::string& host,
                        const std::vector<node_view>& nodes) {
  const node_view* best = nullptr;
  auto rank = [](const node_view& n) {
    return std::make_tuple(n.code.size(), n.state == "false", -static_cast<int>(n.machine.size()));
  };
  for (auto& n : nodes) {
    if ((n.state != "false" && n.state != "unknown") ||
        n.hypothesis != g.members.front().node.hypothesis)
      continue;
    auto c = components(n.machine);
    bool its_process = c.size() >= 3 && id_in_braces(c[2]) == pid;
    bool its_host = !host.empty() && c.size() == 2 && c[1] == host;
    if ((!its_process && !its_host) || !at_or_below(g.code, n.code)) continue;
    if (!best || rank(n) > rank(*best)) best = &n;
  }
  if (!best) return "";
  auto f = finding_of(*best, nodes);
  f.node.since = -1;
  f.inconclusive = false;
  return finding_text(f) +
         (best->state == "false" ? " \u2014 concluded false" : " \u2014 not concluded");
}

folded_finding single(const finding& f, std::size_t of) {
  folded_finding e;
  e.members = {f};
  if (names_process(f)) e.pids = {f.pid};
  e.of = of;
  auto& n = f.node;
  e.code = n.code;
  e.machine = n.machine;
  e.syncobject = n.syncobject;
  e.file = n.file;
  e.low = e.high = n.value;
  e.since = n.since;
  e.text = e.line = f.text;
  return e;
}

folded_finding fold(const std::vector<finding>& members, const std::set<int>& pids,
                    const std::set<int>& all, const std::vector<finding>& ranked,
                    const std::map<int, std::string>& labels,
                    const std::map<int, std::string>& sole_host,
                    const std::vector<node_view>& nodes) {
  folded_finding e;
  e.members = members;
  e.pids.assign(pids.begin(), pids.end());
  e.of = all.size();
  e.folded = true;
  auto& first = members.front().node;
  e.code = first.code;
  e.file = first.file;
  std::vector<std::string> machines;
  e.syncobject = first.syncobject;
  e.low = e.high = first.value;
  for (auto& m : members) {
    machines.push_back(m.node.machine);
    if (m.node.syncobject != first.syncobject) e.syncobject = sync_kind(first.syncobject);
    if (m.node.file != first.file) e.file = file_kind(first.file);
    e.low = std::min(e.low, m.node.value);
    e.high = std::max(e.high, m.node.value);
    if (m.node.since >= 0 && (e.since < 0 || m.node.since < e.since)) e.since = m.node.since;
  }
  e.machine = common_prefix(machines);
  auto shown = members.front();
  shown.node.syncobject = e.syncobject;
  shown.node.file = e.file;
  e.text = first.hypothesis + " " + value_text(first.hypothesis, e.low, e.high) +
           where_text(shown) + " \u2014 in " + std::to_string(pids.size()) + " of " +
           std::to_string(e.of) + " processes";
  if (e.since >= 0) {
    char buf[48];
    std::snprintf(buf, sizeof buf, " \u2014 since %.1f s", e.since);
    e.text += buf;
  }
  e.line = e.text;
  for (auto pid : all) {
    if (pids.count(pid)) continue;
    outlier o;
    o.pid = pid;
    auto l = labels.find(pid);
    o.process = l != labels.end() ? l->second : "pid " + std::to_string(pid);
    for (auto& f : ranked)
      if (f.pid == pid && names_process(f)) {
        o.text = f.text;
        break;
      }
    if (o.text.empty()) {
      auto h = sole_host.find(pid);
      o.text = shown_there(e, pid, h == sole_host.end() ? std::string() : h->second, nodes);
    }
    if (o.text.empty()) o.text = "no finding";
    if (outliers_shown(e) && e.outliers.size() < outliers_in_line)
      e.line += "; process " + o.process + ": " + o.text;
    e.outliers.push_back(o);
  }
  if (outliers_shown(e) && e.outliers.size() > outliers_in_line)
    e.line +=
        "; \u2026 and " + std::to_string(e.outliers.size() - outliers_in_line) + " more processes";
  return e;
}

}  // namespace

bool outliers_shown(const folded_finding& f) {
  return f.folded && 2 * f.pids.size() > f.of;
}

std::vector<folded_finding> fold_findings(const std::vector<finding>& ranked,
                                          const std::vector<searched_process>& processes,
                                          const std::vector<node_view>& nodes) {
  std::set<int> all;
  for (auto& p : processes)
    if (p.pid > 0) all.insert(p.pid);
  std::map<std::string, std::vector<std::size_t>> groups;  // key: members, by rank
  for (std::size_t i = 0; i < ranked.size(); ++i)
    if (names_process(ranked[i])) {
      all.insert(ranked[i].pid);
      groups[fold_key(ranked[i])].push_back(i);
    }
  auto labels = process_labels(ranked, processes);
  // The hosts that hold one searched process each (a cluster of one process per node).
  std::map<std::string, std::vector<int>> on_host;
  for (auto& p : processes)
    if (auto c = components(p.machine); c.size() >= 3) on_host[c[1]].push_back(p.pid);
  std::map<int, std::string> sole_host;
  for (auto& [host, pids] : on_host)
    if (pids.size() == 1) sole_host[pids.front()] = host;
  std::vector<folded_finding> out;
  std::set<std::string> done;
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    auto& f = ranked[i];
    if (!names_process(f)) {
      out.push_back(single(f, all.size()));
      continue;
    }
    auto key = fold_key(f);
    auto& group = groups[key];
    std::set<int> pids;
    for (auto k : group) pids.insert(ranked[k].pid);
    if (pids.size() < 2) {
      out.push_back(single(f, all.size()));
      continue;
    }
    if (!done.insert(key).second) continue;  // folded at its best member's rank
    std::vector<finding> members;
    for (auto k : group) members.push_back(ranked[k]);
    out.push_back(fold(members, pids, all, ranked, labels, sole_host, nodes));
  }
  return out;
}

}  // namespace perfdm::pc
