#include "cli/search_command.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/search_report.hpp"
#include "cli/search_run.hpp"
#include "cli/shg_print.hpp"
#include "cli/stop_signals.hpp"
#include "cli/xml_session.hpp"
#include "messages/dm_messages.hpp"
#include "native/pc_resources.hpp"
#include "pc/search_wire.hpp"
#include "proc/program_launcher.hpp"
#include "cli/io_preload.hpp"

namespace perfdm {

namespace {

std::string seconds_text(double t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", t);
  return buf;
}

// How the search ended, for people: the program's end, the processes' or the time searched.
std::string ending_text(const search_outcome& r, const launched_program* program) {
  if (program)
    return "the program (pid " + std::to_string(program->pid()) + ") " +
           (r.ended_by_us ? std::string(r.interrupted ? "was stopped on interrupt: "
                                                      : "was ended at --seconds: ")
                          : std::string()) +
           (WIFSIGNALED(*r.exit_status) && !r.ended_by_us ? "was " : "") +
           launched_program::describe(*r.exit_status) + " after " + seconds_text(r.searched);
  if (r.all_gone) return "the process exited after " + seconds_text(r.searched);
  return std::string(r.interrupted ? "interrupted" : "searched") + " for " +
         seconds_text(r.searched);
}

// The report at the end: the findings ranked and folded across the processes searched, the
// nodes still open, how the search ended (text, with --shg the graph), or all of it as JSON.
void write_report(std::ostream& report, const search_command_options& o, const search_outcome& r,
                  const launched_program* program) {
  std::vector<pc::node_view> views;
  for (auto& n : r.graph.nodes) views.push_back(pc::view_of(n));
  auto open = pc::inconclusive_nodes(views, o.json                     ? views.size()
                                            : r.found.findings.empty() ? 10
                                                                       : 5);
  // What repeats across the processes searched, once (pc/finding_folding.hpp). This engine's
  // own processes run on its host: a daemon's process of the same pid elsewhere is another.
  std::vector<pc::searched_process> processes_searched;
  const auto own_host = native::host_part();
  for (auto& p : r.watched) processes_searched.push_back({p.pid, "", p.name, own_host});
  processes_searched.insert(processes_searched.end(), r.remote.begin(), r.remote.end());
  auto folded =
      pc::fold_findings(pc::findings_of(r.found.findings, views), processes_searched, views);
  auto idle = pc::idle_threads(views);
  if (o.json) {
    report_json j;
    if (program)
      j["program"] = {{"pid", program->pid()},
                      {"exit_code", launched_program::exit_code(*r.exit_status)},
                      {"ended_by", !r.ended_by_us  ? "exit"
                                   : r.interrupted ? "interrupt"
                                                   : "seconds"},
                      {"status", launched_program::describe(*r.exit_status)}};
    auto processes = report_json::array();
    for (auto& p : r.watched) processes.push_back({{"pid", p.pid}, {"name", p.name}});
    for (auto& p : r.remote)  // a daemon's: named by its /Machine resource
      processes.push_back({{"pid", p.pid}, {"machine", p.machine}});
    j["processes"] = std::move(processes);
    j["seconds"] = report_number(r.searched);
    j["started"] = report_number(r.started);
    j["findings"] = findings_json(r.found.findings);
    j["folded"] = folded_json(folded);
    j["inconclusive"] = inconclusive_json(open);
    j["nodes"] = shg_json(r.graph.nodes)["nodes"];
    j["idle_threads"] = report_number(idle);
    report << report_dump(j) << '\n';
  } else {
    auto how = ending_text(r, program);
    if (!pc::idle_text(idle).empty()) how += "; " + pc::idle_text(idle);
    report << "(" << how << ")\n" << folded_findings_text(folded, open);
    if (o.shg) report << "search history graph:\n" << shg_tree(r.graph.nodes);
  }
  report.flush();
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
  sub->add_flag("!--no-io", o.io,
                "do not preload perfdm's I/O library into the program it starts (its file I/O "
                "is then sampled, not counted)");
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
  // The I/O library in the program and its children (--no-io: not), so that each file's
  // I/O reaches the engine as counted.
  io_preload io(o.io && !o.command.empty());
  if (!io.why_not().empty()) err << "perfdm search: " << io.why_not() << '\n';
  std::unique_ptr<launched_program> program;
  if (!o.command.empty()) {
    try {
      program = std::make_unique<launched_program>(o.command, false, io.environment());
    } catch (const launch_error& e) {
      err << "perfdm search: cannot start " << e.what() << '\n';
      return e.exit_code;
    }
  }
  session s(so);
  engine_publisher publisher;
  if (!publisher.start(s, o.publish, so.default_log, err)) return 1;
  auto r = run_search(s, o, program.get(), out, err);
  if (!r) return 1;
  write_report(*report, o, *r, program.get());
  // The run's call paths as folded stacks and pprof (--folded, --pprof; docs/FLAME.md), of
  // every process searched.
  if (o.profile.wanted()) {
    std::vector<profile::counted_stack> stacks;
    for (auto& p : r->watched) {
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
  if (!r->ended_by_us) return launched_program::exit_code(*r->exit_status);
  return r->interrupted ? 130 : 0;
}

}  // namespace perfdm
