#include "actors/data_manager_actor_class.hpp"
#include "actors/tree_gather.hpp"
#include "messages/flame_messages.hpp"

namespace perfdm {

namespace detail {

caf::behavior data_manager::make_behavior() {
  phase_manager_ = spawn<caf::linked>(phase_manager_actor, options_.base_width);
  interval_actor_ = spawn<caf::linked>(sampling_interval_actor, options_.base_width);
  ingest_options io;
  io.origin_monotonic_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(clock_start_.time_since_epoch())
          .count();  // steady = MONOTONIC
  native_options no = options_.native;
  no.origin_monotonic_ns = io.origin_monotonic_ns;
  registry_ = spawn_process_registry(this, io, no);
  // The registry's own reads (a REPORT's STATUS) are not a front end's.
  recording_.name(registry_.id(), {"registry", false});
  if (options_.recorder) {
    // Replay must fold where this engine folded.
    auto width = format_number(to_seconds(options_.base_width));
    options_.recorder->comment(
        0, "engine",
        "base width " + width + " s: replay with perfdm replay --base-width " + width + " FILE");
  }
  // A stray error message (a client answering what was no request) must not take the
  // engine down; the DM's own requests all go to linked actors, whose failure ends it anyway.
  set_error_handler([](caf::error&) {});
  set_down_handler([=](caf::down_msg& x) { on_source_gone(x.source); });
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
        return metric_list{tables_.metrics()};
      },
      [=](list_resources x) {
        record(x, false);
        return resource_list{tables_.resources()};
      },
      [=](list_phases x) {
        record(x, false);
        return delegate(phase_manager_, x);
      },
      [=](samplerate_query x) {
        record(x, false);
        return samplerate_info{to_seconds(interval_)};
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
        recording_.comment(now(), sender_id(), "stopped sending");
        demonitor(x.source);
        on_source_gone(x.source.address());
      },
      [=](source_samples& x) { return on_source_samples(x.samples, x.complete_until); },
      [=](subtree_component_gone& x) { on_subtree_component_gone(x); },
      [=](subtree_component_joined& x) { on_subtree_component_joined(x); },
      // GET /metrics: not a command, not recorded (replays and goldens do not change).
      [=](engine_counters_query) { return counters_; },
      [=](process_announcements& x) { send(registry_, x); },
      [=](ping x) {
        record(x, false);
        return pong{};
      },
      // WHO: the processes the registry knows, as DyPer listed them.
      [=](who_request x) {
        record_live(x);
        auto rp = make_response_promise<who_reply>();
        request(registry_, caf::infinite, list_processes{}).then([=](process_list& l) mutable {
          rp.deliver(who_reply{std::move(l.processes)});
        });
        return rp;
      },
      [=](record_origin& x) {
        if (auto sender = sender_id()) recording_.began(now(), sender, x);
      },
      [=](record_unsent& x) { recording_.unsent(now(), sender_id(), x); },
      // The log's call paths (not a command of the language: not recorded).
      [=](flame_export_request& x) { return delegate(registry_, x); },
      // The Performance Consultant: its actor is made (with its stream) by the first SEARCH.
      [=](search_request& x) {
        record(x);
        return delegate(search_actor(), x);
      },
      [=](shg_request& x) {
        record(x, false);
        auto rp = make_response_promise<shg_reply>();
        if (!search_) {
          rp.deliver(shg_reply{});  // no search yet: the graph is empty
          return rp;
        }
        request(search_, caf::infinite, x)
            .then([=](shg_reply& r) mutable { rp.deliver(std::move(r)); },
                  [=](caf::error& e) mutable { rp.deliver(std::move(e)); });
        return rp;
      },
      [=](findings_request& x) {
        record(x, false);
        auto rp = make_response_promise<findings_reply>();
        if (!search_) {
          rp.deliver(findings_reply{});  // no search yet: nothing found
          return rp;
        }
        request(search_, caf::infinite, x)
            .then([=](findings_reply& r) mutable { rp.deliver(std::move(r)); },
                  [=](caf::error& e) mutable { rp.deliver(std::move(e)); });
        return rp;
      },
      // The search's evidence: windows are read live only; what the search took
      // from them is EVIDENCE, recorded as a request (even from the search) so replay has it.
      // Both reach every process of the tree: this engine's and each daemon's.
      [=](window_query& x) {
        return gather_over_tree<window_answers>(this, tree_targets(), x, tree_gather_wait);
      },
      [=](callgraph_request& x) {
        record_live(x, target_of(x));
        if (x.pid == 0)
          return gather_over_tree<callgraph_report>(this, tree_targets(), x, tree_gather_wait);
        auto rp = make_response_promise();  // one process: the engine's own
        request(registry_, caf::infinite, x)
            .then([=](callgraph_report& r) mutable { rp.deliver(std::move(r)); },
                  [=](caf::error& e) mutable { rp.deliver(std::move(e)); });
        return rp;
      },
      [=](evidence_note& x) -> caf::result<ok_reply> {
        if (recording_.on())
          recording_.replayed(now(), sender_id(),
                              print_request(data_manager_target_id, caf::make_message(x)));
        if (!search_) return make_dm_error(dm_error::not_allowed, "EVIDENCE: no search is running");
        send(search_, std::move(x));  // in order with the data events the search gets after it
        return ok_reply{};
      },
      [=](shg_broadcast& x) {
        for (auto& [h, a] : streams_) send(a, shg_node_event{h, x.node});
      },
  };
  return commands.or_else(process_routes(process_request_types{}));
}

caf::actor data_manager::search_actor() {
  if (!search_) {
    search_ = spawn_search_actor(this);
    recording_.name(search_.id(), {"search", false, true});
    auto opened = on_open_stream_for(search_);
    send(search_, search_init{opened, current_phase_, to_seconds(widths_.current_start())});
  }
  return search_;
}

time_ns data_manager::now() const {
  if (!options_.live_clock) return now_;
  auto elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::steady_clock::now() - clock_start_);
  return std::max(now_, static_cast<time_ns>(elapsed.count()));
}

caf::message data_manager::on_define_metric(define_metric& x) {
  bool added = false;
  auto m = tables_.define(x, added);
  if (!m) return caf::make_message(m.error());
  if (added)
    for (auto& [h, a] : streams_) send(a, new_metric_event{h, *m});
  return caf::make_message(*m);
}

caf::message data_manager::on_define_resource(define_resource& x) {
  std::vector<resource_info> added;
  auto r = tables_.define(x, added);
  announce(added);
  if (!r) return caf::make_message(r.error());
  return caf::make_message(*r);
}

std::optional<caf::error> data_manager::check_stream(stream_handle h) {
  if (streams_.count(h)) return std::nullopt;
  return make_dm_error(dm_error::unknown_handle, h.id < next_stream_
                                                     ? "stream " + to_string(h) + " was closed"
                                                     : "no stream " + to_string(h));
}

std::vector<std::pair<mi_handle, metric_instance_actor_type>> data_manager::mi_targets(
    const std::vector<mi_handle>& hs) {
  std::vector<std::pair<mi_handle, metric_instance_actor_type>> out;
  for (auto h : hs)
    if (find_mi(h)) out.emplace_back(h, mi_actor(h));
  return out;
}

void data_manager::finish(caf::response_promise rp, caf::message reply) {
  notify_sources();
  fan_out<ok_reply>(
      this, reply_wait::await, caf::infinite, streams_, stream_flush{},
      [](stream_handle, ok_reply&) {}, [=]() mutable { rp.deliver(reply); },
      [](stream_handle, caf::error&) {}, true);
}

stream_handle data_manager::on_open_stream_for(const caf::actor& sink) {
  stream_handle h{next_stream_++};
  auto a = spawn<caf::linked>(performance_stream_actor, h, sink, options_.stream_batch);
  streams_.emplace(h, a);
  send(interval_actor_, si_subscribe{h, a});
  return h;
}

caf::response_promise data_manager::on_close_stream(close_stream& x) {
  if (auto err = check_stream(x.stream)) return fail(*err);
  auto rp = make_response_promise();
  auto before = view();
  // T3: the stream's subscriptions go as if disabled one by one (D1-D3).
  await_mis(
      live_mis(), mi_drop_stream{x.stream},
      [=] {
        apply_interval_rule(si_disable{before, view()}, [=] {
          auto stream = streams_[x.stream];
          send(interval_actor_, si_unsubscribe{x.stream});
          request(stream, caf::infinite, stream_flush{}).await([=](ok_reply) mutable {
            unlink_from(stream);
            send_exit(stream, caf::exit_reason::user_shutdown);
            streams_.erase(x.stream);
            finish(rp, caf::make_message(ok_reply{}));
          });
        });
      },
      rp);
  return rp;
}

caf::response_promise data_manager::on_enable(enable_request& x) {
  if (auto err = check_stream(x.stream)) return fail(*err);
  auto metric = tables_.metric_named(x.metric);
  if (!metric)
    return fail(make_dm_error(dm_error::unknown_handle, "no metric named '" + x.metric + "'"));
  if (x.focus.empty()) x.focus.push_back("/");
  auto focus = tables_.find_focus(x.focus);
  if (!focus) return fail(focus.error());
  auto type = x.phase.type;
  if (x.phase.named) {
    if (x.phase.id.id >= next_phase_)
      return fail(make_dm_error(dm_error::unknown_handle, "no phase " + to_string(x.phase.id)));
    if (x.phase.id != current_phase_)  // E5
      return fail(make_dm_error(dm_error::not_allowed, "phase " + to_string(x.phase.id) +
                                                           " is not the current phase (" +
                                                           to_string(current_phase_) + ")"));
    type = phase_type::current;
  }
  auto rp = make_response_promise();
  auto before = view();
  prepare_widths();  // before a new MI exists, so B6 sees only the histograms already there
  bool added = false;
  auto h = tables_.mi_for(*metric, *focus, added);  // E1: the pair's MI is reused
  if (added) {
    mi_actors_.resize(tables_.mi_slots());
    mi_actors_[h.id] = spawn<caf::linked>(metric_instance_actor, h, tables_.style_of(*metric));
  }
  mi_enable msg{x.stream, streams_[x.stream], type, x.flags, bases()};
  change_mi(h, msg, rp, [=](const mi_info& described) {
    apply_interval_rule(si_enable{type, before, view()},
                        [=] { finish(rp, caf::make_message(described)); });
  });
  return rp;
}

caf::response_promise data_manager::on_disable(disable_request& x) {
  if (auto err = check_stream(x.stream)) return fail(*err);
  if (auto err = tables_.check_mi(x.mi)) return fail(*err);
  auto rp = make_response_promise();
  auto before = view();
  auto h = x.mi;
  change_mi(h, mi_disable{x.stream, x.phase}, rp, [=](const mi_info& described) {
    apply_interval_rule(si_disable{before, view()},
                        [=] { finish(rp, caf::make_message(described)); });
  });
  return rp;
}

caf::response_promise data_manager::on_flags(flags_request& x) {
  if (auto err = tables_.check_mi(x.mi)) return fail(*err);
  auto rp = make_response_promise();
  auto h = x.mi;
  change_mi(h, mi_flags{x.named, x.set}, rp,
            [=](const mi_info& described) { finish(rp, caf::make_message(described)); });
  return rp;
}

caf::response_promise data_manager::on_start_phase(start_phase& x) {
  auto rp = make_response_promise();
  request(phase_manager_, caf::infinite, pm_start{x.name, now(), global_width()})
      .await([=](pm_started& p) mutable {
        current_phase_ = p.phase.id;
        next_phase_ = p.phase.id.id + 1;
        widths_.new_phase(p.start, p.width);
        // N1-N7 in every MI, then N8: every stream hears of the new phase.
        await_mis(
            live_mis(), mi_new_phase{p.old_phase, bases()},
            [=] {
              for (auto& [h, a] : streams_) send(a, new_phase_event{h, p.phase});
              // The registry's native sources keep their call paths by phase (docs/FLAME.md).
              send(registry_, new_phase_event{stream_handle{}, p.phase});
              apply_interval_rule(si_new_phase{view()},
                                  [=] { finish(rp, caf::make_message(p.phase)); });
            },
            rp);
      });
  return rp;
}

}  // namespace detail

caf::actor spawn_data_manager(caf::actor_system& sys, const engine_options& options) {
  return sys.spawn<detail::data_manager>(options);
}

}  // namespace perfdm
