// A /Machine resource read (docs/PROTOCOL.md §12): "/Machine/<host>/<process>{<pid>}/
// <thread>{<tid>}". One parser for everything that tells processes apart by their names — the
// findings (pid, tid, host), their folding across processes, and `perfdm search`'s list of the
// daemons' processes — so that they agree on what a process is: its host and its pid together
// (two hosts often run the same pid: containers, pid namespaces).
#pragma once

#include <cstddef>
#include <string>
#include <tuple>
#include <vector>

namespace perfdm::pc {

// A resource name's components: "/Machine/h/p{1}/t{2}" → {"Machine", "h", "p{1}", "t{2}"};
// "/" and "" → {}.
std::vector<std::string> resource_components(const std::string& name);

// "{4711}" at the end of a component: 4711; 0 when there is none or it is not a number.
int id_in_braces(const std::string& component);

// A /Machine resource's parts; what the name does not reach stays empty (0).
struct machine_name {
  std::size_t depth = 0;  // 0: /Machine, 1: a host, 2: a process, 3: a thread (or deeper)
  std::string host;       // "node3"
  std::string process;    // its component, "cluster_job{4242}"
  int pid = 0;
  std::string thread;     // its component, "cluster_job{4243}"
  int tid = 0;
};

// Reads `resource`; false when it is not /Machine or below it.
bool parse_machine_name(const std::string& resource, machine_name& out);

// A process as the search tells processes apart: its host and pid. An empty host is one not
// known (a process a front end watched by pid alone).
struct process_key {
  std::string host;
  int pid = 0;
  friend bool operator<(const process_key& a, const process_key& b) {
    return std::tie(a.host, a.pid) < std::tie(b.host, b.pid);
  }
  friend bool operator==(const process_key& a, const process_key& b) {
    return a.host == b.host && a.pid == b.pid;
  }
  friend bool operator!=(const process_key& a, const process_key& b) { return !(a == b); }
};

// What a person calls a process or thread: its component ("job{42}"), after "host:" when the
// search spans several hosts ("node3:job{42}").
std::string with_host(const std::string& host, const std::string& component, bool name_host);

}  // namespace perfdm::pc
