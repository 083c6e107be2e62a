#include "cli/search_command.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "cli/readable_lines.hpp"
#include "cli/search_report.hpp"
#include "cli/shg_print.hpp"
#include "cli/xml_session.hpp"
#include "cli/stop_signals.hpp"
#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/process_messages.hpp"
#include "messages/search_messages.hpp"
#include "messages/topology_messages.hpp"
#include "messages/xml_codec.hpp"
#include "native/pc_resources.hpp"
#include "pc/machine_name.hpp"
#include "pc/search_wire.hpp"
#include "proc/process_facts.hpp"
#include "proc/program_launcher.hpp"

namespace perfdm {

namespace {

std::string search_request_xml(const search_command_options& o) {
  std::string attrs =
      " PHASE='" + std::string(o.phase == "current" ? "CURRENT" : "GLOBAL") + "' ACTION='START'";
  auto add = [&](const char* name, double v) {
    if (v >= 0) attrs += std::string(" ") + name + "='" + format_number(v) + "'";
  };
  add("SUFFICIENT_TIME", o.sufficient_time);
  add("CPU_THRESHOLD", o.cpu_threshold);
  add("SYNC_THRESHOLD", o.sync_threshold);
  add("IO_THRESHOLD", o.io_threshold);
  add("SMALL_IO_BYTES", o.small_io_bytes);
  add("COST_BUDGET", o.cost_budget);
  add("CONFIDENCE", o.confidence);  // the evidence rule's level
  return "<DYPER PID='DM' COMMAND='SEARCH'><SEARCH" + attrs + "/></DYPER>";
}

std::string watch_xml(int pid) {
  return "<DYPER PID='DM' COMMAND='WATCH'><PROCESS PID='" + std::to_string(pid) + "'/></DYPER>";
}

std::string exe_of(int pid) {
  char buf[4096];
  auto n = readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

// The descendants of a launched program, watched as they appear. A new process is watched
// once two looks in a row find the same executable: a fork about to exec would otherwise be
// named after its parent.
class descendant_watch {
 public:
  // The processes to WATCH now.
  std::vector<int> look(const launched_program& p) {
    std::map<int, std::string> now;
    std::vector<int> ready;
    for (auto pid : p.descendants()) {
      if (watched_.count(pid)) continue;
      auto exe = exe_of(pid);
      if (exe.empty()) continue;
      auto i = last_.find(pid);
      if (i != last_.end() && i->second == exe) {
        watched_.insert(pid);
        ready.push_back(pid);
      } else {
        now[pid] = exe;
      }
    }
    last_ = std::move(now);
    return ready;
  }

 private:
  std::set<int> watched_;
  std::map<int, std::string> last_;
};

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

std::string seconds_text(double t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", t);
  return buf;
}

}  // namespace

CLI::App* add_search_command(CLI::App& app, search_command_options& o) {
  auto* sub = app.add_subcommand(
      "search",
      "Find a program's bottleneck with the Performance Consultant: why (hypothesis), where "
      "(function, thread, lock), when. Watch running processes (--pid, repeatable) or start "
      "one: perfdm search [OPTIONS] -- CMD [ARGS...]");
  sub->add_option("--pid", o.pids, "a running process to search (repeatable)")
      ->check(CLI::PositiveNumber);
  sub->add_option("command", o.command,
                  "after --: the program to start, held until it is watched, with every "
                  "process it starts; the search ends when it exits");
  sub->add_option("--seconds", o.seconds,
                  "how long to search (default 30; a started program is then ended)")
      ->check(CLI::Range(0.1, 86400.0));
  sub->add_option("--phase", o.phase, "global (default) or current: the phase searched")
      ->check(CLI::IsMember({"global", "current"}));
  sub->add_flag("--json", o.json,
                "print one JSON object at the end: findings, open nodes, the search history "
                "graph");
  sub->add_flag("--shg", o.shg,
                "print every conclusion as it comes and the whole search history graph at "
                "the end");
  sub->add_option("-o,--output", o.output, "write the report to this file instead of stdout");
  sub->add_option("--checktime", o.checktime_ms, "mean milliseconds between stack samples")
      ->check(CLI::Range(0.1, 10000.0));
  sub->add_option("--sufficient-time", o.sufficient_time,
                  "Paradyn's rule: seconds of agreeing data before a node concludes (default: "
                  "none, a node concludes on the evidence, see --confidence)")
      ->check(CLI::Range(0.001, 1e6));
  sub->add_option("--confidence", o.confidence,
                  "the evidence rule's confidence level (default 0.99)")
      ->check(CLI::Range(0.5, 0.999999));
  sub->add_option("--cpu-threshold", o.cpu_threshold, "CPUbound threshold (default 0.30)")
      ->check(CLI::Range(0.0, 1e9));
  sub->add_option("--sync-threshold", o.sync_threshold,
                  "ExcessiveSyncWaitingTime threshold (default 0.20)")
      ->check(CLI::Range(0.0, 1e9));
  sub->add_option("--io-threshold", o.io_threshold,
                  "ExcessiveIOBlockingTime threshold (default 0.20)")
      ->check(CLI::Range(0.0, 1e9));
  sub->add_option("--small-io-bytes", o.small_io_bytes,
                  "TooManySmallIOOps: mean bytes per operation below this (default 4096)")
      ->check(CLI::Range(0.0, 1e18));
  sub->add_option("--cost-budget", o.cost_budget,
                  "no experiment starts while the measured sampling cost is above this "
                  "fraction of the program's time (default 0.10)")
      ->check(CLI::Range(1e-6, 1.0));
  sub->add_option("--log", o.log, "write the session's log (the SHG included) to this path");
  sub->add_option("--record", o.record, "record the session (replay format, as engine --record)");
  add_profile_export_options(sub, o.profile);
  sub->add_option("--publish", o.publish.address,
                  "let daemons and relays join on [HOST:]PORT (loopback unless a host is given; "
                  "port 0 picks one): the search covers every process they watch");
  add_remote_options(*sub, o.publish.remote);
  sub->add_option("--daemons", o.daemons,
                  "with --publish: start searching once this many daemons (behind relays too) "
                  "watch a process")
      ->check(CLI::Range(1, 100000));
  sub->add_option("--daemons-wait", o.daemons_wait,
                  "the longest wait for --daemons, in seconds (default 30): then the search "
                  "starts with those that joined")
      ->check(CLI::Range(0.0, 3600.0));
  return sub;
}

int run_search_command(const search_command_options& o, std::ostream& out, std::ostream& err) {
  // --daemons alone names no program either: its own error says what it lacks.
  if (o.daemons > 0 && o.publish.address.empty()) {
    err << "perfdm search: --daemons needs --publish [HOST:]PORT, where the daemons join\n";
    return 1;
  }
  if (o.pids.empty() && o.command.empty() && o.publish.address.empty()) {
    err << "perfdm search: name the program: --pid PID, or -- CMD [ARGS...], or let daemons "
           "join with --publish [HOST:]PORT\n";
    return 1;
  }
  std::ofstream file;
  std::ostream* report = &out;
  if (!o.output.empty()) {
    file.open(o.output);
    if (!file) {
      err << "perfdm search: cannot write the report " << o.output << '\n';
      return 1;
    }
    report = &file;
  }
  session_options so;
  so.deterministic = false;
  so.engine.native.delay.checktime_ns = to_ns(o.checktime_ms / 1000);
  if (!configure_publishing(so, o.publish, err)) return 1;
  so.command_line = "perfdm search";
  for (auto p : o.pids) so.command_line += " --pid " + std::to_string(p);
  if (!o.command.empty()) so.command_line += " --";
  for (auto& a : o.command) so.command_line += " " + a;
  std::ofstream record;
  if (!o.record.empty()) {
    record.open(o.record);
    if (!record) {
      err << "perfdm search: cannot write the recording " << o.record << '\n';
      return 1;
    }
    so.record = &record;
  }
  // From here Ctrl-C ends the search (and a started program) with what was found so far.
  install_stop_signals();
  // The program starts first, held before its first instruction, while perfdm has one thread
  // (the launcher forks).
  std::unique_ptr<launched_program> program;
  if (!o.command.empty()) {
    try {
      program = std::make_unique<launched_program>(o.command);
    } catch (const launch_error& e) {
      err << "perfdm search: cannot start " << e.what() << '\n';
      return e.exit_code;
    }
  }
  session s(so);
  engine_publisher publisher;
  if (!publisher.start(s, o.publish, so.default_log, err)) return 1;
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
  std::vector<process_info> watched;  // what each WATCH answered: the processes searched
  auto watch_reply = [&](const session_line& l) {
    if (l.kind == session_line::reply && l.message.match_elements<process_info>())
      watched.push_back(l.message.get_as<process_info>(0));
  };
  // A descendant may be gone before its WATCH: no error for that.
  auto quiet = [&](const session_line& l) { watch_reply(l); };
  auto print_new_findings = [&] {
    for (auto& f : watch.take_new())
      if (live_lines) out << stamp() << f.text << '\n' << std::flush;
  };
  std::vector<int> pids = o.pids;
  if (program) pids.insert(pids.begin(), program->pid());
  for (auto pid : pids) {
    s.run_line(watch_xml(pid), [&](const session_line& l) {
      handle(l);
      watch_reply(l);
    });
    if (refused) return 1;  // the launched program is ended by its destructor
  }
  if (o.daemons > 0) wait_for_daemons(s, o.daemons, o.daemons_wait, err);
  // On the findings' clock (engine time, from the session's start): after any wait for
  // daemons, where a finding's "since" is to be counted from.
  const double search_started = elapsed();
  s.run_line("<DYPER PID='DM' COMMAND='STREAM'/>", handle);
  s.run_line(search_request_xml(o), handle);
  if (refused) return 1;
  if (program) program->release();

  // --seconds counts from the search's start: a wait for daemons comes before it.
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(o.seconds));
  descendant_watch descendants;
  std::optional<int> exit_status;
  bool all_gone = false;
  int ticks = 0;
  while (!stop_requested() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    s.drain_events(handle);
    print_new_findings();
    if (program) {
      if ((exit_status = program->wait_status())) break;
      if (++ticks % 4 == 0)
        for (auto pid : descendants.look(*program)) s.run_line(watch_xml(pid), quiet);
    } else if (!pids.empty() && std::none_of(pids.begin(), pids.end(), proc::process_alive)) {
      all_gone = true;
      break;
    }
  }
  bool interrupted = stop_requested();
  double searched = elapsed();
  // A program still running is ended now: by --seconds, or with the search on Ctrl-C.
  bool ended_by_us = program && !exit_status;
  if (ended_by_us) exit_status = program->terminate(2.0);
  s.drain_events(handle);
  print_new_findings();

  shg_reply graph;
  findings_reply found;
  s.run_line("<DYPER PID='DM' COMMAND='SHG'/>", [&](const session_line& l) {
    if (l.kind == session_line::reply && l.message.match_elements<shg_reply>())
      graph = l.message.get_as<shg_reply>(0);
  });
  s.run_line("<DYPER PID='DM' COMMAND='FINDINGS'/>", [&](const session_line& l) {
    if (l.kind == session_line::reply && l.message.match_elements<findings_reply>())
      found = l.message.get_as<findings_reply>(0);
  });
  std::vector<pc::node_view> views;
  for (auto& n : graph.nodes) views.push_back(pc::view_of(n));
  auto open = pc::inconclusive_nodes(views, o.json                   ? views.size()
                                            : found.findings.empty() ? 10
                                                                     : 5);
  // What repeats across the processes searched, once (pc/finding_folding.hpp).
  std::vector<pc::searched_process> processes_searched;
  // This engine's own processes run on its host: a daemon's process of the same pid elsewhere
  // is another process.
  const auto own_host = native::host_part();
  for (auto& p : watched) processes_searched.push_back({p.pid, "", p.name, own_host});
  auto remote = o.publish.address.empty() ? std::vector<pc::searched_process>{}
                                          : daemons_processes(s, watched, own_host);
  processes_searched.insert(processes_searched.end(), remote.begin(), remote.end());
  auto folded =
      pc::fold_findings(pc::findings_of(found.findings, views), processes_searched, views);

  std::string how;  // how the search ended, for people
  if (program) {
    how = "the program (pid " + std::to_string(program->pid()) + ") " +
          (ended_by_us ? std::string(interrupted ? "was stopped on interrupt: "
                                                 : "was ended at --seconds: ")
                       : std::string()) +
          (WIFSIGNALED(*exit_status) && !ended_by_us ? "was " : "") +
          launched_program::describe(*exit_status) + " after " + seconds_text(searched);
  } else if (all_gone) {
    how = "the process exited after " + seconds_text(searched);
  } else {
    how = std::string(interrupted ? "interrupted" : "searched") + " for " + seconds_text(searched);
  }
  auto idle = pc::idle_threads(views);
  if (!pc::idle_text(idle).empty()) how += "; " + pc::idle_text(idle);
  if (o.json) {
    report_json r;
    if (program)
      r["program"] = {{"pid", program->pid()},
                      {"exit_code", launched_program::exit_code(*exit_status)},
                      {"ended_by", !ended_by_us  ? "exit"
                                   : interrupted ? "interrupt"
                                                 : "seconds"},
                      {"status", launched_program::describe(*exit_status)}};
    auto processes = report_json::array();
    for (auto& p : watched) processes.push_back({{"pid", p.pid}, {"name", p.name}});
    for (auto& p : remote)  // a daemon's: named by its /Machine resource
      processes.push_back({{"pid", p.pid}, {"machine", p.machine}});
    r["processes"] = std::move(processes);
    r["seconds"] = report_number(searched);
    r["started"] = report_number(search_started);
    r["findings"] = findings_json(found.findings);
    r["folded"] = folded_json(folded);
    r["inconclusive"] = inconclusive_json(open);
    r["nodes"] = shg_json(graph.nodes)["nodes"];
    r["idle_threads"] = report_number(idle);
    *report << report_dump(r) << '\n';
  } else {
    *report << "(" << how << ")\n" << folded_findings_text(folded, open);
    if (o.shg) *report << "search history graph:\n" << shg_tree(graph.nodes);
  }
  report->flush();
  // The run's call paths as folded stacks and pprof (--folded, --pprof; docs/FLAME.md), of
  // every process searched.
  if (o.profile.wanted()) {
    std::vector<profile::counted_stack> stacks;
    for (auto& p : watched) {
      auto x = s.ask(caf::make_message(flame_export_request{p.pid}));
      if (!x.match_elements<flame_export>()) continue;
      auto more = export_stacks(x.get_as<flame_export>(0));
      stacks.insert(stacks.end(), more.begin(), more.end());
    }
    if (write_profile_exports(o.profile, stacks, err, "perfdm search") != 0) return 1;
  }
  if (!o.log.empty()) {
    try {
      auto bytes = s.write_log_file(o.log);
      err << "perfdm: wrote the log " << o.log << " (" << bytes << " bytes)\n";
    } catch (const std::exception& e) {
      err << "perfdm: cannot write the log " << o.log << ": " << e.what() << '\n';
      return 1;
    }
  }
  if (!program) return 0;
  if (!ended_by_us) return launched_program::exit_code(*exit_status);
  return interrupted ? 130 : 0;
}

}  // namespace perfdm
