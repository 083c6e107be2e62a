#include "cli/search_run.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include "cli/readable_lines.hpp"
#include "cli/search_report.hpp"
#include "cli/shg_print.hpp"
#include "cli/stop_signals.hpp"
#include "messages/dm_messages.hpp"
#include "messages/native_messages.hpp"
#include "messages/topology_messages.hpp"
#include "messages/xml_codec.hpp"
#include "native/pc_resources.hpp"
#include "pc/machine_name.hpp"
#include "proc/descendant_watch.hpp"
#include "proc/mpi_job.hpp"
#include "proc/process_facts.hpp"

namespace perfdm {

namespace {

std::string search_request_xml(const search_command_options& o) {
  search_request r;
  r.phase = o.phase == "current" ? phase_type::current : phase_type::global;
  r.action = search_action::start;
  auto add = [&](const char* name, double v) {
    if (v >= 0) r.tunables[name] = v;
  };
  add("SUFFICIENT_TIME", o.sufficient_time);
  add("CPU_THRESHOLD", o.cpu_threshold);
  add("SYNC_THRESHOLD", o.sync_threshold);
  add("IO_THRESHOLD", o.io_threshold);
  add("SMALL_IO_BYTES", o.small_io_bytes);
  add("COST_BUDGET", o.cost_budget);
  add("CONFIDENCE", o.confidence);  // the evidence rule's level
  return print_request("DM", caf::make_message(std::move(r)));
}

// Waits until `n` daemons of the tree (TOPOLOGY: straight below this engine or behind relays)
// watch a process each, at most `seconds`.
void wait_for_daemons(session& s, int n, double seconds, std::ostream& err) {
  auto until = std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(seconds));
  std::size_t joined = 0;
  while (!stop_requested()) {
    auto r = s.ask(caf::make_message(topology_query{}));
    if (r.match_elements<topology_reply>()) {
      auto& nodes = r.get_as<topology_reply>(0).nodes;
      joined = static_cast<std::size_t>(std::count_if(
          nodes.begin(), nodes.end(), [](auto& x) { return x.kind == "daemon" && x.sources > 0; }));
    }
    if (joined >= static_cast<std::size_t>(n) || std::chrono::steady_clock::now() >= until) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  err << "perfdm search: " << joined << " of " << n << " daemons joined"
      << (joined < static_cast<std::size_t>(n) ? " (searching with those)" : "") << '\n';
}

// The processes the daemons watch, as their /Machine resources name them
// (/Machine/<host>/<name>{<pid>}), but those this engine watched itself (on `own_host`).
// Processes are told apart by host and pid: two hosts may run the same pid.
std::vector<pc::searched_process> daemons_processes(session& s,
                                                    const std::vector<process_info>& own,
                                                    const std::string& own_host) {
  std::vector<pc::searched_process> out;
  auto r = s.ask(caf::make_message(list_resources{}));
  if (!r.match_elements<resource_list>()) return out;
  std::set<pc::process_key> seen;
  for (auto& p : own) seen.insert({own_host, p.pid});
  for (auto& res : r.get_as<resource_list>(0).resources) {
    pc::machine_name m;
    if (!pc::parse_machine_name(res.name, m) || m.depth != 2 || m.pid <= 0) continue;
    if (seen.insert({m.host, m.pid}).second) out.push_back({m.pid, res.name, "", m.host});
  }
  return out;
}

}  // namespace

std::optional<search_outcome> run_search(session& s, const search_command_options& o,
                                         launched_program* program, std::ostream& out,
                                         std::ostream& err) {
  search_outcome r;
  finding_watch watch;
  std::map<std::uint64_t, std::string> states;  // node id: its last state (--shg's lines)
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto stamp = [&] {
    char buf[32];
    std::snprintf(buf, sizeof buf, "[%6.1f s] ", elapsed());
    return std::string(buf);
  };
  bool live_lines = !o.json;
  bool refused = false;
  auto handle = [&](const session_line& l) {
    if (l.kind == session_line::error) {
      err << "perfdm search: " << error_sentence(l) << '\n';
      refused = true;
      return;
    }
    if (l.kind != session_line::event || !l.message.match_elements<shg_node_event>()) return;
    auto& n = l.message.get_as<shg_node_event>(0).node;
    watch.update(n);
    auto& before = states[n.id];
    auto line = shg_conclusion_line(before, n);
    before = n.state;
    if (!line.empty() && live_lines && o.shg) out << stamp() << line << '\n' << std::flush;
  };
  // A process without a rank whose descendants are ranks (a job script, sh -c "mpirun …")
  // only starts the job: it is no process of the job's to report on.
  std::set<int> wrappers;
  auto watch_reply = [&](const session_line& l) {
    if (l.kind != session_line::reply || !l.message.match_elements<process_info>()) return;
    auto& watched = l.message.get_as<process_info>(0);
    r.watched.push_back(watched);
    if (!proc::rank_in_process_name(watched.name)) return;
    for (pid_t p = watched.pid; p != (program ? program->pid() : 1);) {
      auto stat = proc::read_stat(p);
      if (!stat || stat->ppid <= 1) break;
      wrappers.insert(p = stat->ppid);
    }
  };
  auto print_new_findings = [&] {
    for (auto& f : watch.take_new())
      if (live_lines) out << stamp() << f.text << '\n' << std::flush;
  };
  std::vector<int> pids = o.pids;
  // An MPI launcher (mpirun -np 3 app) is infrastructure: its event loops and its reads of
  // the machine's topology are nobody's bottleneck. Its ranks are searched as they appear.
  auto launched = program ? proc::executable_of(program->pid()) : std::string();
  bool launcher = program && proc::mpi_launcher(launched);
  if (program && !launcher) pids.insert(pids.begin(), program->pid());
  if (launcher)
    err << "perfdm search: " << launched
        << " launches MPI ranks: searching the ranks, not the launcher\n";
  for (auto pid : pids) {
    s.run_line(print_dm_request(watch_request{pid}), [&](const session_line& l) {
      handle(l);
      watch_reply(l);
    });
    if (refused) return std::nullopt;  // a launched program is ended by its destructor
  }
  if (o.daemons > 0) wait_for_daemons(s, o.daemons, o.daemons_wait, err);
  // On the findings' clock (engine time, from the session's start): after any wait for
  // daemons, where a finding's "since" is to be counted from.
  r.started = elapsed();
  s.run_line(print_request("DM", caf::make_message(open_stream{})), handle);
  s.run_line(search_request_xml(o), handle);
  if (refused) return std::nullopt;
  if (program) program->release();

  // --seconds counts from the search's start: a wait for daemons comes before it.
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(o.seconds));
  proc::descendant_watch descendants;
  int ticks = 0;
  while (!stop_requested() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    s.drain_events(handle);
    print_new_findings();
    if (program) {
      if ((r.exit_status = program->wait_status())) break;
      // A descendant may be gone before its WATCH: no error for that.
      if (++ticks % 4 == 0)
        for (auto pid : descendants.look(program->descendants()))
          s.run_line(print_dm_request(watch_request{pid}), watch_reply);
    } else if (!pids.empty() && std::none_of(pids.begin(), pids.end(), proc::process_alive)) {
      r.all_gone = true;
      break;
    }
  }
  r.interrupted = stop_requested();
  r.searched = elapsed();
  // A program still running is ended now: by --seconds, or with the search on Ctrl-C.
  r.ended_by_us = program && !r.exit_status;
  if (r.ended_by_us) r.exit_status = program->terminate(2.0);
  s.drain_events(handle);
  print_new_findings();

  s.run_line(print_request("DM", caf::make_message(shg_request{})), [&](const session_line& l) {
    if (l.kind == session_line::reply && l.message.match_elements<shg_reply>())
      r.graph = l.message.get_as<shg_reply>(0);
  });
  s.run_line(print_request("DM", caf::make_message(findings_request{})), [&](const session_line& l) {
    if (l.kind == session_line::reply && l.message.match_elements<findings_reply>())
      r.found = l.message.get_as<findings_reply>(0);
  });
  r.watched.erase(std::remove_if(r.watched.begin(), r.watched.end(),
                                 [&](const process_info& p) {
                                   return wrappers.count(p.pid) &&
                                          !proc::rank_in_process_name(p.name);
                                 }),
                  r.watched.end());
  if (!o.publish.address.empty()) r.remote = daemons_processes(s, r.watched, native::host_part());
  return r;
}

}  // namespace perfdm
