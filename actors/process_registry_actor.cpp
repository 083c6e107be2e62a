#include "actors/process_registry_actor.hpp"

#include "messages/evidence_messages.hpp"

#include <algorithm>
#include <caf/sec.hpp>
#include <caf/stateful_actor.hpp>
#include <map>
#include <memory>
#include <optional>

#include "actors/fan_out.hpp"
#include "sources/callgraph_report.hpp"
#include "actors/process_registry_details.hpp"
#include "actors/process_registry_flame.hpp"
#include "actors/process_registry_reports.hpp"
#include "actors/process_registry_state.hpp"
#include "messages/agent_replies.hpp"
#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/native_messages.hpp"
#include "messages/xml_codec.hpp"
#include "messages/xml_print_announcement.hpp"
#include "native/native_error.hpp"
#include "native/proc_stats.hpp"
#include "proc/mpi_job.hpp"
#include "shm/attach.hpp"
#include "shm/layout.hpp"
#include "shm/process_memory.hpp"
#include "shm/schema.hpp"
#include "shm/segment.hpp"
#include "sources/native_reports.hpp"

namespace perfdm {

namespace {

caf::error native_failure(const native::native_error& e) {
  auto code = e.code == native::native_errc::no_such_process ? dm_error::unknown_target
              : e.code == native::native_errc::not_permitted ? dm_error::not_allowed
                                                             : dm_error::internal;
  return make_dm_error(code, e.what());
}

// A native source that ended between the lookup and the request: its process exited.
caf::error source_failure(std::int32_t pid, const caf::error& e) {
  if (e == caf::sec::request_receiver_down)
    return make_dm_error(dm_error::unknown_target,
                         "process " + std::to_string(pid) + " exited; it is no longer watched");
  return e;
}

caf::error not_watched(std::int32_t pid) {
  return make_dm_error(dm_error::unknown_target,
                       "process " + std::to_string(pid) + " is not watched (WATCH it first)");
}

caf::error attach_failure(const shm::attach_error& e) {
  auto code = e.code == shm::attach_errc::no_such_process  ? dm_error::unknown_target
              : e.code == shm::attach_errc::not_permitted  ? dm_error::not_allowed
              : e.code == shm::attach_errc::segment_failed ? dm_error::internal
                                                           : dm_error::bad_argument;
  return make_dm_error(code, e.what());
}

}  // namespace

namespace {

// INSTRUMENT: attach or detach the frames through this registry's own ATTACH/DETACH, then
// reply when it took effect. Inserting into an attached process (or removing from a
// detached one) changes nothing and replies at once.
caf::result<caf::message> instrument(registry_actor self, const process_command& c, bool insert) {
  auto& p = self->state.processes.at(c.pid);
  auto patched = [c] {
    return answer(c, print_patch_reply(patch_reply{epoch_now_ms()}));
  };
  bool attached = p.attached;
  if (insert == attached) return patched();
  auto rp = self->make_response_promise<caf::message>();
  auto done = [=](process_info&) mutable { rp.deliver(patched()); };
  auto failed = [=](caf::error& e) mutable {
    rp.deliver(refusal(c, dm_error_code(e), dm_error_reason(e)));
  };
  if (insert)
    self->request(caf::actor_cast<caf::actor>(self), std::chrono::seconds(60),
                  attach_request{c.pid, {}, false, 0, 0})
        .then(done, failed);
  else
    self->request(caf::actor_cast<caf::actor>(self), std::chrono::seconds(60),
                  detach_request{c.pid})
        .then(done, failed);
  return rp;
}

// SHOWSTACK: every thread with its state and, when the process is watched (WATCH: the
// stack sampler), its stack; otherwise the threads and states from /proc alone.
caf::result<caf::message> showstack(registry_actor self, const process_command& c) {
  auto& p = self->state.processes.at(c.pid);
  if (p.native) {
    auto rp = self->make_response_promise<caf::message>();
    self->request(p.native, std::chrono::seconds(30), stacks_request{c.pid})
        .then(
            [=](stacks_report& r) mutable {
              rp.deliver(answer(c, print_reply_body(caf::make_message(r))));
            },
            [=](caf::error& e) mutable {
              rp.deliver(refusal(c, dm_error_code(e), dm_error_reason(e)));
            });
    return rp;
  }
  try {
    auto r = stacks_report_of(c.pid, static_cast<double>(epoch_now_ms()) / 1e3,
                              native::read_threads(c.pid));
    return answer(c, print_reply_body(caf::make_message(r)));
  } catch (const native::native_error& e) {
    return refusal(c, dm_error_code(native_failure(e)), e.what());
  }
}

caf::result<caf::message> run_command(registry_actor self, caf::actor dm,
                                      const process_command& c) {
  auto i = self->state.processes.find(c.pid);
  if (i == self->state.processes.end())
    return refusal(c, dm_error::unknown_target,
                   "no process '" + std::to_string(c.pid) + "' is known");
  if (!c.dypatch && c.command == "SETDETAIL") return setdetail_command(self, dm, c);
  if (!c.dypatch && (c.command == "FLAMEGRAPH" || c.command == "TIMELINE"))
    return flame_command(self, c);
  process_command_outcome out;
  try {
    out = run_process_command(i->second.commands, i->second.info, c);
  } catch (const process_command_error& e) {
    return refusal(c, e.code, e.what());
  } catch (const std::exception& e) {
    return refusal(c, dm_error::internal, e.what());
  }
  switch (out.follow_up) {
    case process_command_outcome::attach:
      return instrument(self, c, true);
    case process_command_outcome::detach:
      return instrument(self, c, false);
    case process_command_outcome::report:
      return report_command(self, dm, c);
    case process_command_outcome::showstack:
      return showstack(self, c);
    case process_command_outcome::none:
      break;
  }
  if (!c.dypatch && c.command == "SET")
    schedule_report(self, c.pid, c.argument.find("REPORTTIME") != std::string::npos);
  // The native source follows the settings from its next sample on.
  if (!c.dypatch && i->second.native &&
      (c.command == "SET" || c.command == "USETHREAD" || c.command == "CLASSES"))
    self->send(i->second.native, native_settings_of(i->second.commands));
  return answer(c, std::move(out.body));
}

caf::behavior process_registry_actor(caf::stateful_actor<registry_state>* self, caf::actor dm,
                                     ingest_options options, native_options native_opts) {
  auto announce = [=](process_announcement::kind_t kind, std::int32_t pid) {
    auto a = make_announcement(kind, pid, epoch_now_ms());
    for (auto& s : self->state.subscribers) self->send(s, a);
  };
  self->set_down_handler([=](caf::down_msg& x) {
    auto& subs = self->state.subscribers;
    subs.erase(std::remove_if(subs.begin(), subs.end(),
                              [&](const caf::actor& s) { return s.address() == x.source; }),
               subs.end());
    for (auto& [pid, p] : self->state.processes) {
      if (p.ingest && p.ingest.address() == x.source) {
        p.ingest = nullptr;
        if (p.attached) announce(process_announcement::end, pid);  // it exited (a DETACH announced already)
        p.attached = false;
      }
      if (p.native && p.native.address() == x.source) {
        p.native = nullptr;
        if (!p.attached) announce(process_announcement::end, pid);  // a watched process exited
      }
      p.update_flags();
    }
  });
  // The native source of a watched process, or null.
  auto native_of = [=](std::int32_t pid) {
    auto i = self->state.processes.find(pid);
    return i == self->state.processes.end() ? caf::actor{} : i->second.native;
  };
  // What a watched process that exited left (native_ended), or null.
  auto last_of = [=](std::int32_t pid) -> const native_ended* {
    auto i = self->state.processes.find(pid);
    return i == self->state.processes.end() || !i->second.native_last ? nullptr
                                                                      : &*i->second.native_last;
  };
  return {
      [=](native_ended& x) {  // a watched process exited: keep what PROFILE and STACKS answer
        if (auto i = self->state.processes.find(x.profile.pid); i != self->state.processes.end())
          i->second.native_last = std::move(x);
      },
      [=](native_flame_ended& x) {  // and its call paths (FLAMEGRAPH, TIMELINE, the log)
        if (auto i = self->state.processes.find(x.pid); i != self->state.processes.end())
          i->second.flame_last = std::move(x.store);
      },
      [=](flame_export_request& x) { return flame_export_answer(self, x); },
      [=](attach_request& x) -> caf::result<process_info> {
        auto& st = self->state;
        // A detached process may be attached again while its old ingest actor still reads
        // what was written before the detach.
        if (auto i = st.processes.find(x.pid); i != st.processes.end() && i->second.attached)
          return make_dm_error(dm_error::not_allowed,
                               "process " + std::to_string(x.pid) + " is attached already");
        shm::attachment attached;
        try {
          shm::attach_options o;
          if (!x.schema.empty()) o.expected = shm::schema_descriptors(x.schema);
          o.force = x.force;
          shm::segment_options geometry;
          if (x.lanes) geometry.lanes = x.lanes;
          if (x.capacity) geometry.capacity = x.capacity;
          o.create_segment = [geometry](int pid, const std::string&, const std::string& descriptor,
                                        std::uint64_t handle, std::uint32_t clock) {
            auto with_clock = geometry;
            with_clock.clock = clock;
            return shm::segment::create_for_attach(pid, descriptor, handle, with_clock);
          };
          attached = shm::attach(x.pid, o);
        } catch (const shm::attach_error& e) {
          return attach_failure(e);
        } catch (const shm::schema_error& e) {
          return make_dm_error(dm_error::bad_argument, e.what());
        }
        caf::actor ingest;
        try {
          ingest = spawn_frame_ingest(self, dm, attached, options);
        } catch (const std::exception& e) {
          try {
            shm::detach(x.pid);
          } catch (const shm::attach_error&) {
          }
          return make_dm_error(dm_error::internal,
                               std::string("cannot read the new segments: ") + e.what());
        }
        self->monitor(ingest);
        auto& o = st.processes[x.pid];  // a new attach starts afresh; a watch stays
        o.info = process_info{attached.pid,
                              attached.name,
                              attached.executable,
                              process_resource(attached.name, attached.pid),
                              {},
                              true,
                              false};
        for (auto& f : attached.frames) o.info.frames.push_back(f.struct_name);
        o.ingest = ingest;
        o.attached = true;
        // Attaching is monitoring, as watching is: MONITOR says so (and the periodic REPORTs
        // go while it is on).
        o.commands.variables["MONITOR"] = "true";
        if (!o.history) o.history = std::make_shared<dyper_report_history>(epoch_now_ms());
        o.last = {};
        o.update_flags();
        auto info = o.info;
        auto pid = x.pid;
        auto rp = self->make_response_promise<process_info>();
        self->request(ingest, std::chrono::seconds(60), ingest_start_atom::value)
            .then(
                [=](ok_reply) mutable {
                  rp.deliver(info);
                  announce(process_announcement::start, pid);
                  schedule_report(self, pid);  // REPORTTIME set before a re-attach
                },
                [=](caf::error& e) mutable {
                  self->send_exit(ingest, caf::exit_reason::user_shutdown);
                  try {
                    shm::detach(pid);
                  } catch (const shm::attach_error&) {
                  }
                  rp.deliver(e);
                });
        return rp;
      },
      [=](detach_request& x) -> caf::result<caf::message> {
        auto i = self->state.processes.find(x.pid);
        if (i == self->state.processes.end() || !i->second.ingest)
          return make_dm_error(dm_error::unknown_target,
                               "process " + std::to_string(x.pid) + " is not attached");
        auto rp = self->make_response_promise();
        auto pid = x.pid;
        self->request(i->second.ingest, std::chrono::seconds(30), x)
            .then(
                [=](process_info& info) mutable {
                  // Not attached from now on, though its ingest actor still reads what was
                  // written.
                  if (auto j = self->state.processes.find(pid); j != self->state.processes.end()) {
                    j->second.attached = false;
                    j->second.update_flags();
                    info.active = j->second.info.active;
                    info.watched = j->second.info.watched;
                  }
                  rp.deliver(info);
                  announce(process_announcement::end, pid);
                },
                [=](caf::error& e) mutable { rp.deliver(e); });
        return rp;
      },
      [=](watch_request& x) -> caf::result<process_info> {
        auto& st = self->state;
        if (auto i = st.processes.find(x.pid); i != st.processes.end() && i->second.native)
          return make_dm_error(dm_error::not_allowed,
                               "process " + std::to_string(x.pid) + " is watched already");
        process_info info;
        std::shared_ptr<native::stack_sampler> sampler;
        try {
          // Both read now, so that a process that cannot be observed is refused at once.
          auto stats = native::read_process_stats(x.pid, {false, false});
          info.pid = x.pid;
          // An MPI rank is named by its rank too (proc/mpi_job.hpp): "relax.rank2".
          info.name = proc::ranked_process_name(stats.name, proc::process_rank(x.pid));
          info.resource = process_resource(info.name, x.pid);
          try {
            info.executable = shm::process_executable(x.pid);
          } catch (const shm::attach_error&) {
            // Another user's executable path may be hidden; the sampler below says why.
          }
          if (native_opts.stack_sampling) sampler = std::make_shared<native::stack_sampler>(x.pid);
        } catch (const native::native_error& e) {
          return native_failure(e);
        }
        auto& o = st.processes[x.pid];
        o.native_last.reset();  // a process watched again starts a new profile
        o.flame_last.reset();
        // Watching is monitoring: MONITOR and CPUTIME say so, CHECKTIME is the engine's.
        o.commands.variables["MONITOR"] = "true";
        o.commands.variables["CPUTIME"] = native_opts.stack_sampling ? "true" : "false";
        o.commands.variables["CHECKTIME"] =
            std::to_string(native_opts.delay.checktime_ns / 1'000'000);
        auto settings = native_settings_of(o.commands);
        settings.checktime_ns = native_opts.delay.checktime_ns;  // also below a millisecond
        auto source = spawn_native_source(self, dm, info, sampler, native_opts, settings);
        self->monitor(source);
        self->send(source, st.current_phase);  // its call paths are kept by phase
        bool announced = o.attached;     // an attached process announced itself already
        if (!o.attached) o.info = info;  // an attached process keeps its frame types
        o.native = source;
        o.update_flags();
        if (!o.history) o.history = std::make_shared<dyper_report_history>(epoch_now_ms());
        auto rp = self->make_response_promise<process_info>();
        auto pid = x.pid;
        self->request(source, std::chrono::seconds(60), native_start_atom::value)
            .then(
                [=](ok_reply) mutable {
                  auto i = self->state.processes.find(pid);
                  rp.deliver(i != self->state.processes.end() ? i->second.info : info);
                  if (!announced) announce(process_announcement::start, pid);
                  schedule_report(self, pid);  // REPORTTIME set before a re-watch
                },
                [=](caf::error& e) mutable {
                  self->send_exit(source, caf::exit_reason::user_shutdown);
                  rp.deliver(e);
                });
        return rp;
      },
      [=](unwatch_request& x) -> caf::result<process_info> {
        auto i = self->state.processes.find(x.pid);
        if (i != self->state.processes.end() && !i->second.native && i->second.native_last) {
          i->second.native_last.reset();  // it exited: UNWATCH forgets its last profile
          i->second.flame_last.reset();
          return i->second.info;
        }
        if (i == self->state.processes.end() || !i->second.native) return not_watched(x.pid);
        auto rp = self->make_response_promise<process_info>();
        auto pid = x.pid;
        self->request(i->second.native, std::chrono::seconds(30), x)
            .then(
                [=](process_info& info) mutable {
                  if (auto j = self->state.processes.find(pid); j != self->state.processes.end()) {
                    j->second.native = nullptr;
                    j->second.update_flags();
                    info = j->second.info;
                    if (!j->second.attached) announce(process_announcement::end, pid);
                  }
                  rp.deliver(info);
                },
                [=](caf::error& e) mutable { rp.deliver(source_failure(pid, e)); });
        return rp;
      },
      // With a timeout, so that a native source stuck in a system call (a ptrace stop that
      // never comes) costs an error reply, never a front end waiting for ever.
      [=](profile_request& x) -> caf::result<cpu_profile_report> {
        auto a = native_of(x.pid);
        if (auto last = last_of(x.pid); !a && last) return last->profile;
        if (!a) return not_watched(x.pid);
        auto rp = self->make_response_promise<cpu_profile_report>();
        self->request(a, std::chrono::seconds(30), x)
            .then([=](cpu_profile_report& r) mutable { rp.deliver(r); },
                  [=](caf::error& e) mutable { rp.deliver(source_failure(x.pid, e)); });
        return rp;
      },
      // CALLGRAPH of one process (also one that exited, as PROFILE), or of every watched one
      // merged (an empty graph when none is watched).
      [=](callgraph_request& x) -> caf::result<callgraph_report> {
        if (x.pid != 0) {
          auto a = native_of(x.pid);
          if (auto last = last_of(x.pid); !a && last) return last->callgraph;
          if (!a) return not_watched(x.pid);
          auto rp = self->make_response_promise<callgraph_report>();
          self->request(a, std::chrono::seconds(30), x)
              .then([=](callgraph_report& r) mutable { rp.deliver(r); },
                    [=](caf::error& e) mutable { rp.deliver(source_failure(x.pid, e)); });
          return rp;
        }
        std::vector<std::pair<std::int32_t, caf::actor>> sources;
        for (auto& [pid, p] : self->state.processes)
          if (p.native) sources.emplace_back(pid, p.native);
        auto rp = self->make_response_promise<callgraph_report>();
        auto merged = std::make_shared<callgraph_report>();
        // A process that exits meanwhile is left out, not an error: the others still answer.
        fan_out<callgraph_report>(
            self, reply_wait::then, std::chrono::seconds(30), sources, callgraph_request{},
            [=](std::int32_t, callgraph_report& r) { merge_callgraph_report(*merged, r); },
            [=]() mutable { rp.deliver(*merged); }, [](std::int32_t, caf::error&) {}, true);
        return rp;
      },
      // The search's evidence: every watched process's window at the foci asked (a process
      // that exits meanwhile is left out).
      [=](window_query& x) -> caf::result<window_answers> {
        std::vector<std::pair<std::int32_t, caf::actor>> sources;
        for (auto& [pid, p] : self->state.processes)
          if (p.native) sources.emplace_back(pid, p.native);
        auto rp = self->make_response_promise<window_answers>();
        auto merged = std::make_shared<window_answers>();
        fan_out<window_answer>(
            self, reply_wait::then, std::chrono::seconds(30), sources, x,
            [=](std::int32_t, window_answer& r) { merged->processes.push_back(std::move(r)); },
            [=]() mutable { rp.deliver(*merged); }, [](std::int32_t, caf::error&) {}, true);
        return rp;
      },
      [=](stacks_request& x) -> caf::result<stacks_report> {
        auto a = native_of(x.pid);
        if (auto last = last_of(x.pid); !a && last) return last->stacks;
        if (!a) return not_watched(x.pid);
        auto rp = self->make_response_promise<stacks_report>();
        self->request(a, std::chrono::seconds(30), x)
            .then([=](stacks_report& r) mutable { rp.deliver(r); },
                  [=](caf::error& e) mutable { rp.deliver(source_failure(x.pid, e)); });
        return rp;
      },
      [=](frames_stats& last) {  // an ingest actor that ended
        for (auto& t : last.frame_types)
          if (auto i = self->state.processes.find(t.pid); i != self->state.processes.end()) {
            i->second.last.frame_types.push_back(t);
          }
      },
      [=](process_command& c) -> caf::result<caf::message> { return run_command(self, dm, c); },
      [=](report_tick_atom, std::int32_t pid, std::uint64_t generation) {
        periodic_report(self, dm, pid, generation);
      },
      [=](data_event&) {},
      [=](fold_event&) {},
      // The data manager tells of every phase start (and the detail stream, once open).
      [=](new_phase_event& x) { flame_phase_started(self, x.phase); },
      [=](samplerate_event&) {},
      [=](new_metric_event&) {},
      [=](new_resource_event&) {},
      [=](process_announcements& x) {
        self->monitor(x.subscriber);
        self->state.subscribers.push_back(x.subscriber);
      },
      [=](list_processes) {
        process_list out;
        for (auto& [pid, p] : self->state.processes) out.processes.push_back(p.info);
        return out;
      },
      [=](frames_stats_query) -> caf::result<frames_stats> {
        auto rp = self->make_response_promise<frames_stats>();
        auto out = std::make_shared<frames_stats>();
        std::vector<std::pair<std::int32_t, caf::actor>> live;
        for (auto& [pid, p] : self->state.processes) {
          if (p.ingest)
            live.emplace_back(pid, p.ingest);
          else
            out->frame_types.insert(out->frame_types.end(), p.last.frame_types.begin(),
                                    p.last.frame_types.end());
        }
        // A source that ended meanwhile counts as answered.
        fan_out<frames_stats>(
            self, reply_wait::then, std::chrono::seconds(10), live, frames_stats_query{},
            [=](std::int32_t, frames_stats& s) {
              out->frame_types.insert(out->frame_types.end(), s.frame_types.begin(),
                                      s.frame_types.end());
            },
            [=]() mutable { rp.deliver(*out); }, [](std::int32_t, caf::error&) {}, true);
        return rp;
      },
  };
}

}  // namespace

caf::actor spawn_process_registry(caf::event_based_actor* dm, ingest_options options,
                                  native_options native) {
  return dm->spawn<caf::linked>(process_registry_actor, caf::actor_cast<caf::actor>(dm), options,
                                native);
}

}  // namespace perfdm
