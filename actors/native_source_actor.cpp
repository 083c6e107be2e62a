#include "actors/native_source_actor.hpp"

#include <caf/stateful_actor.hpp>
#include <set>

#include "actors/source_registration.hpp"
#include "dm/histogram.hpp"
#include "iojob/segment_snapshot.hpp"
#include "iolive/file_sample_builder.hpp"
#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/evidence_messages.hpp"
#include "messages/record_messages.hpp"
#include "messages/source_messages.hpp"
#include "native/call_graph.hpp"
#include "native/native_error.hpp"
#include "native/pc_resources.hpp"
#include "native/proc_stats.hpp"
#include "native/thread_states.hpp"
#include "sources/callgraph_report.hpp"
#include "profile/flame_feed.hpp"
#include "profile/flame_reports.hpp"
#include "sources/native_reports.hpp"
#include "sources/pc_sample_builder.hpp"
#include "sources/proc_sample_builder.hpp"
#include "window/library_evidence.hpp"
#include "window/sample_window.hpp"
#include "proc/process_facts.hpp"
#include "window/window_evidence.hpp"

namespace perfdm {

namespace {

using proc_tick_atom = caf::atom_constant<caf::atom("nattick")>;
using stack_tick_atom = caf::atom_constant<caf::atom("natstack")>;
using release_tick_atom = caf::atom_constant<caf::atom("natlate")>;

caf::error native_failure(const native::native_error& e) {
  auto code = e.code == native::native_errc::no_such_process ? dm_error::unknown_target
              : e.code == native::native_errc::not_permitted ? dm_error::not_allowed
                                                             : dm_error::internal;
  return make_dm_error(code, e.what());
}

}  // namespace

struct native_source_state {
  caf::actor dm;
  caf::actor registry;
  process_info info;
  native_options options;
  native_settings settings;
  std::shared_ptr<native::stack_sampler> sampler;
  std::unique_ptr<proc_sample_builder> proc;
  std::unique_ptr<pc_sample_builder> pc;          // the Performance Consultant's metrics
  std::unique_ptr<iolive::file_sample_builder> files;  // the I/O library's counts (file.*)
  std::string io_job_dir;  // the job directory it was started in, "" if none
  std::string io_segment;  // the segment it counts into, "" until it has one
  bool io_segment_ended = false;
  std::unique_ptr<window::sample_window> window;  // its evidence: the recent stack samples
  std::unique_ptr<window::file_window> io_window;  // and the I/O library's recent readings
  native::call_graph calls;
  native::cpu_profile profile;
  native::thread_state_table thread_states;
  // The call paths per phase, slice, thread and state (FLAMEGRAPH, TIMELINE, the log).
  std::shared_ptr<profile::call_path_store> flame = std::make_shared<profile::call_path_store>();
  std::int64_t cost_ns = 0;            // what the stack samples cost the program, all together
  native::stack_snapshot last;         // the latest stack sample (kept when the process exits)
  std::uint64_t stack_generation = 0;  // a stack tick of an older generation is stale
  std::unique_ptr<native::sampling_delay> delay;
  time_ns interval = base_bucket_width;
  std::int64_t last_stack_ns = 0;  // monotonic time of the previous stack sample
  std::set<int> defined_threads;
  bool started = false;
  bool proc_ticking = false;
  bool release_scheduled = false;  // a release_tick_atom is on its way
  bool ended = false;
  static inline const char* name = "native_source";

  time_ns engine_time(std::int64_t monotonic) const {
    return monotonic - options.origin_monotonic_ns;
  }
  bool stack_sampling() const {
    return started && !ended && options.stack_sampling && sampler && settings.monitor &&
           settings.cputime;
  }
  // Whether a function of a module is I/O code, by the process's code classes.
  native::io_predicate is_io() const {
    return [this](const std::string& module, const std::string& function) {
      return is_io_type(code_type(settings.classes, module, function));
    };
  }
  cpu_profile_report profile_report() const;
  stacks_report stacks_of(const native::stack_snapshot& snap) const;
};

cpu_profile_report native_source_state::profile_report() const {
  auto r = perfdm::profile_report(
      info.pid, profile.summary(), thread_states.counts(),
      [this](const std::string& module, const std::string& function) {
        return code_type(settings.classes, module, function);
      });
  r.checktime = to_seconds(delay->mean_ns());
  r.cost = static_cast<double>(cost_ns) / 1e9;
  return r;
}

stacks_report native_source_state::stacks_of(const native::stack_snapshot& snap) const {
  return stacks_report_of(info.pid, to_seconds(engine_time(snap.monotonic_ns)), snap);
}

namespace {

caf::behavior native_source_actor(caf::stateful_actor<native_source_state>* self, caf::actor dm,
                                  process_info info, std::shared_ptr<native::stack_sampler> sampler,
                                  native_options options, caf::actor registry,
                                  native_settings settings) {
  auto& st = self->state;
  st.dm = dm;
  st.registry = std::move(registry);
  st.settings = std::move(settings);
  st.options.max_depth = st.settings.max_depth;
  st.info = std::move(info);
  st.options = options;
  st.sampler = std::move(sampler);
  st.proc = std::make_unique<proc_sample_builder>(st.info.resource);
  st.pc = std::make_unique<pc_sample_builder>(
      native::sampled_process{native::host_part(), st.info.name, st.info.pid});
  st.window = std::make_unique<window::sample_window>(st.pc->process(), options.window);
  st.io_window = std::make_unique<window::file_window>(options.window);
  st.files = std::make_unique<iolive::file_sample_builder>(st.pc->process());
  st.io_job_dir = iolive::io_job_dir_of(st.info.pid);
  st.pc->set_reads_io_always(true);  // the window counts I/O operations too
  st.profile = native::cpu_profile(options.detail);
  st.delay = std::make_unique<native::sampling_delay>(options.delay);
  st.delay->set_checktime(st.settings.checktime_ns);

  self->monitor(dm);
  self->set_down_handler([=](caf::down_msg&) { self->quit(); });
  self->send(dm, record_origin{"source " + st.info.resource, true});

  // Threads get resources as they are seen, so that a front end can focus on one.
  auto define_threads = [=](const std::vector<int>& tids) {
    auto& s = self->state;
    for (int tid : tids)
      if (s.defined_threads.insert(tid).second)
        self->request(s.dm, std::chrono::seconds(30), define_resource{s.proc->thread_resource(tid)})
            .then([](resource_info&) {}, [](caf::error&) {});
  };
  auto define_resources = [=](const std::vector<std::string>& names) {
    for (auto& name : names)
      self->request(self->state.dm, std::chrono::seconds(30), define_resource{name})
          .then([](resource_info&) {}, [](caf::error&) {});
  };
  // The I/O library's counters, when the process has the library: its segment read whole,
  // each file's totals turned into samples of the collecting file.* MIs, new files defined
  // as /File resources. A process that execs counts into a new segment.
  auto read_io = [=] {
    auto& s = self->state;
    if (s.io_segment.empty() || s.io_segment_ended) {
      auto path = iolive::find_io_segment(s.info.pid, s.io_job_dir);
      if (path.empty() || path == s.io_segment) return;
      s.io_segment = path;
    }
    try {
      auto snapshot = io::read_segment(s.io_segment);
      const auto ticks = io::read_ticks();
      const auto realtime = io::realtime_ns();
      const auto t = s.engine_time(native::monotonic_ns());
      auto reading = iolive::totals_of(snapshot, ticks, realtime);
      s.io_segment_ended = reading.ended;
      s.io_window->add(t, realtime - t, reading);
      std::vector<sample> out;
      define_resources(s.files->add(reading, realtime - t, t, out));
      if (!out.empty())
        self->request(s.dm, caf::infinite, source_samples{std::move(out)})
            .then([](samples_ack&) {}, [](caf::error&) {});
    } catch (const std::exception&) {
      // Removed with its job (the process that started it ended) or not a segment: look again.
      s.io_segment.clear();
    }
  };
  // The process is gone (exited: its last profile and stacks go to the registry first) or
  // unwatched: stop being a source and end.
  auto finish = [=](bool exited) {
    auto& s = self->state;
    if (s.ended) return;
    if (exited) read_io();  // what it counted in its last interval
    s.ended = true;
    if (exited && s.registry) {
      native_ended last{s.profile_report(), s.stacks_of(s.last),
                        to_callgraph_report(s.calls.view(), s.info.pid)};
      last.profile.ended = last.stacks.ended = last.callgraph.ended = true;
      self->send(s.registry, std::move(last));
      self->send(s.registry, native_flame_ended{s.info.pid, std::move(s.flame)});
    }
    self->send(s.dm, source_unregister{caf::actor_cast<caf::actor>(self)});
    self->quit();
  };
  // The next stack sample, CHECKTIME away on average, unless stack sampling is off. A new
  // generation makes any tick still on its way stale, so that a change of the settings takes
  // effect at once (a 10 s delay drawn before SET CHECKTIME does not hold it up).
  // A thread a sample interrupted but that had not stopped (no CPU for it yet) stops when it
  // next runs: let it go within a few milliseconds of that, not at the next sample.
  auto release_late_soon = [=] {
    auto& s = self->state;
    if (s.release_scheduled || !s.sampler || s.sampler->late_threads() == 0) return;
    s.release_scheduled = true;
    self->delayed_send(self, std::chrono::milliseconds(5), release_tick_atom::value);
  };
  auto schedule_stack = [=] {
    auto& s = self->state;
    release_late_soon();
    ++s.stack_generation;
    if (!s.stack_sampling()) return;
    self->delayed_send(self, std::chrono::nanoseconds(s.delay->next_ns()), stack_tick_atom::value,
                       s.stack_generation);
  };

  return {
      [=](native_start_atom) -> caf::result<ok_reply> {
        auto rp = self->make_response_promise<ok_reply>();
        auto& s = self->state;
        std::vector<source_definition> definitions{define_resource{s.info.resource}};
        for (auto& m : proc_sample_builder::metrics())
          definitions.emplace_back(define_metric{m.name, m.style, m.units});
        for (auto& m : iolive::file_sample_builder::metrics())
          definitions.emplace_back(define_metric{m.name, metric_style::counter, m.units});
        for (auto& m : native::pc_metric_definitions())
          definitions.emplace_back(define_metric{
              m.name, m.counter ? metric_style::counter : metric_style::sampled, m.units});
        for (auto& r : s.pc->initial_resources()) definitions.emplace_back(define_resource{r});
        define_and_register(
            self, s.dm, definitions,
            [=]() mutable {
              auto& s = self->state;
              s.started = true;
              try {
                define_threads(native::thread_ids(s.info.pid));
              } catch (const native::native_error&) {
                // It exited: the first tick finds out and ends the source.
              }
              schedule_stack();
              rp.deliver(ok_reply{});
            },
            [=](caf::error& e) mutable { rp.deliver(e); });
        return rp;
      },
      [=](source_update& u) {
        auto& s = self->state;
        if (u.interval > 0) s.interval = to_ns(u.interval);
        s.proc->set_collecting(u.mis);
        s.pc->set_collecting(u.mis);
        s.files->set_collecting(u.mis);
        if (!s.proc_ticking) {
          s.proc_ticking = true;
          self->send(self, proc_tick_atom::value);
        }
      },
      // Once per sampling interval: read what is enabled and send it; check the process is
      // still there even when nothing is enabled.
      [=](proc_tick_atom) {
        auto& s = self->state;
        if (s.ended) return;
        if (!proc::process_alive(s.info.pid)) return finish(true);
        if (s.settings.monitor) read_io();
        if (s.proc->collecting() && s.settings.monitor) {
          try {
            auto options = s.proc->needs();
            auto stats = native::read_process_stats(s.info.pid, options);
            auto t = s.engine_time(native::monotonic_ns());
            std::vector<sample> out;
            s.proc->add(stats, t, out);
            if (options.threads) {
              std::vector<int> tids;
              for (auto& th : stats.per_thread) tids.push_back(th.tid);
              define_threads(tids);
            }
            if (!out.empty())
              self->request(s.dm, caf::infinite, source_samples{std::move(out)})
                  .then([](samples_ack&) {}, [](caf::error&) {});
          } catch (const native::native_error& e) {
            if (e.code == native::native_errc::no_such_process) return finish(true);
            // Anything else (a /proc line it cannot read) costs this reading only.
          }
        }
        auto delay = next_reading_delay(s.engine_time(native::monotonic_ns()), s.interval);
        self->delayed_send(self, std::chrono::nanoseconds(delay), proc_tick_atom::value);
      },
      [=](stack_tick_atom, std::uint64_t generation) {
        auto& s = self->state;
        if (generation != s.stack_generation || !s.stack_sampling()) return;
        try {
          const auto& settings = s.settings;
          auto snap = s.sampler->sample(s.options.max_depth,
                                        [&settings](int tid) { return settings.uses(tid); });
          double covered =
              s.last_stack_ns == 0 ? 0 : to_seconds(snap.monotonic_ns - s.last_stack_ns);
          s.last_stack_ns = snap.monotonic_ns;
          s.profile.add(snap, covered, to_seconds(s.engine_time(snap.monotonic_ns)));
          s.thread_states.add(snap, s.is_io());
          add_to_flame(*s.flame, snap, to_seconds(s.engine_time(snap.monotonic_ns)), s.is_io());
          for (auto& t : snap.threads) s.calls.add_stack(t.frames);
          std::vector<sample> pc_samples;
          std::vector<native::sampled_thread> described;
          define_resources(s.pc->on_stack_sample(snap, s.is_io(), covered,
                                                 s.engine_time(snap.monotonic_ns), s.interval,
                                                 pc_samples, &described));
          s.window->add(s.engine_time(snap.monotonic_ns), covered, described);
          if (!pc_samples.empty())
            self->request(s.dm, caf::infinite, source_samples{std::move(pc_samples)})
                .then([](samples_ack&) {}, [](caf::error&) {});
          // Reading new modules is a one-off, not the cost of sampling: it must not stretch
          // the delay (a program started held loads its libraries after the first sample).
          if (!snap.modules_changed) s.delay->record_cost(snap.cost_ns);
          s.cost_ns += snap.cost_ns;
          std::vector<int> tids;  // threads started since: a front end may focus on them
          for (auto& t : snap.threads) tids.push_back(t.tid);
          define_threads(tids);
          s.last = std::move(snap);
        } catch (const native::native_error& e) {
          if (e.code == native::native_errc::no_such_process) return finish(true);
          // Not permitted any more, or libdw gave up on this sample: try again later.
        }
        schedule_stack();
      },
      [=](release_tick_atom) {
        self->state.release_scheduled = false;
        if (self->state.sampler) self->state.sampler->release_late();
        release_late_soon();
      },
      [=](profile_request&) { return self->state.profile_report(); },
      // The search's evidence: the windows' counts at each focus since the search began (the
      // I/O library's exact I/O where the process has it).
      [=](window_query& q) {
        auto& s = self->state;
        window_answer a;
        a.pid = s.info.pid;
        // With the pid, the process (another host may share it): its host as its resources name it.
        a.host = s.pc->process().host;
        std::vector<native::pc_focus> foci;
        for (auto& f : q.foci) foci.push_back(native::parse_pc_focus(f));
        for (auto& c : window::counts_with_library(*s.window, *s.io_window, foci, q.since))
          a.counts.push_back(window::evidence_counts_of(c, s.info.pid, a.host));
        auto st = s.window->stats();
        a.held_ticks = st.ticks;
        a.evicted_ticks = st.evicted_ticks;
        a.held_bytes = st.bytes;
        return a;
      },
      [=](callgraph_request&) {
        return to_callgraph_report(self->state.calls.view(), self->state.info.pid);
      },
      // FLAMEGRAPH, TIMELINE and the log's call paths (docs/FLAME.md), and the phases they
      // are kept by (the registry passes on every phase start).
      [=](flamegraph_request& x) -> caf::result<flamegraph_report> {
        auto r = flamegraph_of(*self->state.flame, x);
        if (auto* why = std::get_if<std::string>(&r))
          return make_dm_error(dm_error::bad_argument, *why);
        return std::get<flamegraph_report>(std::move(r));
      },
      [=](timeline_request& x) { return timeline_of(*self->state.flame, x); },
      [=](flame_export_request& x) { return flame_export_of(*self->state.flame, x.pid); },
      [=](phase_info& p) { self->state.flame->start_phase(p.id.id, p.start); },
      // The process's DyPer settings changed (SET, USETHREAD, CLASSES).
      [=](native_settings& x) {
        auto& s = self->state;
        s.settings = std::move(x);
        s.options.max_depth = s.settings.max_depth;
        s.delay->set_checktime(s.settings.checktime_ns);
        schedule_stack();
      },
      // A fresh sample of every thread, now. A thread it could not stop is let go once it
      // stops, as after a stack tick (with stack sampling off, no tick would).
      [=](stacks_request&) -> caf::result<stacks_report> {
        auto& s = self->state;
        if (!s.sampler)
          return make_dm_error(dm_error::not_allowed, "process " + std::to_string(s.info.pid) +
                                                          ": stack sampling is off in this engine");
        try {
          auto report = s.stacks_of(s.sampler->sample(s.options.max_depth));
          release_late_soon();
          return report;
        } catch (const native::native_error& e) {
          release_late_soon();
          auto err = native_failure(e);
          if (e.code == native::native_errc::no_such_process) finish(true);
          return err;
        }
      },
      [=](unwatch_request&) {
        auto info = self->state.info;
        info.watched = false;
        finish(false);
        return info;
      },
  };
}

}  // namespace

caf::actor spawn_native_source(caf::event_based_actor* parent, caf::actor dm, process_info info,
                               std::shared_ptr<native::stack_sampler> sampler,
                               native_options options, native_settings settings) {
  return parent->spawn<caf::detached>(native_source_actor, std::move(dm), std::move(info),
                                      std::move(sampler), options,
                                      caf::actor_cast<caf::actor>(parent), std::move(settings));
}

}  // namespace perfdm
