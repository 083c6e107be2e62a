#include "pc/finding_folding.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "pc/rank_imbalance.hpp"
#include "proc/mpi_job.hpp"

namespace perfdm::pc {

namespace {

bool names_process(const finding& f) {
  machine_name m;
  return f.pid != 0 && parse_machine_name(f.node.machine, m) && m.depth >= 2;
}

// The process a finding names: the host of its focus and its pid.
process_key key_of(const finding& f) {
  machine_name m;
  parse_machine_name(f.node.machine, m);
  return {m.host, f.pid};
}

// "/SyncObject/Mutex/0x55…" → "/SyncObject/Mutex": the kind of object, the same in every
// process where the address is not.
std::string sync_kind(const std::string& s) {
  auto c = resource_components(s);
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

// All of a fold key but the code: what must be the same for a finding to be alike so far.
std::string kind_key(const finding& f) {
  auto& n = f.node;
  return n.hypothesis + '\n' + sync_kind(n.syncobject) + '\n' + file_kind(n.file);
}

std::string fold_key(const finding& f) { return kind_key(f) + '\n' + f.node.code; }

// The longest common prefix, component by component ("/Machine/h" for two processes on h).
std::string common_prefix(const std::vector<std::string>& names) {
  if (names.empty()) return "";
  auto common = resource_components(names.front());
  for (auto& n : names) {
    auto c = resource_components(n);
    std::size_t k = 0;
    while (k < common.size() && k < c.size() && common[k] == c[k]) ++k;
    common.resize(k);
  }
  std::string out;
  for (auto& c : common) out += "/" + c;
  return out;
}

// Every process, once by (host, pid): those searched and those the findings name, each with
// its /Machine component ("job{42}"; "" when not known). A searched process without a host is
// the process of its pid a finding names, where one does (a front end watched it by pid).
std::map<process_key, std::string> processes_of(const std::vector<finding>& ranked,
                                                const std::vector<searched_process>& processes) {
  std::map<process_key, std::string> out;
  std::vector<std::pair<int, std::string>> hostless;
  for (auto& p : processes) {
    if (p.pid <= 0) continue;
    machine_name m;
    bool named = parse_machine_name(p.machine, m) && m.depth >= 2;
    auto host = !p.host.empty() ? p.host : named ? m.host : std::string();
    auto component = named ? m.process
                     : p.name.empty() ? std::string()
                                      : p.name + "{" + std::to_string(p.pid) + "}";
    if (host.empty())
      hostless.emplace_back(p.pid, component);
    else if (auto& c = out[{host, p.pid}]; c.empty())
      c = component;
  }
  for (auto& f : ranked)
    if (names_process(f)) {
      machine_name m;
      parse_machine_name(f.node.machine, m);
      if (auto& c = out[key_of(f)]; c.empty()) c = m.process;
    }
  for (auto& [pid, component] : hostless) {
    bool known = false;
    for (auto& [key, c] : out) known = known || key.pid == pid;
    if (!known) out[{"", pid}] = component;
  }
  return out;
}

// What a person calls each process: "job{42}", or "host:job{42}" when they span hosts.
std::map<process_key, std::string> process_labels(const std::map<process_key, std::string>& all) {
  std::set<std::string> hosts;
  for (auto& [key, c] : all)
    if (!key.host.empty()) hosts.insert(key.host);
  std::map<process_key, std::string> out;
  for (auto& [key, c] : all)
    out[key] = with_host(key.host, c.empty() ? "pid " + std::to_string(key.pid) : c,
                         hosts.size() > 1);
  return out;
}

// Whether every process searched is an MPI rank ("app.rank2{4242}", proc/mpi_job.hpp): the
// folded line then counts ranks.
bool all_ranks(const std::map<process_key, std::string>& labels) {
  return !labels.empty() && std::all_of(labels.begin(), labels.end(), [](auto& l) {
    auto brace = l.second.rfind('{');
    return proc::rank_in_process_name(brace == std::string::npos ? l.second
                                                                 : l.second.substr(0, brace))
        .has_value();
  });
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
std::string shown_there(const folded_finding& g, const process_key& process,
                        const std::string& host, const std::vector<node_view>& nodes) {
  const node_view* best = nullptr;
  auto rank = [](const node_view& n) {
    return std::make_tuple(n.code.size(), n.state == "false", -static_cast<int>(n.machine.size()));
  };
  for (auto& n : nodes) {
    if ((n.state != "false" && n.state != "unknown") ||
        n.hypothesis != g.members.front().node.hypothesis)
      continue;
    machine_name m;
    if (!parse_machine_name(n.machine, m)) continue;
    bool its_process = m.depth >= 2 && m.pid == process.pid &&
                       (process.host.empty() || m.host == process.host);
    bool its_host = !host.empty() && m.depth == 1 && m.host == host;
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

// ---- alike so far

using node_index = std::map<std::uint64_t, const node_view*>;

// The codes of `n`'s ancestors of its hypothesis (every parent known), other than its own.
std::set<std::string> codes_above(const node_view& n, const node_index& by_id) {
  std::set<std::string> out;
  std::vector<std::uint64_t> todo(n.parents.begin(), n.parents.end());
  std::set<std::uint64_t> seen;
  while (!todo.empty()) {
    auto id = todo.back();
    todo.pop_back();
    auto i = by_id.find(id);
    if (!seen.insert(id).second || i == by_id.end() || i->second->hypothesis != n.hypothesis)
      continue;
    if (i->second->code != n.code) out.insert(i->second->code);
    todo.insert(todo.end(), i->second->parents.begin(), i->second->parents.end());
  }
  return out;
}

// A group's kind, code, and the codes on its members' paths above it.
struct group_path {
  std::string kind, code;
  std::set<std::string> above;
};

// Whether, in `process`, nothing on `deeper`'s path (its code and those above it, `code`
// aside) was concluded false. (A call path is not a path of names: work, below main on it,
// is /Code/job/work beside /Code/job/main.)
bool alike_so_far(const process_key& process, const std::string& hypothesis,
                  const std::string& code, const group_path& deeper,
                  const std::vector<node_view>& nodes) {
  for (auto& n : nodes) {
    if (n.state != "false" || n.hypothesis != hypothesis || n.code == code ||
        (n.code != deeper.code && !deeper.above.count(n.code)))
      continue;
    machine_name m;
    if (parse_machine_name(n.machine, m) && m.depth >= 2 && m.pid == process.pid &&
        (process.host.empty() || m.host == process.host))
      return false;
  }
  return true;
}

// "4 in work, 30 in main, 25 at the whole process": deepest on the call path first (`depth`:
// how many codes are above each on it).
std::string alike_text(const std::map<std::string, std::size_t>& by_code,
                       const std::map<std::string, std::size_t>& depth) {
  std::vector<std::pair<std::string, std::size_t>> order(by_code.begin(), by_code.end());
  std::stable_sort(order.begin(), order.end(), [&](auto& a, auto& b) {
    return depth.at(a.first) > depth.at(b.first);
  });
  std::string out;
  for (auto& [code, n] : order) {
    auto c = resource_components(code);
    out += (out.empty() ? "" : ", ") + std::to_string(n) +
           (c.size() <= 1 ? " at the whole process" : " in " + c.back());
  }
  return out;
}

void set_processes(folded_finding& e, const std::set<process_key>& keys) {
  for (auto& k : keys) {
    e.pids.push_back(k.pid);
    e.hosts.push_back(k.host);
  }
}

folded_finding single(const finding& f, std::size_t of) {
  folded_finding e;
  e.members = {f};
  if (names_process(f)) set_processes(e, {key_of(f)});
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

folded_finding fold(const std::vector<finding>& members, const std::set<process_key>& in_group,
                    const std::map<process_key, std::string>& labels,
                    const std::vector<finding>& ranked,
                    const std::map<process_key, std::string>& sole_host,
                    const std::vector<node_view>& nodes, const std::set<process_key>& alike,
                    const std::map<std::string, std::size_t>& alike_by_code,
                    const std::map<std::string, std::size_t>& path_depth) {
  folded_finding e;
  e.members = members;
  set_processes(e, in_group);
  e.of = labels.size();
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
           where_text(shown) + " \u2014 in " + std::to_string(in_group.size()) + " of " +
           std::to_string(e.of) + (all_ranks(labels) ? " ranks" : " processes");
  e.alike = alike.size();
  if (!alike.empty())
    e.text += ", alike so far in " + std::to_string(alike.size()) + " more (" +
              alike_text(alike_by_code, path_depth) + ")";
  if (e.since >= 0) {
    char buf[48];
    std::snprintf(buf, sizeof buf, " \u2014 since %.1f s", e.since);
    e.text += buf;
  }
  // A wait blamed on another rank's work says so (pc/rank_imbalance.hpp).
  const std::string caused = " \u2014 caused by ";
  if (auto at = members.front().text.find(caused); at != std::string::npos)
    e.text += members.front().text.substr(at);
  e.line = e.text;
  for (auto& [key, label] : labels) {
    if (in_group.count(key) || alike.count(key)) continue;
    outlier o;
    o.pid = key.pid;
    o.host = key.host;
    o.process = label;
    for (auto& f : ranked)
      if (names_process(f) && key_of(f) == key) {
        o.text = f.text;
        break;
      }
    if (o.text.empty()) {
      auto h = sole_host.find(key);
      o.text = shown_there(e, key, h == sole_host.end() ? std::string() : h->second, nodes);
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
  return f.folded && 2 * (f.pids.size() + f.alike) > f.of;
}

std::vector<folded_finding> fold_findings(const std::vector<finding>& ranked,
                                          const std::vector<searched_process>& processes,
                                          const std::vector<node_view>& nodes) {
  auto labels = process_labels(processes_of(ranked, processes));
  std::map<std::string, std::vector<std::size_t>> groups;  // key: members, by rank
  // An MPI job's imbalance finding is one of its own (pc/rank_imbalance.hpp): the late
  // rank's function is not folded with the same function in ranks that wait.
  auto folds = [](const finding& f) { return names_process(f) && !imbalance_finding(f); };
  for (std::size_t i = 0; i < ranked.size(); ++i)
    if (folds(ranked[i])) groups[fold_key(ranked[i])].push_back(i);
  // Alike so far: each finding on a deeper group's path goes to the deepest such group (the
  // one with the most codes above it on its path).
  node_index by_id;
  for (auto& n : nodes) by_id[n.id] = &n;
  std::map<std::string, group_path> paths;
  for (auto& [key, members] : groups) {
    auto& g = paths[key];
    g.kind = kind_key(ranked[members.front()]);
    g.code = ranked[members.front()].node.code;
    for (auto k : members) {
      auto above = codes_above(ranked[k].node, by_id);
      g.above.insert(above.begin(), above.end());
    }
  }
  std::map<std::size_t, std::string> moved;  // finding (by rank) -> the group it is alike to
  for (auto& [key, members] : groups) {
    auto& mine = paths[key];
    const std::string* to = nullptr;
    for (auto& [other, g] : paths)
      if (other != key && g.kind == mine.kind && g.above.count(mine.code) &&
          (!to || g.above.size() > paths[*to].above.size()))
        to = &other;
    if (!to) continue;
    std::set<process_key> theirs;  // a process already in that group is not alike to it
    for (auto k : groups[*to]) theirs.insert(key_of(ranked[k]));
    for (auto k : members)
      if (!theirs.count(key_of(ranked[k])) &&
          alike_so_far(key_of(ranked[k]), ranked[k].node.hypothesis, mine.code, paths[*to],
                       nodes))
        moved[k] = *to;
  }
  for (auto& [k, to] : moved) {  // out of its own group (into one that keeps a member)
    auto& own = groups[fold_key(ranked[k])];
    own.erase(std::remove(own.begin(), own.end(), k), own.end());
  }
  std::map<std::string, std::set<process_key>> alike;
  std::map<std::string, std::map<std::string, std::size_t>> alike_by_code;
  std::map<std::string, std::size_t> path_depth;  // code -> codes above it on its group's path
  for (auto& [key, g] : paths) path_depth[g.code] = std::max(path_depth[g.code], g.above.size());
  for (auto& [k, to] : moved)
    if (!groups[to].empty() && alike[to].insert(key_of(ranked[k])).second)
      ++alike_by_code[to][ranked[k].node.code];
  // The hosts that hold one process each (a cluster of one process per node).
  std::map<std::string, std::vector<process_key>> on_host;
  for (auto& [key, label] : labels)
    if (!key.host.empty()) on_host[key.host].push_back(key);
  std::map<process_key, std::string> sole_host;
  for (auto& [host, keys] : on_host)
    if (keys.size() == 1) sole_host[keys.front()] = host;
  std::vector<folded_finding> out;
  std::set<std::string> done;
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    auto& f = ranked[i];
    if (!folds(f)) {
      out.push_back(single(f, labels.size()));
      continue;
    }
    if (auto m = moved.find(i); m != moved.end() && !groups[m->second].empty())
      continue;  // told in the line of the group it is alike to
    auto key = fold_key(f);
    auto& group = groups[key];
    std::set<process_key> in_group;
    for (auto k : group) in_group.insert(key_of(ranked[k]));
    if (in_group.size() + alike[key].size() < 2) {
      out.push_back(single(f, labels.size()));
      continue;
    }
    if (!done.insert(key).second) continue;  // folded at its best member's rank
    std::vector<finding> members;
    for (auto k : group) members.push_back(ranked[k]);
    out.push_back(fold(members, in_group, labels, ranked, sole_host, nodes, alike[key],
                       alike_by_code[key], path_depth));
  }
  return out;
}

}  // namespace perfdm::pc
