#include "actors/process_registry_reports.hpp"

#include <caf/event_based_actor.hpp>
#include <chrono>
#include <cmath>
#include <functional>

#include "dyper/dyper_readings.hpp"
#include "messages/xml_codec.hpp"
#include "messages/xml_print_announcement.hpp"

namespace perfdm {

namespace {

// Collects the report of process `pid` in DyPer's schema (dyper/dyper_report.hpp): the CPU
// profile and thread states from its native source while it is watched (or what it left
// when it exited), /proc, its frame counts (from its ingest actor while it runs) and the
// metric instances the data manager's STATUS lists for it; then calls done(body) or
// failed(reason).
void collect_report(registry_actor self, caf::actor dm, std::int32_t pid,
                    std::function<void(std::string)> done,
                    std::function<void(std::string)> failed) {
  auto& p = self->state.processes.at(pid);
  auto info = p.info;
  auto native = p.native;
  auto last_profile = p.native_last ? std::make_optional(p.native_last->profile) : std::nullopt;
  auto with_frames = [=](std::vector<frame_type_stats> frames) mutable {
    self->request(dm, std::chrono::seconds(30), status_query{})
        .then(
            [=](status_info& status) mutable {
              auto finish = [=](const cpu_profile_report* profile) mutable {
                auto i = self->state.processes.find(pid);
                if (i == self->state.processes.end()) return failed("the process is unknown");
                auto& q = i->second;
                auto started = thread_cpu_ns();
                auto readings = read_dyper_readings(pid, profile);
                readings.report_cost_ms = q.reports ? q.report_cost_ms / q.reports : 0.0;
                readings.min_counter = std::stoull(q.commands.variables.at("MIN_COUNTER"));
                if (!q.history) q.history = std::make_shared<dyper_report_history>(epoch_now_ms());
                auto report = q.history->monitor(readings);
                add_process_report_parts(report, info, frames, status);
                auto body = print_agent_report_monitor(report);
                q.report_cost_ms += static_cast<double>(thread_cpu_ns() - started) / 1e6;
                ++q.reports;
                if (profile) q.commands.overhead_ms = std::llround(profile->cost * 1e3);
                done(std::move(body));
              };
              if (!native) return finish(last_profile ? &*last_profile : nullptr);
              // Watched: the CPU section from the stack samples.
              self->request(native, std::chrono::seconds(30), profile_request{pid})
                  .then([=](cpu_profile_report& r) mutable { finish(&r); },
                        [=](caf::error&) mutable { finish(nullptr); });
            },
            [=](caf::error& e) mutable {
              failed("the data manager's status: " + dm_error_reason(e));
            });
  };
  if (!p.ingest) {
    with_frames(p.last.frame_types);
  } else {
    auto last = p.last.frame_types;
    self->request(p.ingest, std::chrono::seconds(10), frames_stats_query{})
        .then([=](frames_stats& s) mutable { with_frames(s.frame_types); },
              [=](caf::error&) mutable { with_frames(last); });  // it ended meanwhile
  }
}

}  // namespace

caf::result<caf::message> report_command(registry_actor self, caf::actor dm,
                                         const process_command& c) {
  auto rp = self->make_response_promise<caf::message>();
  collect_report(
      self, dm, c.pid, [=](std::string body) mutable { rp.deliver(answer(c, std::move(body))); },
      [=](std::string reason) mutable {
        rp.deliver(refusal(c, dm_error::internal, std::move(reason)));
      });
  return rp;
}

namespace {

// DyPer's agent pushes a REPORT every REPORTTIME ms while MONITOR or REPORTING is on.
bool reports_wanted(const observed_process& p) {
  auto& v = p.commands.variables;
  return std::stoll(v.at("REPORTTIME")) > 0 &&
         (v.at("MONITOR") == "true" || v.at("REPORTING") == "true") && (p.ingest || p.native);
}

}  // namespace

void schedule_report(registry_actor self, std::int32_t pid, bool restart) {
  auto& p = self->state.processes.at(pid);
  if (restart) {
    ++p.report_generation;
    p.report_scheduled = false;
  }
  if (p.report_scheduled || !reports_wanted(p)) return;
  p.report_scheduled = true;
  self->delayed_send(self,
                     std::chrono::milliseconds(std::stoll(p.commands.variables.at("REPORTTIME"))),
                     report_tick_atom::value, pid, p.report_generation);
}

// A periodic report, `<DYPER REPORT='pid' TIME='ms'>…</DYPER>` to every gateway connection
// (and, under its DyPer id, to the connection to a DyPer controller for the process).
void periodic_report(registry_actor self, caf::actor dm, std::int32_t pid,
                     std::uint64_t generation) {
  auto i = self->state.processes.find(pid);
  if (i == self->state.processes.end() || i->second.report_generation != generation) return;
  auto& p = i->second;
  p.report_scheduled = false;
  if (!reports_wanted(p)) return;
  if (p.skip_first_report) {
    p.skip_first_report = false;
    schedule_report(self, pid);
    return;
  }
  collect_report(
      self, dm, pid,
      [=](std::string body) {
        auto a = make_announcement(process_announcement::report, pid, epoch_now_ms(), body);
        for (auto& s : self->state.subscribers) self->send(s, a);
        schedule_report(self, pid);
      },
      [=](std::string) { schedule_report(self, pid); });
}

}  // namespace perfdm
