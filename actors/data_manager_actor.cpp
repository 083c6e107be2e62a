#include "actors/data_manager_actor.hpp"

#include "messages/callgraph_messages.hpp"
#include "messages/flame_messages.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>

#include <caf/event_based_actor.hpp>
#include <caf/response_promise.hpp>

#include "dm/component_aggregator.hpp"
#include "actors/internal_messages.hpp"
#include "actors/metric_instance_actor.hpp"
#include "actors/phase_manager_actor.hpp"
#include "actors/process_registry_actor.hpp"
#include "messages/process_command_messages.hpp"
#include "actors/sampling_interval_actor.hpp"
#include "actors/search_actor.hpp"
#include "dm/fold_order.hpp"
#include "messages/dm_error.hpp"
#include "messages/engine_counters_messages.hpp"
#include "messages/process_messages.hpp"
#include "messages/native_messages.hpp"
#include "messages/record_messages.hpp"
#include "messages/source_messages.hpp"
#include "messages/xml_codec.hpp"

namespace perfdm {

namespace {

using continuation = std::function<void()>;

struct mi_entry {
  caf::actor actor;
  metric_handle metric;
  focus_handle focus;
  mi_summary summary;
};

// A SAMPLES request in progress: it pauses at each fold and resumes where it stopped.
struct samples_job {
  std::vector<sample> samples;
  std::size_t next = 0;
  samples_ack ack;
  std::map<std::uint64_t, std::vector<raw_sample>> pending;  // by MI, not yet sent
  std::vector<std::uint64_t> touched;                         // MIs that got samples
  caf::response_promise rp;
};

class data_manager : public caf::event_based_actor {
 public:
  data_manager(caf::actor_config& cfg, engine_options options)
      : caf::event_based_actor(cfg), options_(options),
        clock_start_(std::chrono::steady_clock::now()),
        origin_(std::chrono::duration<double>(
                    std::chrono::system_clock::now().time_since_epoch()).count()),
        aggregator_([this](mi_handle h) {
          auto* e = find_mi(h);
          return e ? metrics_[e->metric.id].style : metric_style::counter;
        }),
        global_width_(options.base_width),
        current_width_(options.base_width), interval_(options.base_width) {}

  caf::behavior make_behavior() override {
    phase_manager_ = spawn<caf::linked>(phase_manager_actor, options_.base_width);
    interval_actor_ = spawn<caf::linked>(sampling_interval_actor, options_.base_width);
    ingest_options io;
    io.origin_monotonic_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 clock_start_.time_since_epoch()).count();  // steady = MONOTONIC
    native_options no = options_.native;
    no.origin_monotonic_ns = io.origin_monotonic_ns;
    registry_ = spawn_process_registry(this, io, no);
    add_resource("/");  // the root of every focus, resource 0
    if (options_.recorder) {
      // Replay must fold where this engine folded.
      auto width = format_number(to_seconds(options_.base_width));
      options_.recorder->comment(0, "engine", "base width " + width +
                                                  " s: replay with perfdm replay --base-width " +
                                                  width + " FILE");
    }
    // A stray error message (a client answering what was no request) must not take the
    // engine down; the DM's own requests all go to linked actors, whose failure ends it anyway.
    set_error_handler([](caf::error&) {});
    set_down_handler([=](caf::down_msg& x) { on_source_gone(x.source); });
    return {
      [=](define_metric& x) { record(x); return answer(on_define_metric(x)); },
      [=](define_resource& x) { record(x); return answer(on_define_resource(x)); },
      [=](list_metrics x) { record(x, false); return metric_list{metrics_}; },
      [=](list_resources x) { record(x, false); return resource_list{resources_}; },
      [=](list_phases x) { record(x, false); return delegate(phase_manager_, x); },
      [=](samplerate_query x) { record(x, false); return samplerate_info{to_seconds(interval_)}; },
      [=](open_stream& x) { record(x); return on_open_stream(x); },
      [=](close_stream& x) { record(x); return on_close_stream(x); },
      [=](enable_request& x) { record(x); return on_enable(x); },
      [=](disable_request& x) { record(x); return on_disable(x); },
      [=](flags_request& x) { record(x); return on_flags(x); },
      [=](start_phase& x) { record(x); return on_start_phase(x); },
      [=](samples_request& x) { record(x); return on_samples(x.samples, true); },
      [=](data_request& x) { record(x, false); return on_data(x); },
      [=](status_query x) { record(x, false); return on_status(); },
      [=](source_register& x) { on_source_register(x.source, x.component); },
      [=](source_unregister& x) {
        if (options_.recorder)
          options_.recorder->comment(now(), sender_origin().label, "stopped sending");
        demonitor(x.source);
        on_source_gone(x.source.address());
      },
      [=](source_samples& x) {
        return on_source_samples(x.samples, x.complete_until);
      },
      [=](attach_request& x) { record_live(x); return delegate(registry_, x); },
      [=](detach_request& x) { record_live(x); return delegate(registry_, x); },
      [=](list_processes& x) { record_live(x); return delegate(registry_, x); },
      [=](frames_stats_query& x) { record_live(x); return delegate(registry_, x); },
      // GET /metrics: not a command, not recorded (replays and goldens do not change).
      [=](engine_counters_query) { return counters_; },
      [=](process_command& x) {  // DyPer's per-process commands
        record_live(x, std::to_string(x.pid));
        return delegate(registry_, x);
      },
      [=](process_announcements& x) { send(registry_, x); },
      [=](ping x) { record(x, false); return pong{}; },
      // WHO: the processes the registry knows, as DyPer listed them.
      [=](who_request x) {
        record_live(x);
        auto rp = make_response_promise<who_reply>();
        request(registry_, caf::infinite, list_processes{})
            .then([=](process_list& l) mutable { rp.deliver(who_reply{std::move(l.processes)}); });
        return rp;
      },
      [=](watch_request& x) { record_live(x); return delegate(registry_, x); },
      [=](unwatch_request& x) { record_live(x); return delegate(registry_, x); },
      [=](profile_request& x) { record_live(x); return delegate(registry_, x); },
      [=](stacks_request& x) { record_live(x); return delegate(registry_, x); },
      [=](callgraph_request& x) { record_live(x); return delegate(registry_, x); },
      // The log's call paths (not a command of the language: not recorded).
      [=](flame_export_request& x) { return delegate(registry_, x); },
      [=](record_origin& x) { on_record_origin(x); },
      [=](record_unsent& x) { on_record_unsent(x); },
      // The Performance Consultant: its actor is made (with its stream) by the first SEARCH.
      [=](search_request& x) { record(x); return delegate(search_actor(), x); },
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
      [=](shg_broadcast& x) {
        for (auto& [h, a] : streams_) send(a, shg_node_event{h, x.node});
      },
    };
  }

 private:
  // ---------------------------------------------------------------- the search

  // Made on the first SEARCH, not at start: its stream takes the next stream handle then, as
  // in a replay of the same requests.
  caf::actor search_actor() {
    if (!search_) {
      search_ = spawn_search_actor(this);
      origins_[search_.id()] = origin{"search", false, true};
      auto opened = on_open_stream_for(search_);
      send(search_, search_init{opened, current_phase_, to_seconds(current_start_)});
    }
    return search_;
  }

  // ---------------------------------------------------------------- clock (C1)

  time_ns now() const {
    if (!options_.live_clock) return now_;
    auto elapsed = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::steady_clock::now() - clock_start_);
    return std::max(now_, static_cast<time_ns>(elapsed.count()));
  }

  // ---------------------------------------------------------------- recording (--record)

  struct origin {
    std::string label;
    bool replayable = true;
    // Its requests follow from another request (the search's from SEARCH): replaying that
    // one makes them again, so they are comments.
    bool derived = false;
  };

  // Who sent the message being processed, as it named itself; the registry's own reads (a
  // REPORT's STATUS) and unnamed senders get names here.
  origin sender_origin() {
    auto& sender = current_sender();
    if (!sender) return {"anonymous", true};
    if (auto i = origins_.find(sender->id()); i != origins_.end()) return i->second;
    if (sender->id() == registry_.id()) return {"registry", false};
    return {"actor " + std::to_string(sender->id()), true};
  }

  // `changes`: the request may change the data manager (a read does not). Whatever changes
  // it is replayed, whoever sent it (the registry's SETDETAIL enables, say); the engine's own
  // reads are comments.
  template <class Request>
  void record(const Request& x, bool changes = true) {
    if (!options_.recorder) return;
    auto from = sender_origin();
    auto line = print_request(data_manager_target_id, caf::make_message(x));
    if (from.derived)
      options_.recorder->comment(now(), from.label, "made again by SEARCH in replay: " + line);
    else if (from.replayable || changes)
      options_.recorder->request(now(), from.label, line);
    else
      options_.recorder->comment(now(), from.label, "not a front end's: " + line);
  }

  // A request that needs the live process: replay has none, so it is a comment; what it does
  // to the data manager comes as requests of the sources it starts.
  template <class Request>
  void record_live(const Request& x, const std::string& target = data_manager_target_id) {
    if (!options_.recorder) return;
    options_.recorder->comment(now(), sender_origin().label,
                               "live process only: " + print_request(target, caf::make_message(x)));
  }

  // A source's samples are SAMPLES for replay. Those for MIs deleted already are left out:
  // the source's request drops them, a SAMPLES naming them would be refused whole (H4).
  void record_source_samples(const std::vector<sample>& samples) {
    if (!options_.recorder) return;
    samples_request kept;
    for (auto& s : samples)
      if (find_mi(s.mi)) kept.samples.push_back(s);
    if (kept.samples.size() < samples.size())
      options_.recorder->comment(now(), sender_origin().label,
                                 std::to_string(samples.size() - kept.samples.size()) +
                                     " samples of deleted metric instances left out");
    if (!kept.samples.empty()) record(kept);
  }

  void on_record_origin(const record_origin& x) {
    auto& sender = current_sender();
    if (!sender) return;
    origins_[sender->id()] = origin{x.label, x.replayable};
    if (options_.recorder) options_.recorder->comment(now(), x.label, "began sending");
  }

  void on_record_unsent(const record_unsent& x) {
    if (!options_.recorder) return;
    auto from = sender_origin();
    if (x.replayable && from.replayable)
      options_.recorder->request(now(), from.label, x.text);
    else
      options_.recorder->comment(now(), from.label, "answered by the front end: " + x.text);
  }

  static constexpr const char* data_manager_target_id = "DM";

  // ---------------------------------------------------------------- tables

  caf::message on_define_metric(define_metric& x) {
    if (x.name.empty()) return error_message(dm_error::bad_argument, "a metric needs a NAME");
    if (auto i = metric_names_.find(x.name); i != metric_names_.end()) {
      auto& m = metrics_[i->second.id];
      if (m.style != x.style)
        return error_message(dm_error::bad_argument, "metric '" + x.name + "' is already " +
                                                         to_string(m.style));
      return caf::make_message(m);
    }
    metric_info m{metric_handle{metrics_.size()}, x.name, x.style, x.units};
    metrics_.push_back(m);
    metric_names_.emplace(m.name, m.id);
    for (auto& [h, a] : streams_) send(a, new_metric_event{h, m});
    return caf::make_message(m);
  }

  caf::message on_define_resource(define_resource& x) {
    auto valid = !x.name.empty() && x.name[0] == '/' && x.name.find("//") == std::string::npos &&
                 (x.name.size() == 1 || x.name.back() != '/');
    if (!valid)
      return error_message(dm_error::bad_argument,
                           "resource name '" + x.name + "' is not of the form /a/b");
    // Parents are created first, each announced to the streams.
    for (std::size_t slash = x.name.find('/', 1); slash != std::string::npos;
         slash = x.name.find('/', slash + 1))
      add_resource(x.name.substr(0, slash));
    return caf::make_message(resources_[add_resource(x.name).id]);
  }

  resource_handle add_resource(const std::string& name) {
    if (auto i = resource_names_.find(name); i != resource_names_.end()) return i->second;
    std::string parent;
    if (name != "/") {
      auto slash = name.rfind('/');
      parent = slash == 0 ? "/" : name.substr(0, slash);
    }
    resource_info r{resource_handle{resources_.size()}, name, parent};
    resources_.push_back(r);
    resource_names_.emplace(name, r.id);
    for (auto& [h, a] : streams_) send(a, new_resource_event{h, r});
    return r.id;
  }

  // A focus is a set of resources; "/" alone is the whole program.
  caf::expected<focus_handle> find_focus(const std::vector<std::string>& names) {
    std::vector<std::string> sorted;
    for (auto& n : names) {
      if (resource_names_.count(n) == 0)
        return make_dm_error(dm_error::unknown_handle, "no resource named '" + n + "'");
      if (n != "/") sorted.push_back(n);
    }
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    std::string key;
    for (auto& n : sorted) key += (key.empty() ? "" : ",") + n;
    if (key.empty()) key = "/";
    auto [i, added] = focus_names_.emplace(key, focus_handle{foci_.size()});
    if (added) foci_.push_back(key);
    return i->second;
  }

  mi_entry* find_mi(mi_handle h) {
    return h.id < mis_.size() && mis_[h.id] ? &*mis_[h.id] : nullptr;
  }

  std::optional<caf::error> check_mi(mi_handle h) {
    if (find_mi(h)) return std::nullopt;
    if (h.id < mis_.size())
      return make_dm_error(dm_error::unknown_handle,
                           "metric instance " + to_string(h) + " was deleted");  // H4
    return make_dm_error(dm_error::unknown_handle, "no metric instance " + to_string(h));
  }

  std::optional<caf::error> check_stream(stream_handle h) {
    if (streams_.count(h)) return std::nullopt;
    return make_dm_error(dm_error::unknown_handle,
                         h.id < next_stream_ ? "stream " + to_string(h) + " was closed"
                                             : "no stream " + to_string(h));
  }

  mi_info describe(mi_handle h, const mi_entry& e, const mi_summary& s) const {
    return mi_info{h, metrics_[e.metric.id].name, foci_[e.focus.id], s.flags, s.state};
  }

  // Mirrors what an MI reported; a deleted MI leaves the tables (its handle is never reused).
  // The counts kept here spare the per-sample fold check a walk over every MI.
  void update(mi_handle h, const mi_summary& s) {
    auto* e = find_mi(h);
    if (!e) return;
    current_histograms_ -= e->summary.has_current;
    e->summary = s;
    current_histograms_ += s.has_current;
    if (s.state == mi_state::deleted) {
      current_histograms_ -= s.has_current;
      --live_mis_;
      pairs_.erase({e->metric.id, e->focus.id});
      aggregator_.forget(h);
      mis_[h.id].reset();
    }
  }

  std::vector<mi_handle> live_mis() const {
    std::vector<mi_handle> out;
    for (std::size_t i = 0; i < mis_.size(); ++i)
      if (mis_[i]) out.push_back(mi_handle{i});
    return out;
  }

  // ---------------------------------------------------------------- time bases (B4-B6)

  bool current_shares_global() const { return current_start_ == 0; }

  bool any_mi() const { return live_mis_ > 0; }

  bool any_current_histogram() const { return current_histograms_ > 0; }

  // The width the global histograms have, or would get if one were created now (B6).
  time_ns global_width() const { return any_mi() ? global_width_ : width_covering(now(), options_.base_width); }

  time_bases bases() const {
    return time_bases{global_width_, current_phase_, current_start_, current_width_};
  }

  // B6: a histogram takes the width of its time base when other histograms live there,
  // otherwise the smallest width covering the time since the base's start.
  void prepare_widths() {
    if (!any_mi()) global_width_ = width_covering(now(), options_.base_width);
    if (current_shares_global())
      current_width_ = global_width_;
    else if (!any_current_histogram())
      current_width_ = width_covering(now() - current_start_, options_.base_width);
  }

  // B4/B5: the bases fold in the order they reach their ends (dm/fold_order.hpp).
  std::optional<pending_fold> next_fold() const {
    return perfdm::next_fold(
        time_base_view{any_mi(), global_width_, current_start_, current_width_,
                       any_current_histogram()},
        now_);
  }

  collection_view view() const {
    collection_view v;
    for (auto& e : mis_) {
      if (!e) continue;
      auto& s = e->summary;
      v.current_subscriptions += s.current_users;
      v.global_subscriptions += s.global_users;
      v.current_histogram_active |= s.collecting && s.has_current;
      v.any_persistent_collection |= s.flags.collection;
      v.any_active |= s.collecting;
    }
    v.global_width = global_width_;
    v.current_width = current_width_;
    return v;
  }

  // ---------------------------------------------------------------- sequencing

  // Sends `msg` to every actor and calls `each` with each reply, then `done` once all have
  // answered. Awaiting keeps the data manager's other requests waiting, so each request
  // runs to completion before the next.
  template <class Reply>
  void await_all(std::vector<std::pair<mi_handle, caf::actor>> targets, caf::message msg,
                 std::function<void(mi_handle, Reply&)> each, continuation done,
                 caf::response_promise rp) {
    if (targets.empty()) return done();
    auto left = std::make_shared<std::size_t>(targets.size());
    auto failed = std::make_shared<bool>(false);
    for (auto& [h, a] : targets) {
      auto handle = h;
      request(a, caf::infinite, msg)
          .await(
              [=](Reply& r) mutable {
                if (*failed) return;
                each(handle, r);
                if (--*left == 0) done();
              },
              [=](caf::error& e) mutable {
                if (*failed) return;
                *failed = true;
                rp.deliver(make_dm_error(dm_error::internal,
                                         "metric instance " + to_string(handle) +
                                             " failed: " + dm_error_reason(e)));
              });
    }
  }

  std::vector<std::pair<mi_handle, caf::actor>> mi_targets(const std::vector<mi_handle>& hs) {
    std::vector<std::pair<mi_handle, caf::actor>> out;
    for (auto h : hs)
      if (auto* e = find_mi(h)) out.emplace_back(h, e->actor);
    return out;
  }

  void await_mis(const std::vector<mi_handle>& hs, caf::message msg, continuation done,
                 caf::response_promise rp) {
    await_all<mi_summary>(
        mi_targets(hs), std::move(msg), [=](mi_handle h, mi_summary& s) { update(h, s); },
        std::move(done), rp);
  }

  // Sends one state change to an MI, mirrors its summary, and passes `then` the MI as the
  // summary describes it (taken before a deletion drops the entry). An error answer (D4)
  // goes to the client unchanged.
  void change_mi(mi_handle h, caf::message msg, caf::response_promise rp,
                 std::function<void(const mi_info&)> then) {
    request(find_mi(h)->actor, caf::infinite, std::move(msg))
        .await(
            [=](mi_summary& s) {
              auto described = describe(h, *find_mi(h), s);
              update(h, s);
              then(described);
            },
            [=](caf::error& e) mutable { rp.deliver(e); });
  }

  // Asks the sampling-interval controller to apply a rule; it announces any change to
  // the streams before it answers.
  void apply_interval_rule(caf::message msg, continuation done) {
    request(interval_actor_, caf::infinite, std::move(msg))
        .await([=](samplerate_info& x) {
          interval_ = to_ns(x.interval);
          done();
        });
  }

  // T2: every stream delivers what it buffered, then the request is answered. The sources
  // hear of any change the request made to what is collecting or to the interval first.
  void finish(caf::response_promise rp, caf::message reply) {
    notify_sources();
    if (streams_.empty()) {
      rp.deliver(std::move(reply));
      return;
    }
    auto left = std::make_shared<std::size_t>(streams_.size());
    for (auto& entry : streams_)
      request(entry.second, caf::infinite, stream_flush{}).await([=](ok_reply) mutable {
        if (--*left == 0) rp.deliver(reply);
      });
  }

  // Replies once the streams delivered the events the request caused (T2).
  caf::response_promise answer(caf::message reply) {
    auto rp = make_response_promise();
    finish(rp, std::move(reply));
    return rp;
  }

  caf::message error_message(dm_error code, std::string reason) {
    return caf::make_message(make_dm_error(code, std::move(reason)));
  }

  caf::response_promise fail(caf::error e) {
    auto rp = make_response_promise();
    rp.deliver(std::move(e));
    return rp;
  }

  // ---------------------------------------------------------------- data sources

  source_update collection_set() const {
    source_update u;
    u.interval = to_seconds(interval_);
    u.origin = origin_;
    for (std::size_t i = 0; i < mis_.size(); ++i) {
      auto& e = mis_[i];
      if (!e || !e->summary.collecting) continue;
      collecting_mi c{mi_handle{i}, metrics_[e->metric.id].name, {}};
      auto& focus = foci_[e->focus.id];
      for (std::size_t b = 0; b <= focus.size();) {
        auto comma = std::min(focus.find(',', b), focus.size());
        c.focus.push_back(focus.substr(b, comma - b));
        b = comma + 1;
      }
      u.mis.push_back(std::move(c));
    }
    return u;
  }

  // Every change to the collecting set or the interval reaches every source (S1-S5).
  void notify_sources() {
    if (sources_.empty()) return;
    auto u = collection_set();
    auto same = [](const source_update& a, const source_update& b) {
      if (a.interval != b.interval || a.mis.size() != b.mis.size()) return false;
      for (std::size_t i = 0; i < a.mis.size(); ++i)
        if (a.mis[i].mi != b.mis[i].mi) return false;  // an MI's metric and focus never change
      return true;
    };
    if (same(u, last_update_)) return;
    for (auto& s : sources_) send(s, u);
    last_update_ = std::move(u);
  }

  void on_source_register(const caf::actor& source, const std::string& component) {
    if (!source || std::find(sources_.begin(), sources_.end(), source) != sources_.end()) return;
    monitor(source);
    sources_.push_back(source);
    if (!component.empty()) {
      components_.emplace(source.address(), component);
      aggregator_.add_component(component);
    }
    last_update_ = collection_set();
    send(source, last_update_);
  }

  // A source that ended or unregistered. A component stops holding the aggregate back, every
  // open stream hears of it, and what it sent is kept: the samples that thereby became
  // complete go in as a local source's would.
  void on_source_gone(const caf::actor_addr& source) {
    sources_.erase(std::remove(sources_.begin(), sources_.end(), source), sources_.end());
    auto i = components_.find(source);
    if (i == components_.end()) return;
    auto name = i->second;
    components_.erase(i);
    for (auto& [addr, other] : components_)
      if (other == name) return;  // another live source shares the name
    std::vector<sample> complete;
    aggregator_.remove_component(name, complete);
    for (auto& [h, a] : streams_) send(a, component_removed_event{h, name});
    if (!complete.empty()) caf::anon_send(this, source_samples{std::move(complete)});
  }

  // A component's samples are aggregated first; what is complete goes in (its ack counts
  // those). A local source's go straight in. What goes in is what is recorded, so a replay
  // of the recording needs no aggregator. A component's watermark, after its samples, lets
  // what it no longer holds back go in too; a local source's means nothing.
  caf::response_promise on_source_samples(std::vector<sample>& samples, time_ns complete_until) {
    auto i = components_.find(caf::actor_cast<caf::actor_addr>(current_sender()));
    if (i == components_.end()) {
      record_source_samples(samples);
      return on_samples(samples, false);
    }
    for (auto& s : samples)
      if (auto err = check_sample(s)) return fail(*err);
    if (complete_until != no_watermark && std::llabs(complete_until) > to_ns(max_time_seconds))
      return fail(make_dm_error(dm_error::bad_argument,
                                "a watermark must be within " +
                                    std::to_string(static_cast<long long>(max_time_seconds)) +
                                    " s of 0"));
    std::vector<sample> complete;
    aggregator_.add_samples(i->second, samples, complete);
    if (complete_until != no_watermark)
      aggregator_.add_watermark(i->second, complete_until, complete);
    record_source_samples(complete);
    return on_samples(complete, false);
  }

  // ---------------------------------------------------------------- streams (T1-T3)

  caf::message on_open_stream(open_stream& x) {
    auto sink = x.sink ? x.sink : caf::actor_cast<caf::actor>(current_sender());
    return caf::make_message(stream_opened{on_open_stream_for(sink)});
  }

  stream_handle on_open_stream_for(const caf::actor& sink) {
    stream_handle h{next_stream_++};
    auto a = spawn<caf::linked>(performance_stream_actor, h, sink, options_.stream_batch);
    streams_.emplace(h, a);
    send(interval_actor_, si_subscribe{h, a});
    return h;
  }

  caf::response_promise on_close_stream(close_stream& x) {
    if (auto err = check_stream(x.stream)) return fail(*err);
    auto rp = make_response_promise();
    auto before = view();
    // T3: the stream's subscriptions go as if disabled one by one (D1-D3).
    await_mis(live_mis(), caf::make_message(mi_drop_stream{x.stream}), [=] {
      apply_interval_rule(caf::make_message(si_disable{before, view()}), [=] {
        auto stream = streams_[x.stream];
        send(interval_actor_, si_unsubscribe{x.stream});
        request(stream, caf::infinite, stream_flush{}).await([=](ok_reply) mutable {
          unlink_from(stream);
          send_exit(stream, caf::exit_reason::user_shutdown);
          streams_.erase(x.stream);
          finish(rp, caf::make_message(ok_reply{}));
        });
      });
    }, rp);
    return rp;
  }

  // ---------------------------------------------------------------- enable / disable (E, D)

  caf::response_promise on_enable(enable_request& x) {
    if (auto err = check_stream(x.stream)) return fail(*err);
    auto m = metric_names_.find(x.metric);
    if (m == metric_names_.end())
      return fail(make_dm_error(dm_error::unknown_handle, "no metric named '" + x.metric + "'"));
    if (x.focus.empty()) x.focus.push_back("/");
    auto focus = find_focus(x.focus);
    if (!focus) return fail(focus.error());
    auto type = x.phase.type;
    if (x.phase.named) {
      if (x.phase.id.id >= next_phase_)
        return fail(make_dm_error(dm_error::unknown_handle, "no phase " + to_string(x.phase.id)));
      if (x.phase.id != current_phase_)  // E5
        return fail(make_dm_error(dm_error::not_allowed,
                                  "phase " + to_string(x.phase.id) +
                                      " is not the current phase (" +
                                      to_string(current_phase_) + ")"));
      type = phase_type::current;
    }
    auto rp = make_response_promise();
    auto before = view();
    prepare_widths();  // before a new MI exists, so B6 sees only the histograms already there
    auto key = std::make_pair(m->second.id, focus->id);
    mi_handle h;
    if (auto i = pairs_.find(key); i != pairs_.end()) {
      h = i->second;  // E1: the pair's MI is reused
    } else {
      h = mi_handle{mis_.size()};  // H3/H6: a new handle, never reused
      auto style = metrics_[m->second.id].style;
      mis_.emplace_back(mi_entry{spawn<caf::linked>(metric_instance_actor, h, style), m->second,
                                 *focus, mi_summary{}});
      ++live_mis_;
      pairs_.emplace(key, h);
    }
    mi_enable msg{x.stream, streams_[x.stream], type, x.flags, bases()};
    change_mi(h, caf::make_message(msg), rp, [=](const mi_info& described) {
      apply_interval_rule(caf::make_message(si_enable{type, before, view()}),
                          [=] { finish(rp, caf::make_message(described)); });
    });
    return rp;
  }

  caf::response_promise on_disable(disable_request& x) {
    if (auto err = check_stream(x.stream)) return fail(*err);
    if (auto err = check_mi(x.mi)) return fail(*err);
    auto rp = make_response_promise();
    auto before = view();
    auto h = x.mi;
    change_mi(h, caf::make_message(mi_disable{x.stream, x.phase}), rp,
              [=](const mi_info& described) {
                apply_interval_rule(caf::make_message(si_disable{before, view()}),
                                    [=] { finish(rp, caf::make_message(described)); });
              });
    return rp;
  }

  caf::response_promise on_flags(flags_request& x) {
    if (auto err = check_mi(x.mi)) return fail(*err);
    auto rp = make_response_promise();
    auto h = x.mi;
    change_mi(h, caf::make_message(mi_flags{x.named, x.set}), rp,
              [=](const mi_info& described) { finish(rp, caf::make_message(described)); });
    return rp;
  }

  // ---------------------------------------------------------------- phases (N, C2)

  caf::response_promise on_start_phase(start_phase& x) {
    auto rp = make_response_promise();
    request(phase_manager_, caf::infinite, pm_start{x.name, now(), global_width()})
        .await([=](pm_started& p) mutable {
          current_phase_ = p.phase.id;
          next_phase_ = p.phase.id.id + 1;
          current_start_ = p.start;
          current_width_ = p.width;
          // N1-N7 in every MI, then N8: every stream hears of the new phase.
          await_mis(live_mis(), caf::make_message(mi_new_phase{p.old_phase, bases()}), [=] {
            for (auto& [h, a] : streams_) send(a, new_phase_event{h, p.phase});
            // The registry's native sources keep their call paths by phase (docs/FLAME.md).
            send(registry_, new_phase_event{stream_handle{}, p.phase});
            apply_interval_rule(caf::make_message(si_new_phase{view()}),
                                [=] { finish(rp, caf::make_message(p.phase)); });
          }, rp);
        });
    return rp;
  }

  // ---------------------------------------------------------------- samples and folds

  // Nothing is applied when one sample is invalid or (strict) names an MI that does not
  // exist (H4). A source's samples (not strict) for a deleted MI are dropped and counted.
  caf::response_promise on_samples(std::vector<sample>& samples, bool strict) {
    for (auto& s : samples) {
      if (strict)
        if (auto err = check_mi(s.mi)) return fail(*err);
      if (auto err = check_sample(s)) return fail(*err);
    }
    auto job = std::make_shared<samples_job>();
    job->samples = std::move(samples);
    job->rp = make_response_promise();
    run_samples(job);
    return job->rp;
  }

  // Every client is checked here, not only the XML one: times must fit the nanosecond clock.
  static std::optional<caf::error> check_sample(const sample& s) {
    auto valid_time = [](double t) { return std::isfinite(t) && std::fabs(t) <= max_time_seconds; };
    if (!valid_time(s.start) || !valid_time(s.end))
      return make_dm_error(dm_error::bad_argument,
                           "sample times must be finite and within " +
                               std::to_string(static_cast<long long>(max_time_seconds)) +
                               " s of 0");
    if (s.end < s.start)
      return make_dm_error(dm_error::bad_argument, "a sample cannot end before it starts");
    if (!std::isfinite(s.value))
      return make_dm_error(dm_error::bad_argument, "a sample value must be finite");
    return std::nullopt;
  }

  void send_pending(samples_job& job) {
    for (auto& [id, batch] : job.pending) {
      if (batch.empty()) continue;
      if (auto* e = find_mi(mi_handle{id})) send(e->actor, mi_samples{std::move(batch)});
      batch.clear();
    }
  }

  void run_samples(std::shared_ptr<samples_job> job) {
    for (; job->next < job->samples.size(); ++job->next) {
      auto& s = job->samples[job->next];
      auto t1 = to_ns(s.end);
      now_ = std::max(now_, t1);  // C1
      if (auto f = next_fold()) {
        // B4/F2: what arrived before the fold is applied at the old width first.
        send_pending(*job);
        fold(*f, [=] { run_samples(job); }, job->rp);
        return;
      }
      auto* e = find_mi(s.mi);
      if (!e || !e->summary.collecting) {
        ++job->ack.dropped;
        ++counters_.samples_dropped;
        continue;
      }
      auto& batch = job->pending[s.mi.id];
      if (batch.empty() && std::find(job->touched.begin(), job->touched.end(), s.mi.id) ==
                               job->touched.end())
        job->touched.push_back(s.mi.id);
      batch.push_back(raw_sample{to_ns(s.start), t1, s.value});
      ++job->ack.count;
      ++counters_.samples;
    }
    send_pending(*job);
    std::vector<std::pair<mi_handle, caf::actor>> targets;
    for (auto id : job->touched)
      if (auto* e = find_mi(mi_handle{id})) targets.emplace_back(mi_handle{id}, e->actor);
    // The MIs have sent their completed buckets once they answer a sync.
    await_all<ok_reply>(
        targets, caf::make_message(mi_sync{}), [](mi_handle, ok_reply&) {},
        [=] { finish(job->rp, caf::make_message(job->ack)); }, job->rp);
  }

  // One doubling of one time base (B4), its events (F1) and the interval (S1, S2).
  void fold(pending_fold f, continuation done, caf::response_promise rp) {
    bool shared = f.global && current_shares_global();
    if (f.global) global_width_ = f.width;
    if (!f.global || shared) current_width_ = f.width;
    std::vector<mi_handle> targets;
    for (auto h : live_mis())
      if (f.global || find_mi(h)->summary.has_current) targets.push_back(h);
    await_mis(targets, caf::make_message(mi_fold{f.start, f.width}), [=] {
      // F1: every stream hears of the fold, subscribed or not; phase 0 folds both kinds.
      std::vector<phase_type> types;
      if (f.global) types.push_back(phase_type::global);
      if (!f.global || shared) types.push_back(phase_type::current);
      for (auto type : types)
        for (auto& [h, a] : streams_) send(a, fold_event{h, type, to_seconds(f.width)});
      apply_interval_rule(caf::make_message(si_fold{f.global, !f.global || shared, f.width,
                                                    view()}),
                          done);
    }, rp);
  }

  // ---------------------------------------------------------------- reading

  caf::response_promise on_data(data_request& x) {
    if (auto err = check_mi(x.mi)) return fail(*err);
    mi_data q{x.phase.type, false, {}};
    if (x.phase.named) {
      if (x.phase.id.id >= next_phase_)
        return fail(make_dm_error(dm_error::unknown_handle, "no phase " + to_string(x.phase.id)));
      if (x.phase.id == current_phase_)
        q.type = phase_type::current;
      else
        q = mi_data{phase_type::current, true, x.phase.id};  // N2: the archive of that phase
    }
    auto rp = make_response_promise();
    request(find_mi(x.mi)->actor, caf::infinite, q)
        .await([=](histogram_data& d) mutable { rp.deliver(d); },
               [=](caf::error& e) mutable { rp.deliver(e); });
    return rp;
  }

  caf::response_promise on_status() {
    auto rp = make_response_promise();
    auto out = std::make_shared<status_info>();
    out->now = to_seconds(now());
    out->interval = to_seconds(interval_);
    out->phase = current_phase_;
    out->components.assign(aggregator_.components().begin(), aggregator_.components().end());
    auto hs = live_mis();
    out->mis.resize(hs.size());
    auto index = std::make_shared<std::map<std::uint64_t, std::size_t>>();
    for (std::size_t i = 0; i < hs.size(); ++i) (*index)[hs[i].id] = i;
    await_all<mi_status>(
        mi_targets(hs), caf::make_message(mi_status_query{}),
        [=](mi_handle h, mi_status& s) {
          auto* e = find_mi(h);
          s.metric = metrics_[e->metric.id].name;
          s.focus = foci_[e->focus.id];
          out->mis[index->at(h.id)] = std::move(s);
        },
        [=]() mutable { rp.deliver(*out); }, rp);
    return rp;
  }

  engine_options options_;
  std::chrono::steady_clock::time_point clock_start_;
  double origin_;  // engine time 0, seconds since the Unix epoch (for remote sources)
  component_aggregator aggregator_;
  caf::actor phase_manager_;
  caf::actor interval_actor_;
  caf::actor registry_;  // observed processes and their frame ingest actors
  caf::actor search_;    // the Performance Consultant, from the first SEARCH on

  std::vector<metric_info> metrics_;
  std::unordered_map<std::string, metric_handle> metric_names_;
  std::vector<resource_info> resources_;
  std::unordered_map<std::string, resource_handle> resource_names_;
  std::vector<std::string> foci_;  // canonical names by focus handle
  std::map<std::string, focus_handle> focus_names_;
  std::vector<std::optional<mi_entry>> mis_;  // by handle; empty once deleted
  std::map<std::pair<std::uint64_t, std::uint64_t>, mi_handle> pairs_;  // (metric, focus)
  std::map<stream_handle, caf::actor> streams_;  // ordered: events go out deterministically
  std::uint64_t next_stream_ = 0;
  std::size_t live_mis_ = 0;            // entries of mis_ that are not empty
  std::size_t current_histograms_ = 0;  // live MIs with a current-phase histogram
  std::vector<caf::actor> sources_;     // registered data sources, monitored
  std::map<caf::actor_addr, std::string> components_;  // the sources that are components
  source_update last_update_;           // what the sources were told last
  std::unordered_map<caf::actor_id, origin> origins_;  // named senders, for the recording

  phase_handle current_phase_{0};
  std::uint64_t next_phase_ = 1;
  engine_counters counters_;  // GET /metrics: samples taken in since the start
  time_ns now_ = 0;
  time_ns global_width_;
  time_ns current_start_ = 0;
  time_ns current_width_;
  time_ns interval_;
};

}  // namespace

caf::actor spawn_data_manager(caf::actor_system& sys, const engine_options& options) {
  return sys.spawn<data_manager>(options);
}

}  // namespace perfdm
