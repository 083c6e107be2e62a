#include "cli/dm_log_writer.hpp"

#include <unistd.h>

#include <caf/blocking_actor.hpp>
#include <caf/exit_reason.hpp>
#include <caf/others.hpp>
#include <caf/send.hpp>
#include <chrono>
#include <filesystem>

#include "log/modules/dm_log_module.hpp"
#include "log/modules/frames_log_module.hpp"
#include "log/modules/native_log_module.hpp"
#include "log/modules/pc_log_module.hpp"
#include "log/log_core.hpp"
#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/native_messages.hpp"
#include "messages/process_messages.hpp"
#include "messages/record_messages.hpp"
#include "messages/xml_codec.hpp"
#include "proc/process_facts.hpp"

namespace perfdm {

namespace {

template <class T>
T reply_as(const caf::message& m) {
  if (!m.match_elements<T>())
    throw log_error("the data manager did not answer as expected: " + caf::to_string(m));
  return m.get_as<T>(0);
}

void log_writer_loop(caf::blocking_actor* self, caf::actor dm, dm_log_job job,
                     std::string default_path) {
  auto ask = [&](const caf::message& request) {
    caf::message reply;
    self->request(dm, caf::infinite, request)
        .receive([&](caf::error& e) { reply = caf::make_message(std::move(e)); },
                 caf::others >> [&](caf::message_view& x) -> caf::result<caf::message> {
                   reply = x.copy_content_to_message();
                   return caf::message{};
                 });
    return reply;
  };
  // Its reads are the engine's own: a recording comments them (replay has no LOG to serve).
  self->send(dm, record_origin{"log writer", false});
  bool running = true;
  self->receive_while(running)(
      [&](write_log& request) -> caf::result<log_written> {
        auto file = request.file.empty() ? default_path : request.file;
        try {
          return log_written{file, write_dm_log(ask, job, file)};
        } catch (const std::exception& e) {
          return make_dm_error(dm_error::internal,
                               std::string("cannot write the log: ") + e.what());
        }
      },
      [&](caf::exit_msg&) { running = false; });
}

}  // namespace

std::int64_t epoch_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::uint64_t write_dm_log(const dm_ask& ask, const dm_log_job& job, const std::string& path) {
  dm_snapshot snap;
  snap.metrics = reply_as<metric_list>(ask(caf::make_message(list_metrics{}))).metrics;
  snap.resources = reply_as<resource_list>(ask(caf::make_message(list_resources{}))).resources;
  snap.phases = reply_as<phase_list>(ask(caf::make_message(list_phases{}))).phases;
  snap.status = reply_as<status_info>(ask(caf::make_message(status_query{})));
  auto read = [&](mi_handle mi, phase_ref which, std::string name) {
    auto data = reply_as<histogram_data>(ask(caf::make_message(data_request{mi, which})));
    snap.histograms.push_back({std::move(name), std::move(data)});
  };
  for (auto& mi : snap.status.mis) {
    if (mi.has_global) read(mi.id, phase_ref{phase_type::global, false, {}}, "GLOBAL");
    if (mi.has_current) read(mi.id, phase_ref{phase_type::current, false, {}}, "CURRENT");
    for (auto p : mi.archived)
      read(mi.id, phase_ref{phase_type::current, true, p}, "phase " + to_string(p));
  }
  log_core_options o;
  o.module_memory_bytes = job.log_memory_bytes;
  o.compression = job.compression;
  log_core core(o);
  auto& record = core.job();
  record.command_line = job.command_line;
  record.host = proc::host_name();
  record.start_ns = job.start_ns;
  record.end_ns = epoch_now_ns();
  record.metadata = {
      {"perfdm.version", "0.1.0"}, {"clock", job.clock}, {"now", format_number(snap.status.now)}};
  auto processes = reply_as<process_list>(ask(caf::make_message(list_processes{})));
  for (auto& p : processes.processes) record.pids.push_back(static_cast<std::uint64_t>(p.pid));
  auto frames = reply_as<frames_stats>(ask(caf::make_message(frames_stats_query{})));
  // The frames module asks first: it is small, and the DM module takes what is left.
  add_frames_module(core, frames, core.memory_left() / 16);
  // The profiles of the processes watched (or watched until they exited); the others answer
  // PROFILE with an error and have none.
  std::vector<native_log_process> natives;
  for (auto& p : processes.processes) {
    auto reply = ask(caf::make_message(profile_request{p.pid}));
    if (!reply.match_elements<cpu_profile_report>()) continue;
    natives.push_back({p.resource, reply.get_as<cpu_profile_report>(0), {}});
    auto flame = ask(caf::make_message(flame_export_request{p.pid}));
    if (flame.match_elements<flame_export>())
      natives.back().flame = flame.get_as<flame_export>(0).phases;
  }
  if (!natives.empty()) add_native_module(core, natives, core.memory_left() / 8);
  // The Performance Consultant's graph, when a search ran.
  auto graph = ask(caf::make_message(shg_request{}));
  if (graph.match_elements<shg_reply>() && !graph.get_as<shg_reply>(0).nodes.empty())
    add_pc_module(core, graph.get_as<shg_reply>(0).nodes, core.memory_left() / 8);
  add_dm_module(core, snap, core.memory_left());
  core.write(path);
  return std::filesystem::file_size(path);
}

caf::actor spawn_dm_log_writer(caf::actor_system& sys, caf::actor dm, dm_log_job job,
                               std::string default_path) {
  return sys.spawn<caf::detached>(log_writer_loop, std::move(dm), std::move(job),
                                  std::move(default_path));
}

}  // namespace perfdm
