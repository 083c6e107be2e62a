// The data manager actor's state (actors/data_manager_actor.hpp spawns it), shared by its two
// sources: actors/data_manager_actor.cpp (its requests: definitions, streams, enable and
// disable, phases, the search, process requests) and actors/data_manager_actor_samples.cpp
// (data sources, samples and folds, reading). Its tables and rules are plain C++ in dm/.
#pragma once

#include <algorithm>
#include <caf/event_based_actor.hpp>
#include <caf/response_promise.hpp>
#include <caf/stateful_actor.hpp>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>

#include "actors/data_manager_actor.hpp"
#include "actors/fan_out.hpp"
#include "actors/internal_messages.hpp"
#include "actors/metric_instance_actor.hpp"
#include "actors/phase_manager_actor.hpp"
#include "actors/process_registry_actor.hpp"
#include "actors/sampling_interval_actor.hpp"
#include "actors/search_actor.hpp"
#include "dm/dm_tables.hpp"
#include "dm/fold_order.hpp"
#include "dm/sample_check.hpp"
#include "dm/session_recording.hpp"
#include "dm/source_set.hpp"
#include "dm/time_base_widths.hpp"
#include "messages/callgraph_messages.hpp"
#include "messages/dm_error.hpp"
#include "messages/engine_counters_messages.hpp"
#include "messages/message_lists.hpp"
#include "messages/native_messages.hpp"
#include "messages/process_command_messages.hpp"
#include "messages/process_messages.hpp"
#include "messages/record_messages.hpp"
#include "messages/source_messages.hpp"
#include "messages/topology_messages.hpp"
#include "messages/xml_codec.hpp"
#include "tree/link_meter.hpp"

namespace perfdm::detail {

using continuation = std::function<void()>;

// A SAMPLES request in progress: it pauses at each fold and resumes where it stopped.
struct samples_job {
  std::vector<sample> samples;
  std::size_t next = 0;
  samples_ack ack;
  std::map<std::uint64_t, std::vector<raw_sample>> pending;  // by MI, not yet sent
  std::vector<std::uint64_t> touched;                        // MIs that got samples
  caf::response_promise rp;
};

struct data_manager_state;
using data_manager_self = caf::stateful_actor<data_manager_state>;

struct data_manager_state {
  explicit data_manager_state(data_manager_self* self)
      : self(self),
        clock_start(std::chrono::steady_clock::now()),
        origin(std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                   .count()),
        sources([this](mi_handle h) {
          auto* e = tables.find_mi(h);
          return e ? tables.style_of(e->metric) : metric_style::counter;
        }) {}

  static inline const char* name = "data_manager";

  // Takes the engine's options (the state is made before the actor gets them).
  void configure(const engine_options& o) {
    options = o;
    recording = session_recording(o.recorder);
    widths = time_base_widths(o.base_width);
    interval = o.base_width;
  }

  caf::behavior make_behavior();

  // The requests about observed processes (messages/message_lists.hpp) go to the registry,
  // which answers them itself. The data manager stays the engine's one address (H2), so a
  // front end needs no handle but the data manager's; they are comments in a recording:
  // replay has no live process, and what they do to the data manager comes as requests of
  // the sources they start.
  template <class... Requests>
  caf::message_handler process_routes(type_list<Requests...>) {
    return caf::message_handler{[=](Requests& x) {
      record_live(x, target_of(x));
      return self->delegate(registry, x);
    }...};
  }

  template <class Request>
  static std::string target_of(const Request&) {
    return data_manager_target_id;
  }
  static std::string target_of(const process_command& x) { return std::to_string(x.pid); }

  // ---------------------------------------------------------------- the search

  // Made on the first SEARCH, not at start: its stream takes the next stream handle then, as
  // in a replay of the same requests.
  caf::actor search_actor();

  // ---------------------------------------------------------------- clock (C1)

  time_ns now() const;

  // ---------------------------------------------------------------- recording (--record)

  // The sender of the message being processed, for the recording (0: none).
  std::uint64_t sender_id() {
    auto& sender = self->current_sender();
    return sender ? sender->id() : 0;
  }

  template <class Request>
  void record(const Request& x, bool changes = true) {
    if (recording.on())
      recording.request(now(), sender_id(),
                        print_request(data_manager_target_id, caf::make_message(x)), changes);
  }

  template <class Request>
  void record_live(const Request& x, const std::string& target = data_manager_target_id) {
    if (recording.on())
      recording.live_only(now(), sender_id(), print_request(target, caf::make_message(x)));
  }

  // A source's samples are SAMPLES for replay. Those for MIs deleted already are left out:
  // the source's request drops them, a SAMPLES naming them would be refused whole (H4).
  void record_source_samples(const std::vector<sample>& samples);

  static constexpr const char* data_manager_target_id = "DM";

  // ---------------------------------------------------------------- tables

  caf::message on_define_metric(define_metric& x);

  caf::message on_define_resource(define_resource& x);

  // Every stream hears of each resource made, parents first.
  void announce(const std::vector<resource_info>& added) {
    for (auto& r : added)
      for (auto& [h, a] : streams) self->send(a, new_resource_event{h, r});
  }

  mi_entry* find_mi(mi_handle h) { return tables.find_mi(h); }

  metric_instance_actor_type mi_actor(mi_handle h) const {
    return h.id < mi_actors.size() ? mi_actors[h.id] : metric_instance_actor_type{};
  }

  std::optional<caf::error> check_stream(stream_handle h);

  // Mirrors what an MI reported; a deleted MI leaves the tables (its handle is never reused).
  void update(mi_handle h, const mi_summary& s) {
    if (!tables.update(h, s)) return;
    sources.forget(h);
    mi_actors[h.id] = metric_instance_actor_type{};
  }

  std::vector<mi_handle> live_mis() const { return tables.live_mis(); }

  // ---------------------------------------------------------------- time bases (B4-B6)

  bool any_mi() const { return tables.any_mi(); }

  bool any_current_histogram() const { return tables.any_current_histogram(); }

  time_ns global_width() const { return widths.global_at(now(), any_mi()); }

  time_bases bases() const { return widths.bases(current_phase); }

  void prepare_widths() { widths.prepare(now(), any_mi(), any_current_histogram()); }

  std::optional<pending_fold> next_fold() const {
    return widths.next_fold(latest_end, any_mi(), any_current_histogram());
  }

  collection_view view() const { return tables.view(widths.global(), widths.current()); }

  // ---------------------------------------------------------------- sequencing

  // Sends `msg` to every MI and calls `each` with each reply, then `done` once all have
  // answered (actors/fan_out.hpp). Awaiting keeps the data manager's other requests waiting,
  // so each request runs to completion before the next. An MI that fails answers the
  // request with INTERNAL.
  template <class Reply, class Message>
  void await_all(std::vector<std::pair<mi_handle, metric_instance_actor_type>> targets, Message msg,
                 std::function<void(mi_handle, Reply&)> each, continuation done,
                 caf::response_promise rp) {
    fan_out<Reply>(
        self, reply_wait::await, caf::infinite, targets, msg, each, done,
        [=](mi_handle h, caf::error& e) mutable {
          rp.deliver(make_dm_error(dm_error::internal, "metric instance " + to_string(h) +
                                                           " failed: " + dm_error_reason(e)));
        });
  }

  std::vector<std::pair<mi_handle, metric_instance_actor_type>> mi_targets(
      const std::vector<mi_handle>& hs);

  template <class Message>
  void await_mis(const std::vector<mi_handle>& hs, Message msg, continuation done,
                 caf::response_promise rp) {
    await_all<mi_summary>(
        mi_targets(hs), std::move(msg), [=](mi_handle h, mi_summary& s) { update(h, s); },
        std::move(done), rp);
  }

  // Sends one state change to an MI, mirrors its summary, and passes `then` the MI as the
  // summary describes it (taken before a deletion drops the entry). An error answer (D4)
  // goes to the client unchanged.
  template <class Message>
  void change_mi(mi_handle h, Message msg, caf::response_promise rp,
                 std::function<void(const mi_info&)> then) {
    self->request(mi_actor(h), caf::infinite, std::move(msg))
        .await(
            [=](mi_summary& s) {
              auto described = tables.describe(h, s);
              update(h, s);
              then(described);
            },
            [=](caf::error& e) mutable { rp.deliver(e); });
  }

  // Asks the sampling-interval controller to apply a rule; it announces any change to
  // the streams before it answers.
  template <class Rule>
  void apply_interval_rule(Rule rule, continuation done) {
    self->request(interval_actor, caf::infinite, std::move(rule)).await([=](samplerate_info& x) {
      interval = to_ns(x.interval);
      done();
    });
  }

  // T2: every stream delivers what it buffered, then the request is answered. The sources
  // hear of any change the request made to what is collecting or to the interval first.
  void finish(caf::response_promise rp, caf::message reply);

  // Replies once the streams delivered the events the request caused (T2).
  caf::response_promise answer(caf::message reply) {
    auto rp = self->make_response_promise();
    finish(rp, std::move(reply));
    return rp;
  }

  caf::message error_message(dm_error code, std::string reason) {
    return caf::make_message(make_dm_error(code, std::move(reason)));
  }

  caf::response_promise fail(caf::error e) {
    auto rp = self->make_response_promise();
    rp.deliver(std::move(e));
    return rp;
  }

  // ---------------------------------------------------------------- data sources

  source_update collection_set() const;

  // Every change to the collecting set or the interval reaches every source (S1-S5).
  void notify_sources();

  void on_source_register(const source_register& x);

  // A source that ended or unregistered. A component stops holding the aggregate back, every
  // open stream hears of it, and what it sent is kept: the samples that thereby became
  // complete go in as a local source's would.
  void on_source_gone(const caf::actor_addr& source);

  // A relay below lost a child: every open stream hears COMPONENTREMOVED naming
  // it and the relays above it. Nothing changes here: the relay's aggregate goes on.
  void on_subtree_component_gone(const subtree_component_gone& x);
  // And one joined it: COMPONENTADDED, with the same path.
  void on_subtree_component_joined(const subtree_component_joined& x);
  std::optional<std::string> relay_path(const caf::actor& from,
                                        const std::vector<std::string>& relays) const;

  // A component's samples are aggregated first; what is complete goes in (its ack counts
  // those). A local source's go straight in. What goes in is what is recorded, so a replay
  // of the recording needs no aggregator. A component's watermark, after its samples, lets
  // what it no longer holds back go in too; a local source's means nothing.
  caf::response_promise on_source_samples(std::vector<sample>& samples, time_ns complete_until);

  // ---------------------------------------------------------------- streams (T1-T3)

  caf::message on_open_stream(open_stream& x) {
    auto sink = x.sink ? x.sink : caf::actor_cast<caf::actor>(self->current_sender());
    return caf::make_message(stream_opened{on_open_stream_for(sink)});
  }

  stream_handle on_open_stream_for(const caf::actor& sink);

  caf::response_promise on_close_stream(close_stream& x);

  // ---------------------------------------------------------------- enable / disable (E, D)

  caf::response_promise on_enable(enable_request& x);

  caf::response_promise on_disable(disable_request& x);

  caf::response_promise on_flags(flags_request& x);

  // ---------------------------------------------------------------- phases (N, C2)

  caf::response_promise on_start_phase(start_phase& x);

  // ---------------------------------------------------------------- samples and folds

  // Nothing is applied when one sample is invalid or (strict) names an MI that does not
  // exist (H4). A source's samples (not strict) for a deleted MI are dropped and counted.
  caf::response_promise on_samples(std::vector<sample>& samples, bool strict);

  void send_pending(samples_job& job);

  void run_samples(std::shared_ptr<samples_job> job);

  // One doubling of one time base (B4), its events (F1) and the interval (S1, S2).
  void fold(pending_fold f, continuation done, caf::response_promise rp);

  // ---------------------------------------------------------------- reading

  caf::response_promise on_data(data_request& x);

  caf::response_promise on_status();

  // TOPOLOGY: this engine, its components' links, and each component's subtree, asked of it.
  caf::response_promise on_topology();
  // Whom a question for every process asks: the registry, then each component (daemon or
  // relay), which asks its own.
  std::vector<caf::actor> tree_targets() const;
  // Engine time on the wall clock, as remote sources stamp it (now() is virtual time unless
  // --live-clock): what a link's figures are measured in.
  time_ns link_now() const;

  data_manager_self* self;
  engine_options options;
  std::chrono::steady_clock::time_point clock_start;
  double origin;       // engine time 0, seconds since the Unix epoch (for remote sources)
  source_set sources;  // registered data sources, and the components' aggregation
  std::map<caf::actor_addr, link_meter> links;  // what each component's link carries
  // Components that took over from a relay not yet seen gone, announced after it (by its name).
  std::multimap<std::string, std::string> announce_after;
  phase_manager_actor_type phase_manager;
  sampling_interval_actor_type interval_actor;
  caf::actor registry;  // observed processes and their frame ingest actors
  caf::actor search;    // the Performance Consultant, from the first SEARCH on

  dm_tables tables;
  std::vector<metric_instance_actor_type> mi_actors;  // by MI handle; null once deleted
  std::map<stream_handle, caf::actor> streams;        // ordered: events go out deterministically
  std::uint64_t next_stream = 0;
  session_recording recording{nullptr};  // --record: who sent what, as replay runs it

  phase_handle current_phase{0};
  std::uint64_t next_phase = 1;
  engine_counters counters;  // GET /metrics: samples taken in since the start
  time_ns latest_end = 0;
  time_base_widths widths{base_bucket_width};
  time_ns interval = base_bucket_width;
};

}  // namespace perfdm::detail
