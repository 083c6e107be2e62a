#include "cli/search_command.hpp"

#include <signal.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>
#include <map>
#include <thread>

#include "cli/xml_session.hpp"
#include "cli/shg_print.hpp"
#include "messages/dm_error.hpp"
#include "messages/search_messages.hpp"
#include "messages/xml_codec.hpp"

namespace perfdm {

namespace {

volatile std::sig_atomic_t search_stop = 0;

void on_search_signal(int) {
  search_stop = 1;
}

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
  return "<DYPER PID='DM' COMMAND='SEARCH'><SEARCH" + attrs + "/></DYPER>";
}

bool process_alive(int pid) {
  return kill(pid, 0) == 0 || errno == EPERM;
}

}  // namespace

CLI::App* add_search_command(CLI::App& app, search_command_options& o) {
  auto* sub = app.add_subcommand(
      "search",
      "Watch a running program and let the Performance Consultant find its "
      "bottleneck: why (hypothesis), where (function, thread, lock), when (phase)");
  sub->add_option("--pid", o.pid, "the running process to search")
      ->required()
      ->check(CLI::PositiveNumber);
  sub->add_option("--seconds", o.seconds, "how long to search (default 30)")
      ->check(CLI::Range(0.1, 86400.0));
  sub->add_option("--phase", o.phase, "global (default) or current: the phase searched")
      ->check(CLI::IsMember({"global", "current"}));
  sub->add_flag("--json", o.json, "print the search history graph as one JSON object at the end");
  sub->add_option("--checktime", o.checktime_ms, "mean milliseconds between stack samples")
      ->check(CLI::Range(0.1, 10000.0));
  sub->add_option("--sufficient-time", o.sufficient_time,
                  "seconds of agreeing data before a node concludes (default 6)")
      ->check(CLI::Range(0.001, 1e6));
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
  return sub;
}

int run_search_command(const search_command_options& o, std::ostream& out, std::ostream& err) {
  session_options so;
  so.deterministic = false;
  so.engine.native.delay.checktime_ns = to_ns(o.checktime_ms / 1000);
  so.command_line = "perfdm search --pid " + std::to_string(o.pid);
  std::ofstream record;
  if (!o.record.empty()) {
    record.open(o.record);
    if (!record) {
      err << "perfdm search: cannot write the recording " << o.record << '\n';
      return 1;
    }
    so.record = &record;
  }
  session s(so);
  std::map<std::uint64_t, std::string> states;  // node id: its last state
  auto start = std::chrono::steady_clock::now();
  bool refused = false;
  auto handle = [&](const session_line& l) {
    if (l.kind == session_line::error) {
      err << "perfdm search: " << l.xml << '\n';
      refused = true;
      return;
    }
    if (l.kind != session_line::event || !l.message.match_elements<shg_node_event>()) return;
    auto& n = l.message.get_as<shg_node_event>(0).node;
    auto& before = states[n.id];
    auto line = shg_conclusion_line(before, n);
    before = n.state;
    if (line.empty() || o.json) return;
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "[%6.1f s] ", t);
    out << stamp << line << '\n' << std::flush;
  };
  s.run_line(
      "<DYPER PID='DM' COMMAND='WATCH'><PROCESS PID='" + std::to_string(o.pid) + "'/></DYPER>",
      handle);
  if (refused) return 1;
  s.run_line("<DYPER PID='DM' COMMAND='STREAM'/>", handle);
  s.run_line(search_request_xml(o), handle);
  if (refused) return 1;

  struct sigaction sa {};
  sa.sa_handler = on_search_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(o.seconds));
  bool ended = false;
  while (!search_stop && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    s.drain_events(handle);
    if (!process_alive(o.pid)) {
      ended = true;
      break;
    }
  }
  s.drain_events(handle);
  if (ended && !o.json) out << "(the process exited)\n";
  shg_reply graph;
  s.run_line("<DYPER PID='DM' COMMAND='SHG'/>", [&](const session_line& l) {
    if (l.kind == session_line::reply && l.message.match_elements<shg_reply>())
      graph = l.message.get_as<shg_reply>(0);
  });
  if (o.json) {
    out << shg_json(graph.nodes) << '\n';
  } else {
    out << "search history graph:\n" << shg_tree(graph.nodes);
  }
  // The run's call paths as folded stacks and pprof (--folded, --pprof; docs/FLAME.md).
  if (o.profile.wanted()) {
    auto x = s.ask(caf::make_message(flame_export_request{o.pid}));
    std::vector<profile::counted_stack> stacks;
    if (x.match_elements<flame_export>()) stacks = export_stacks(x.get_as<flame_export>(0));
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
  return 0;
}

}  // namespace perfdm
