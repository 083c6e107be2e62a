#include "cli/top_command.hpp"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/readable_lines.hpp"
#include "cli/top_terminal.hpp"
#include "cli/xml_session.hpp"
#include "cli/stop_signals.hpp"
#include "messages/native_messages.hpp"
#include "messages/search_messages.hpp"
#include "messages/xml_codec.hpp"
#include "proc/descendant_watch.hpp"
#include "proc/mpi_job.hpp"
#include "proc/process_facts.hpp"
#include "proc/program_launcher.hpp"
#include "cli/io_preload.hpp"
#include "top/top_view.hpp"

namespace perfdm {

namespace {

template <class Reply>
std::optional<Reply> ask(session& s, const std::string& xml) {
  std::optional<Reply> out;
  s.run_line(xml, [&](const session_line& l) {
    if (l.kind == session_line::reply && l.message.match_elements<Reply>())
      out = l.message.get_as<Reply>(0);
  });
  return out;
}

}  // namespace

CLI::App* add_top_command(CLI::App& app, top_command_options& o) {
  auto* sub = app.add_subcommand(
      "top",
      "A full-screen terminal view of running processes (--pid, repeatable) or of a program "
      "it starts (-- CMD [ARGS...]): hottest functions on-CPU and off-CPU, threads, and the "
      "Performance Consultant's findings. Keys: c on-CPU, o off-CPU, t threads, f findings, "
      "Tab next view, q quit");
  sub->add_option("--pid", o.pids, "a running process to watch (repeatable)")
      ->check(CLI::PositiveNumber);
  sub->add_option("command", o.command, "after --: the program to start and watch");
  sub->add_option("--seconds", o.seconds, "quit after this long (default: at q)")
      ->check(CLI::Range(0.0, 86400.0));
  sub->add_flag("!--no-search", o.search, "do not run the Performance Consultant's search");
  sub->add_flag("!--no-io", o.io,
                "do not preload perfdm's I/O library into the program it starts (its file I/O "
                "is then sampled, not counted)");
  sub->add_option("--checktime", o.checktime_ms, "mean milliseconds between stack samples")
      ->check(CLI::Range(0.1, 10000.0));
  return sub;
}

int run_top_command(const top_command_options& o, std::ostream& out, std::ostream& err) {
  if (o.pids.empty() && o.command.empty()) {
    err << "perfdm top: name the program: --pid PID, or -- CMD [ARGS...]\n";
    return 1;
  }
  install_stop_signals();
  io_preload io(o.io && !o.command.empty());  // the program's file I/O, counted (--no-io)
  std::unique_ptr<launched_program> program;
  if (!o.command.empty()) {
    try {
      program = std::make_unique<launched_program>(o.command, true, io.environment());
    } catch (const launch_error& e) {
      err << "perfdm top: cannot start " << e.what() << '\n';
      return e.exit_code;
    }
  }
  session_options so;
  so.deterministic = false;
  so.engine.native.delay.checktime_ns = to_ns(o.checktime_ms / 1000);
  so.command_line = "perfdm top";
  session s(so);
  std::vector<int> pids = o.pids;
  // An MPI launcher (mpirun -np 3 app) is infrastructure: its ranks are watched as they
  // appear, as every other process the program starts (sh -c, a pipeline, workers).
  bool launcher = program && proc::mpi_launcher(proc::executable_of(program->pid()));
  if (program && !launcher) pids.insert(pids.begin(), program->pid());
  bool refused = false;
  auto check = [&](const session_line& l) {
    if (l.kind == session_line::error) {
      err << "perfdm top: " << error_sentence(l) << '\n';
      refused = true;
    }
  };
  for (auto pid : pids) {
    s.run_line(print_dm_request(watch_request{pid}), check);
    if (refused) return 1;
  }
  if (o.search) {
    s.run_line(print_dm_request(open_stream{}), check);
    s.run_line(print_dm_request(search_request{}), check);  // GLOBAL, START
  }
  if (program) program->release();

  terminal::start();
  top::top_model model;
  auto v = top::view::cpu;
  auto start = std::chrono::steady_clock::now();
  auto next_refresh = start;
  std::optional<int> exit_status;
  std::string name = program ? o.command.front() : "pid " + std::to_string(pids.front());
  std::vector<std::string> last_findings;
  proc::descendant_watch descendants;
  int ticks = 0;
  while (!stop_requested()) {
    int key = terminal::key(100);
    if (key == 'q' || key == 'Q') break;
    if (key == 'c') v = top::view::cpu;
    if (key == 'o') v = top::view::offcpu;
    if (key == 't') v = top::view::threads;
    if (key == 'f') v = top::view::findings;
    if (key == '\t') v = static_cast<top::view>((static_cast<int>(v) + 1) % 4);
    s.drain_events([](const session_line&) {});  // SHGNODE: FINDINGS says what they mean
    // A descendant may be gone before its WATCH: no error for that.
    if (program && !exit_status && ++ticks % 4 == 0)
      for (auto pid : descendants.look(program->descendants()))
        if (auto r = ask<process_info>(s, print_dm_request(watch_request{pid}))) pids.push_back(r->pid);
    for (auto pid : pids)
      if (auto r = ask<stacks_report>(s, print_dm_request(stacks_request{pid}))) model.stacks(*r);
    auto now = std::chrono::steady_clock::now();
    double t = std::chrono::duration<double>(now - start).count();
    if (o.seconds > 0 && t >= o.seconds) break;
    if (program && !exit_status) exit_status = program->wait_status();
    if (now < next_refresh && key < 0) continue;
    if (now >= next_refresh) {
      next_refresh = now + std::chrono::seconds(1);
      for (auto pid : pids)
        if (auto r = ask<cpu_profile_report>(s, print_dm_request(profile_request{pid}))) model.profile(*r);
      if (auto f = ask<findings_reply>(s, print_dm_request(findings_request{}))) {
        last_findings.clear();
        for (auto& x : f->findings) last_findings.push_back(x.text);
        model.findings(last_findings);
      }
    }
    char clock[48];
    std::snprintf(clock, sizeof clock, "%.0f s", t);
    model.status(name + " \u2014 " +
                 (exit_status ? launched_program::describe(*exit_status) : std::string(clock)));
    int w, h;
    terminal::size(w, h);
    terminal::draw(model.screen(v, w, h));
  }
  terminal::stop();
  // The answer stays on the terminal after the screen is gone.
  for (std::size_t i = 0; i < last_findings.size(); ++i)
    out << i + 1 << ". " << last_findings[i] << '\n';
  if (!program) return 0;
  if (exit_status) return launched_program::exit_code(*exit_status);
  program->terminate(2.0);
  return 0;
}

}  // namespace perfdm
