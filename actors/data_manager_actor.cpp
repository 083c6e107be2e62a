#include "actors/data_manager_state.hpp"
#include "actors/tree_gather.hpp"
#include "messages/flame_messages.hpp"

namespace perfdm {

namespace detail {

caf::behavior data_manager_state::make_behavior() {
  phase_manager = spawn_phase_manager(self, options.base_width);
  interval_actor = spawn_sampling_interval(self, options.base_width);
  ingest_options io;
  io.origin_monotonic_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(clock_start.time_since_epoch())
          .count();  // steady = MONOTONIC
  native_options no = options.native;
  no.origin_monotonic_ns = io.origin_monotonic_ns;
  registry = spawn_process_registry(self, io, no);
  // The registry's own reads (a REPORT's STATUS) are not a front end's.
  recording.name(registry.id(), {"registry", false});
  if (options.recorder) {
    // Replay must fold where this engine folded.
    auto width = format_number(to_seconds(options.base_width));
    options.recorder->comment(
        0, "engine",
        "base width " + width + " s: replay with perfdm replay --base-width " + width + " FILE");
  }
  // A stray error message (a client answering what was no request) must not take the
  // engine down; the DM's own requests all go to linked actors, whose failure ends it anyway.
  self->set_error_handler([](caf::error&) {});
  self->set_down_handler([=](caf::down_msg& x) { on_source_gone(x.source); });
  caf::message_handler commands{
      [=](define_metric& x) {
        record(x);
        return answer(on_define_metric(x));
      },
      [=](define_resource& x) {
        record(x);
        return answer(on_define_resource(x));
      },
      [=](list_metrics x) {
        record(x, false);
        return metric_list{tables.metrics()};
      },
      [=](list_resources x) {
        record(x, false);
        return resource_list{tables.resources()};
      },
      [=](list_phases x) {
        record(x, false);
        return self->delegate(phase_manager, x);
      },
      [=](samplerate_query x) {
        record(x, false);
        return samplerate_info{to_seconds(interval)};
      },
      [=](open_stream& x) {
        record(x);
        return on_open_stream(x);
      },
      [=](close_stream& x) {
        record(x);
        return on_close_stream(x);
      },
      [=](enable_request& x) {
        record(x);
        return on_enable(x);
      },
      [=](disable_request& x) {
        record(x);
        return on_disable(x);
      },
      [=](flags_request& x) {
        record(x);
        return on_flags(x);
      },
      [=](start_phase& x) {
        record(x);
        return on_start_phase(x);
      },
      [=](samples_request& x) {
        record(x);
        return on_samples(x.samples, true);
      },
      [=](data_request& x) {
        record(x, false);
        return on_data(x);
      },
      [=](status_query x) {
        record(x, false);
        return on_status();
      },
      [=](topology_query x) {
        record_live(x);  // the tree is live: replay has none
        return on_topology();
      },
      [=](source_register& x) { on_source_register(x); },
      [=](source_unregister& x) {
        recording.comment(now(), sender_id(), "stopped sending");
        self->demonitor(x.source);
        on_source_gone(x.source.address());
      },
      [=](source_samples& x) { return on_source_samples(x.samples, x.complete_until); },
      [=](subtree_component_gone& x) { on_subtree_component_gone(x); },
      [=](subtree_component_joined& x) { on_subtree_component_joined(x); },
      // GET /metrics: not a command, not recorded (replays and goldens do not change).
      [=](engine_counters_query) { return counters; },
      [=](process_announcements& x) { self->send(registry, x); },
      [=](ping x) {
        record(x, false);
        return pong{};
      },
      // WHO: the processes the registry knows, as DyPer listed them.
      [=](who_request x) {
        record_live(x);
        auto rp = self->make_response_promise<who_reply>();
        self->request(registry, caf::infinite, list_processes{}).then([=](process_list& l) mutable {
          rp.deliver(who_reply{std::move(l.processes)});
        });
        return rp;
      },
      [=](record_origin& x) {
        if (auto sender = sender_id()) recording.began(now(), sender, x);
      },
      [=](record_unsent& x) { recording.unsent(now(), sender_id(), x); },
      // The log's call paths (not a command of the language: not recorded).
      [=](flame_export_request& x) { return self->delegate(registry, x); },
      // The Performance Consultant: its actor is made (with its stream) by the first SEARCH.
      [=](search_request& x) {
        record(x);
        return self->delegate(search_actor(), x);
      },
      [=](shg_request& x) {
        record(x, false);
        auto rp = self->make_response_promise<shg_reply>();
        if (!search) {
          rp.deliver(shg_reply{});  // no search yet: the graph is empty
          return rp;
        }
        self->request(search, caf::infinite, x)
            .then([=](shg_reply& r) mutable { rp.deliver(std::move(r)); },
                  [=](caf::error& e) mutable { rp.deliver(std::move(e)); });
        return rp;
      },
      [=](findings_request& x) {
        record(x, false);
        auto rp = self->make_response_promise<findings_reply>();
        if (!search) {
          rp.deliver(findings_reply{});  // no search yet: nothing found
          return rp;
        }
        self->request(search, caf::infinite, x)
            .then([=](findings_reply& r) mutable { rp.deliver(std::move(r)); },
                  [=](caf::error& e) mutable { rp.deliver(std::move(e)); });
        return rp;
      },
      // The search's evidence: windows are read live only; what the search took
      // from them is EVIDENCE, recorded as a self->request (even from the search) so replay has it.
      // Both reach every process of the tree: this engine's and each daemon's.
      [=](window_query& x) {
        return gather_over_tree<window_answers>(self, tree_targets(), x, tree_gather_wait);
      },
      [=](callgraph_request& x) {
        record_live(x, target_of(x));
        if (x.pid == 0)
          return gather_over_tree<callgraph_report>(self, tree_targets(), x, tree_gather_wait);
        auto rp = self->make_response_promise();  // one process: the engine's own
        self->request(registry, caf::infinite, x)
            .then([=](callgraph_report& r) mutable { rp.deliver(std::move(r)); },
                  [=](caf::error& e) mutable { rp.deliver(std::move(e)); });
        return rp;
      },
      [=](evidence_note& x) -> caf::result<ok_reply> {
        if (recording.on())
          recording.replayed(now(), sender_id(),
                             print_request(data_manager_target_id, caf::make_message(x)));
        if (!search) return make_dm_error(dm_error::not_allowed, "EVIDENCE: no search is running");
        self->send(search, std::move(x));  // in order with the data events the search gets after it
        return ok_reply{};
      },
      [=](shg_broadcast& x) {
        for (auto& [h, a] : streams) self->send(a, shg_node_event{h, x.node});
      },
  };
  return commands.or_else(process_routes(process_request_types{}));
}

caf::actor data_manager_state::search_actor() {
  if (!search) {
    search = spawn_search_actor(self);
    recording.name(search.id(), {"search", false, true});
    auto opened = on_open_stream_for(search);
    self->send(search, search_init{opened, current_phase, to_seconds(widths.current_start())});
  }
  return search;
}

time_ns data_manager_state::now() const {
  if (!options.live_clock) return latest_end;
  auto elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now() - clock_start);
  return std::max(latest_end, static_cast<time_ns>(elapsed.count()));
}

caf::message data_manager_state::on_define_metric(define_metric& x) {
  bool added = false;
  auto m = tables.define(x, added);
  if (!m) return caf::make_message(m.error());
  if (added)
    for (auto& [h, a] : streams) self->send(a, new_metric_event{h, *m});
  return caf::make_message(*m);
}

caf::message data_manager_state::on_define_resource(define_resource& x) {
  std::vector<resource_info> added;
  auto r = tables.define(x, added);
  announce(added);
  if (!r) return caf::make_message(r.error());
  return caf::make_message(*r);
}

std::optional<caf::error> data_manager_state::check_stream(stream_handle h) {
  if (streams.count(h)) return std::nullopt;
  return make_dm_error(dm_error::unknown_handle, h.id < next_stream
                                                     ? "stream " + to_string(h) + " was closed"
                                                     : "no stream " + to_string(h));
}

std::vector<std::pair<mi_handle, metric_instance_actor_type>> data_manager_state::mi_targets(
    const std::vector<mi_handle>& hs) {
  std::vector<std::pair<mi_handle, metric_instance_actor_type>> out;
  for (auto h : hs)
    if (find_mi(h)) out.emplace_back(h, mi_actor(h));
  return out;
}

void data_manager_state::finish(caf::response_promise rp, caf::message reply) {
  notify_sources();
  fan_out<ok_reply>(
      self, reply_wait::await, caf::infinite, streams, stream_flush{},
      [](stream_handle, ok_reply&) {}, [=]() mutable { rp.deliver(reply); },
      [](stream_handle, caf::error&) {}, true);
}

stream_handle data_manager_state::on_open_stream_for(const caf::actor& sink) {
  stream_handle h{next_stream++};
  auto a = spawn_performance_stream(self, h, sink, options.stream_batch);
  streams.emplace(h, a);
  self->send(interval_actor, si_subscribe{h, a});
  return h;
}

caf::response_promise data_manager_state::on_close_stream(close_stream& x) {
  if (auto err = check_stream(x.stream)) return fail(*err);
  auto rp = self->make_response_promise();
  auto before = view();
  // T3: the stream's subscriptions go as if disabled one by one (D1-D3).
  await_mis(
      live_mis(), mi_drop_stream{x.stream},
      [=] {
        apply_interval_rule(si_disable{before, view()}, [=] {
          auto stream = streams[x.stream];
          self->send(interval_actor, si_unsubscribe{x.stream});
          self->request(stream, caf::infinite, stream_flush{}).await([=](ok_reply) mutable {
            self->unlink_from(stream);
            self->send_exit(stream, caf::exit_reason::user_shutdown);
            streams.erase(x.stream);
            finish(rp, caf::make_message(ok_reply{}));
          });
        });
      },
      rp);
  return rp;
}

caf::response_promise data_manager_state::on_enable(enable_request& x) {
  if (auto err = check_stream(x.stream)) return fail(*err);
  auto metric = tables.metric_named(x.metric);
  if (!metric)
    return fail(make_dm_error(dm_error::unknown_handle, "no metric named '" + x.metric + "'"));
  if (x.focus.empty()) x.focus.push_back("/");
  auto focus = tables.find_focus(x.focus);
  if (!focus) return fail(focus.error());
  auto type = x.phase.type;
  if (x.phase.named) {
    if (x.phase.id.id >= next_phase)
      return fail(make_dm_error(dm_error::unknown_handle, "no phase " + to_string(x.phase.id)));
    if (x.phase.id != current_phase)  // E5
      return fail(make_dm_error(dm_error::not_allowed, "phase " + to_string(x.phase.id) +
                                                           " is not the current phase (" +
                                                           to_string(current_phase) + ")"));
    type = phase_type::current;
  }
  auto rp = self->make_response_promise();
  auto before = view();
  prepare_widths();  // before a new MI exists, so B6 sees only the histograms already there
  bool added = false;
  auto h = tables.mi_for(*metric, *focus, added);  // E1: the pair's MI is reused
  if (added) {
    mi_actors.resize(tables.mi_slots());
    mi_actors[h.id] = spawn_metric_instance(self, h, tables.style_of(*metric));
  }
  mi_enable msg{x.stream, streams[x.stream], type, x.flags, bases()};
  change_mi(h, msg, rp, [=](const mi_info& described) {
    apply_interval_rule(si_enable{type, before, view()},
                        [=] { finish(rp, caf::make_message(described)); });
  });
  return rp;
}

caf::response_promise data_manager_state::on_disable(disable_request& x) {
  if (auto err = check_stream(x.stream)) return fail(*err);
  if (auto err = tables.check_mi(x.mi)) return fail(*err);
  auto rp = self->make_response_promise();
  auto before = view();
  auto h = x.mi;
  change_mi(h, mi_disable{x.stream, x.phase}, rp, [=](const mi_info& described) {
    apply_interval_rule(si_disable{before, view()},
                        [=] { finish(rp, caf::make_message(described)); });
  });
  return rp;
}

caf::response_promise data_manager_state::on_flags(flags_request& x) {
  if (auto err = tables.check_mi(x.mi)) return fail(*err);
  auto rp = self->make_response_promise();
  auto h = x.mi;
  change_mi(h, mi_flags{x.named, x.set}, rp,
            [=](const mi_info& described) { finish(rp, caf::make_message(described)); });
  return rp;
}

caf::response_promise data_manager_state::on_start_phase(start_phase& x) {
  auto rp = self->make_response_promise();
  self->request(phase_manager, caf::infinite, pm_start{x.name, now(), global_width()})
      .await([=](pm_started& p) mutable {
        current_phase = p.phase.id;
        next_phase = p.phase.id.id + 1;
        widths.new_phase(p.start, p.width);
        // N1-N7 in every MI, then N8: every stream hears of the new phase.
        await_mis(
            live_mis(), mi_new_phase{p.old_phase, bases()},
            [=] {
              for (auto& [h, a] : streams) self->send(a, new_phase_event{h, p.phase});
              // The registry's native sources keep their call paths by phase (docs/FLAME.md).
              self->send(registry, new_phase_event{stream_handle{}, p.phase});
              apply_interval_rule(si_new_phase{view()},
                                  [=] { finish(rp, caf::make_message(p.phase)); });
            },
            rp);
      });
  return rp;
}

}  // namespace detail

namespace {

caf::behavior data_manager(detail::data_manager_self* self, engine_options options) {
  self->state.configure(options);
  return self->state.make_behavior();
}

}  // namespace

caf::actor spawn_data_manager(caf::actor_system& sys, const engine_options& options) {
  return sys.spawn(data_manager, options);
}

}  // namespace perfdm
