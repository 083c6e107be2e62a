#include "pc/findings.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <set>

#include "pc/hypotheses.hpp"
#include "pc/machine_name.hpp"
#include "pc/rank_imbalance.hpp"
#include "proc/mpi_job.hpp"
#include "proc/system_modules.hpp"

namespace perfdm::pc {

namespace {

bool is_true(const node_view& n) {
  return n.state == "true";
}

// `part` is `whole` or below it ("/Code/m" is below "/Code"; "" stands for a root).
bool at_or_below(const std::string& part, const std::string& whole) {
  if (whole.empty() || part == whole) return true;
  if (part.empty()) return false;
  return part.size() > whole.size() && part.compare(0, whole.size(), whole) == 0 &&
         part[whole.size()] == '/';
}

// `sub` is `h` or one of its sub-hypotheses (unknown names are only themselves).
bool same_or_sub_hypothesis(const std::string& sub, const std::string& h) {
  if (sub == h) return true;
  hypothesis s, top;
  if (!hypothesis_named(sub, s) || !hypothesis_named(h, top)) return false;
  for (auto p = info(s).parent; p; p = info(*p).parent)
    if (*p == top) return true;
  return false;
}

bool greater_test(const std::string& h) {
  hypothesis x;
  return !hypothesis_named(h, x) || info(x).greater;
}

// Below each node: every node reached through child edges, by id.
std::map<std::uint64_t, std::set<std::uint64_t>> descendants(const std::vector<node_view>& nodes) {
  std::map<std::uint64_t, std::vector<std::uint64_t>> children;
  for (auto& n : nodes)
    for (auto p : n.parents)
      if (p != n.id) children[p].push_back(n.id);
  std::map<std::uint64_t, std::set<std::uint64_t>> below;
  for (auto& n : nodes) {
    auto& seen = below[n.id];
    std::vector<std::uint64_t> todo = children[n.id];
    while (!todo.empty()) {
      auto c = todo.back();
      todo.pop_back();
      if (c == n.id || !seen.insert(c).second) continue;
      for (auto k : children[c]) todo.push_back(k);
    }
  }
  return below;
}

// The nodes that refine `a`: below it in the graph, or narrower by focus.
std::vector<const node_view*> refinements(
    const node_view& a, const std::vector<node_view>& nodes,
    const std::map<std::uint64_t, std::set<std::uint64_t>>& below) {
  std::vector<const node_view*> out;
  auto i = below.find(a.id);
  for (auto& b : nodes) {
    if (b.id == a.id) continue;
    if ((i != below.end() && i->second.count(b.id)) || refines_by_focus(b, a)) out.push_back(&b);
  }
  return out;
}

// 0 for /Code, 1 for a module, 2 for a function.
int code_depth(const std::string& code) {
  if (code.size() <= 6) return 0;
  return code.find('/', 6) == std::string::npos ? 1 : 2;
}

// A finding at the root of /Code or at a module gives way to one at a function, of the same
// hypothesis (or a sub-hypothesis) and at least as narrow elsewhere: a module's inclusive time
// holds the start-up frames of every stack (libc's __libc_start_main), so "in module
// libc.so.6" is true of any busy program and says nothing a function does not say better.
bool dominated(const node_view& f, const std::vector<node_view>& found) {
  if (code_depth(f.code) >= 2) return false;
  for (auto& g : found)
    if (g.id != f.id && code_depth(g.code) == 2 &&
        same_or_sub_hypothesis(g.hypothesis, f.hypothesis) && at_or_below(g.machine, f.machine) &&
        at_or_below(g.syncobject, f.syncobject) && at_or_below(g.file, f.file))
      return true;
  return false;
}

// What a fix at the node's focus would save of the elapsed time (the evidence's share of the
// busy threads); without the evidence (Paradyn's rule on metric instances), how far the value
// lies beyond the threshold.
double score_of(const node_view& n) {
  if (!std::isnan(n.score)) return n.score;
  if (greater_test(n.hypothesis)) return n.threshold > 0 ? n.value / n.threshold : n.value;
  if (n.value <= 0) return std::numeric_limits<double>::max();
  return n.threshold / n.value;
}

// "/Code/<module>/<function>" split; false for a root or a module. A function's name may
// itself hold a '/' (operator/).
bool code_function(const std::string& code, std::string& module, std::string& function) {
  if (code.size() <= 6 || code.compare(0, 6, "/Code/") != 0) return false;
  auto rest = code.substr(6);
  auto slash = rest.find('/');
  if (slash == std::string::npos) return false;
  module = rest.substr(0, slash);
  function = readable_function(rest.substr(slash + 1));
  return true;
}

using node_index = std::map<std::uint64_t, const node_view*>;

// A function without a symbol, named by its module and start address ("xz+0x4a3f0").
bool unnamed_function(const std::string& function) {
  return function.find("+0x") != std::string::npos;
}

// Whether a person reading a finding at this function needs its caller too: the function is
// the runtime's (libc's lock wait) or has no name (a stripped library's inner loop).
bool needs_caller(const std::string& module, const std::string& function) {
  return proc::system_module(module) || unnamed_function(function);
}

// The nearest node above `n`, along first parents, whose /Code part is a named function
// outside the system libraries: the program's call into them, or the exported function of a
// stripped library ("lzma_code (liblzma.so.5)").
std::string program_caller(const node_view& n, const node_index& index) {
  const node_view* at = &n;
  for (int hops = 0; hops < 256 && !at->parents.empty(); ++hops) {
    auto p = index.find(at->parents.front());
    if (p == index.end() || p->second == at) break;
    at = p->second;
    std::string module, function;
    if (code_function(at->code, module, function) && !needs_caller(module, function))
      return function + " (" + module + ")";
  }
  return "";
}

node_index index_of(const std::vector<node_view>& nodes) {
  node_index index;
  for (auto& n : nodes) index.emplace(n.id, &n);
  return index;
}

finding make_finding(const node_view& n, bool inconclusive, const node_index& index,
                     bool name_host) {
  finding f;
  f.node = n;
  f.score = score_of(n);
  f.inconclusive = inconclusive;
  std::string module, function;
  if (code_function(n.code, module, function)) {
    f.function = function + " (" + module + ")";
    if (needs_caller(module, function)) f.caller = program_caller(n, index);
  }
  machine_name m;
  if (parse_machine_name(n.machine, m)) {
    f.host = m.host;
    f.pid = m.pid;
    f.tid = m.tid;
  }
  f.host_named = name_host;
  f.text = finding_text(f);
  return f;
}

void rank(std::vector<finding>& v) {
  std::stable_sort(v.begin(), v.end(), [](const finding& a, const finding& b) {
    if (a.score != b.score) return a.score > b.score;
    double sa = a.node.since < 0 ? 1e300 : a.node.since,
           sb = b.node.since < 0 ? 1e300 : b.node.since;
    if (sa != sb) return sa < sb;
    return a.node.id < b.node.id;
  });
}

std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

}  // namespace

bool refines_by_focus(const node_view& b, const node_view& a) {
  if (b.id == a.id) return false;
  if (!same_or_sub_hypothesis(b.hypothesis, a.hypothesis)) return false;
  if (!at_or_below(b.code, a.code) || !at_or_below(b.machine, a.machine) ||
      !at_or_below(b.syncobject, a.syncobject) || !at_or_below(b.file, a.file))
    return false;
  return !(b.hypothesis == a.hypothesis && b.code == a.code && b.machine == a.machine &&
           b.syncobject == a.syncobject && b.file == a.file);
}

std::vector<finding> findings(const std::vector<node_view>& nodes) {
  auto below = descendants(nodes);
  std::vector<node_view> leaves;
  for (auto& n : nodes) {
    if (!is_true(n)) continue;
    auto r = refinements(n, nodes, below);
    if (std::none_of(r.begin(), r.end(), [](const node_view* b) { return is_true(*b); }))
      leaves.push_back(n);
  }
  auto index = index_of(nodes);
  bool hosts = spans_hosts(nodes);
  std::vector<finding> out;
  for (auto& n : leaves)
    if (!dominated(n, leaves)) out.push_back(make_finding(n, false, index, hosts));
  rank(out);
  // An MPI job's waits at a call are the late rank's work (pc/rank_imbalance.hpp).
  blame_rank_imbalance(out);
  return out;
}

std::vector<finding> settled_findings(const std::vector<node_view>& nodes) {
  auto below = descendants(nodes);
  std::vector<finding> out;
  for (auto& f : findings(nodes)) {
    auto r = refinements(f.node, nodes, below);
    if (std::all_of(r.begin(), r.end(), [](const node_view* b) { return b->state == "false"; }))
      out.push_back(f);
  }
  return out;
}

std::vector<finding> inconclusive_nodes(const std::vector<node_view>& nodes, std::size_t limit) {
  auto index = index_of(nodes);
  bool hosts = spans_hosts(nodes);
  std::vector<finding> out;
  for (auto& n : nodes)
    if (n.state == "unknown") out.push_back(make_finding(n, true, index, hosts));
  rank(out);
  if (out.size() > limit) out.resize(limit);
  return out;
}

std::string value_text(const std::string& hypothesis, double low, double high) {
  char lo[32], hi[32];
  bool rate = greater_test(hypothesis);  // the rate hypotheses: seconds per second, a share
  std::snprintf(lo, sizeof lo, "%.0f", rate ? low * 100 : low);
  std::snprintf(hi, sizeof hi, "%.0f", rate ? high * 100 : high);
  std::string v = lo;
  if (std::string(hi) != v) v += "\u2013" + std::string(hi);
  return v + (rate ? "% of time" : " bytes per I/O operation");
}

std::string where_text(const finding& f) {
  auto& n = f.node;
  std::string out;
  if (!f.function.empty()) {
    out += " in " + f.function;
    if (!f.caller.empty()) out += " from " + f.caller;
    auto advice = perf_map_advice(f.function);
    if (!advice.empty()) out += " \u2014 JIT code without names: " + advice;
  } else if (n.code != "/Code" && n.code.size() > 6) {
    out += " in module " + n.code.substr(6);
  }
  if (!n.syncobject.empty() && n.syncobject != "/SyncObject")
    out += " \u2014 on " + n.syncobject.substr(std::string("/SyncObject/").size());
  if (!n.file.empty() && n.file != "/File") out += " \u2014 file " + n.file.substr(5);
  return out;
}

std::string machine_text(const std::string& machine, bool name_host) {
  machine_name m;
  if (!parse_machine_name(machine, m)) return "";
  if (m.depth >= 3) {
    // A rank's thread says its rank: the thread's own name is the program's.
    auto rank = proc::rank_in_process_name(m.process.substr(0, m.process.rfind('{')));
    return " \u2014 " + (rank ? "rank " + std::to_string(*rank) + ", " : std::string()) +
           "thread " + with_host(m.host, m.thread, name_host);
  }
  if (m.depth == 2) return " \u2014 process " + with_host(m.host, m.process, name_host);
  if (m.depth == 1) return " \u2014 host " + m.host;
  return "";
}

bool spans_hosts(const std::vector<node_view>& nodes) {
  std::string first;
  for (auto& n : nodes) {
    machine_name m;
    if (!parse_machine_name(n.machine, m) || m.host.empty()) continue;
    if (first.empty())
      first = m.host;
    else if (m.host != first)
      return true;
  }
  return false;
}

double idle_threads(const std::vector<node_view>& nodes) {
  double idle = 0;
  for (auto& n : nodes)
    if (n.code == "/Code" && n.machine == "/Machine") idle = std::max(idle, n.idle);
  return idle;
}

std::string idle_text(double idle) {
  if (idle < 0.5) return "";
  char buf[80];
  std::snprintf(buf, sizeof buf, "%.0f thread%s idle, waiting for work", idle,
                idle < 1.5 ? "" : "s");
  return buf;
}

finding finding_of(const node_view& n, const std::vector<node_view>& nodes) {
  return make_finding(n, n.state == "unknown", index_of(nodes), spans_hosts(nodes));
}

namespace {

// " (2.8 threads waiting on average" where several threads share the state at a focus above a
// thread: a share of the active threads' time alone would hide how many.
std::string threads_text(const node_view& n) {
  machine_name m;
  if (std::isnan(n.threads) || n.threads < 1.5 ||
      (parse_machine_name(n.machine, m) && m.depth >= 3))
    return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, " (%.1f threads %s on average)", n.threads,
                n.hypothesis == "CPUbound"                   ? "running"
                : n.hypothesis == "ExcessiveSyncWaitingTime" ? "waiting"
                                                             : "in I/O");
  return buf;
}

// The waits its work causes (blame): " — 0.9 threads wait for it".
std::string blame_text(const node_view& n) {
  if (n.blamed < 0.1) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, " \u2014 %.1f threads wait for it", n.blamed);
  return buf;
}

}  // namespace

std::string finding_text(const finding& f) {
  auto& n = f.node;
  std::string out = n.hypothesis + " " + value_text(n.hypothesis, n.value, n.value) +
                    threads_text(n) + where_text(f) + machine_text(n.machine, f.host_named) +
                    blame_text(n);
  char buf[64];
  if (f.inconclusive) {
    out += " \u2014 inconclusive: value " + number(n.value) + " against " + number(n.threshold);
    if (!std::isnan(n.low) && !std::isnan(n.high))
      out += " [" + number(n.low) + ", " + number(n.high) + "]";
    if (n.samples >= 0) out += ", " + std::to_string(n.samples) + " samples";
  } else if (n.since >= 0) {
    std::snprintf(buf, sizeof buf, " \u2014 since %.1f s", n.since);
    out += buf;
  }
  return out;
}

std::string readable_function(const std::string& part) {
  auto hex = [](char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : -1;
  };
  std::string out;
  for (std::size_t i = 0; i < part.size(); ++i) {
    if (part[i] == '%' && i + 2 < part.size() && hex(part[i + 1]) >= 0 && hex(part[i + 2]) >= 0) {
      out += static_cast<char>(hex(part[i + 1]) * 16 + hex(part[i + 2]));
      i += 2;
    } else {
      out += part[i];
    }
  }
  return out;
}

std::string perf_map_advice(const std::string& function) {
  const std::string open = "[jit ";
  if (function.compare(0, open.size(), open) != 0) return "";
  auto close = function.find(']');
  if (close == std::string::npos) return "";
  auto runtime = function.substr(open.size(), close - open.size());
  auto is = [&](const char* prefix) {
    return runtime.compare(0, std::strlen(prefix), prefix) == 0;
  };
  if (is("node")) return runtime + " --perf-basic-prof names it";
  if (is("python")) return runtime + " -X perf names it (Python 3.12 and later)";
  if (is("java")) return "jcmd <pid> Compiler.perfmap names it";
  if (is("dotnet")) return "DOTNET_PerfMapEnabled=3 names it";
  return "a perf map (/tmp/perf-<pid>.map) names it";
}

}  // namespace perfdm::pc
