// A per-node daemon's relay. See daemon_relay_actor.hpp.
#include "actors/daemon_relay_actor.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <caf/event_based_actor.hpp>
#include <caf/response_promise.hpp>
#include <list>
#include <map>
#include <memory>
#include <vector>

#include "actors/failover_steps.hpp"
#include "actors/process_registry_actor.hpp"
#include "actors/tree_gather.hpp"
#include "tree/upstream_failover.hpp"
#include "messages/dm_messages.hpp"
#include "messages/native_messages.hpp"
#include "messages/process_command_messages.hpp"
#include "messages/process_messages.hpp"
#include "messages/record_messages.hpp"
#include "messages/source_messages.hpp"
#include "messages/topology_messages.hpp"
#include "shm/frame_clock.hpp"
#include "proc/process_facts.hpp"

namespace perfdm {

std::string default_component_name() {
  return proc::host_name() + ":" + std::to_string(getpid());
}

namespace {

using flush_atom = caf::atom_constant<caf::atom("relayflush")>;
using watermark_atom = caf::atom_constant<caf::atom("relaywm")>;

class daemon_relay : public caf::event_based_actor {
 public:
  daemon_relay(caf::actor_config& cfg, caf::actor upstream, relay_options o)
      : caf::event_based_actor(cfg), upstream_(std::move(upstream)), options_(std::move(o)) {}

  caf::behavior make_behavior() override {
    monitor(upstream_);
    set_down_handler([=](caf::down_msg& x) {
      if (x.source == upstream_.address()) return upstream_lost();
      forget(x.source);
    });
    set_error_handler([](caf::error&) {});
    send(upstream_, source_register{caf::actor_cast<caf::actor>(this), options_.component, {}});
    return {
        // ---- from upstream
        [=](source_update& u) { on_update(u); },
        [=](upstream_info& x) { failover_.on_info(x); },
        [=](samples_safe& x) { failover_.on_safe(x.until); },
        [=](reconnect_atom, caf::actor& up) { reconnected(std::move(up)); },
        [=](reconnect_atom, caf::error& e) { quit(e); },
        // ---- from the local sources, as to a data manager
        [=](source_register& x) {
          if (!x.source || std::count(sources_.begin(), sources_.end(), x.source)) return;
          monitor(x.source);
          sources_.push_back(x.source);
          if (registry_) send(x.source, last_);  // else it comes with the first from upstream
        },
        [=](source_unregister& x) {
          demonitor(x.source);
          forget(x.source.address());
        },
        [=](source_samples& x) {
          samples_ack ack{x.samples.size(), 0};
          received_ += x.samples.size();
          for (auto& s : x.samples) sums_[s.mi.id] += s.value;
          note_reported(caf::actor_cast<caf::actor_addr>(current_sender()), x.samples);
          if (buffer_.empty() && !x.samples.empty())
            delayed_send(this, options_.flush_period, flush_atom::value, ++batch_id_);
          buffer_.insert(buffer_.end(), x.samples.begin(), x.samples.end());
          if (buffer_.size() >= options_.batch) flush();
          return ack;
        },
        [=](flush_atom, std::uint64_t id) {
          if (id == batch_id_) flush();  // the batch that timer was for is still open
        },
        [=](watermark_atom) {
          // With no batch open, the watermark goes alone (a batch carries its own).
          if (buffer_.empty()) flush();
          delayed_send(this, options_.quiet_period, watermark_atom::value);
        },
        [=](define_resource& x) { return delegate(upstream_, x); },
        [=](define_metric& x) { return delegate(upstream_, x); },
        [=](status_query x) { return delegate(upstream_, x); },  // the registry's REPORT
        // ---- the daemon's own requests, for its local process registry
        [=](relay_ready_atom) {
          auto rp = make_response_promise<ok_reply>();
          if (registry_)
            rp.deliver(ok_reply{});
          else
            waiting_.push_back(rp);
          return rp;
        },
        [=](relay_stats_atom) {
          return caf::make_message(received_, batches_,
                                   static_cast<std::uint64_t>(sources_.size()));
        },
        [=](relay_watermark_atom) { return sent_watermark_; },
        [=](relay_sums_atom) {
          std::string text;
          char one[64];
          for (auto& [mi, sum] : sums_) {
            std::snprintf(one, sizeof one, "%s%llu=%.17g", text.empty() ? "" : " ",
                          static_cast<unsigned long long>(mi), sum);
            text += one;
          }
          return text;
        },
        // TOPOLOGY: a daemon is a leaf; its parent measures its link.
        [=](topology_probe&) {
          topology_node own;
          own.name = options_.component;
          own.host = proc::host_name();
          own.kind = "daemon";
          own.components = 1;
          own.sources = sources_.size();
          return topology_reply{{own}};
        },
        [=](attach_request& x) { return ask_registry(std::move(x)); },
        [=](detach_request& x) { return ask_registry(std::move(x)); },
        [=](watch_request& x) { return ask_registry(std::move(x)); },
        [=](unwatch_request& x) { return ask_registry(std::move(x)); },
        // The search's evidence and call graph, asked by the parent (actors/tree_gather.hpp):
        // the processes this daemon watches (none before its registry exists).
        [=](window_query& x) {
          return gather_over_tree<window_answers>(this, {registry_}, x,
                                                  tree_gather_wait_in_relay);
        },
        [=](callgraph_request& x) {
          return gather_over_tree<callgraph_report>(this, {registry_}, x,
                                                    tree_gather_wait_in_relay);
        },
        [=](list_processes& x) { return delegate(registry_, x); },
        [=](frames_stats_query& x) { return delegate(registry_, x); },
        [=](process_announcements&) {},          // DyPer's START/END stay local
        // Local sources name themselves for the recording; upstream records the relay's
        // aggregated samples under the component's name instead.
        [=](record_origin&) {},
        [=](samples_ack&) {}, [=](ok_reply) {},  // upstream acknowledged the registration
    };
  }

 protected:
  // Whatever ends the relay (but a kill -9 of the daemon), the samples it holds go upstream,
  // and whoever waits for it to be ready hears why it never will be (CAF 0.17 drops an
  // undelivered promise silently: the daemon would wait out its request's timeout).
  void on_exit() override {
    exiting_ = true;
    flush();
    auto why = fail_state() ? fail_state() : caf::make_error(caf::exit_reason::normal);
    for (auto& rp : waiting_) rp.deliver(why);
    waiting_.clear();
    for (auto& rp : asked_)
      if (rp->pending()) rp->deliver(why);
    asked_.clear();
  }

 private:
  // A process request for the registry. Not delegated: if the relay ends first (its upstream
  // went down, and the linked registry with it), the daemon hears why at once instead of
  // waiting out its request's timeout for a promise CAF 0.17 drops silently (a
  // daemon told to stop as its engine went away waited 10 s per request).
  template <class Request>
  caf::response_promise ask_registry(Request x) {
    // One promise shared by the answer and on_exit: whichever comes first delivers.
    auto rp = std::make_shared<caf::response_promise>(make_response_promise());
    asked_.remove_if([](const auto& p) { return !p->pending(); });
    asked_.push_back(rp);
    request(registry_, caf::infinite, std::move(x))
        .then([=](process_info& p) { rp->deliver(p); }, [=](caf::error& e) { rp->deliver(e); });
    return *rp;
  }

  void on_update(source_update& u) {
    failover_.on_update();
    last_ = u;
    if (!registry_) start_registry(u.origin);
    for (auto& s : sources_) send(s, last_);
  }

  // Engine time 0 on this node's CLOCK_MONOTONIC, from the engine's origin on the wall clock.
  void start_registry(double origin) {
    auto wall_now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    auto mono_now = shm::monotonic_now_ns();
    ingest_options io;
    io.origin_monotonic_ns = mono_now - to_ns(wall_now - origin);
    native_options no = options_.native;
    no.origin_monotonic_ns = io.origin_monotonic_ns;
    origin_monotonic_ns_ = io.origin_monotonic_ns;
    registry_ = spawn_process_registry(this, io, no);
    delayed_send(this, options_.quiet_period, watermark_atom::value);
    for (auto& rp : waiting_) rp.deliver(ok_reply{});
    waiting_.clear();
  }

  // A source that ended (its process exited, or it was detached) sent everything it had
  // before it unregistered: it no longer holds the watermark.
  void forget(const caf::actor_addr& source) {
    sources_.erase(std::remove(sources_.begin(), sources_.end(), source), sources_.end());
    reported_.erase(source);
    if (buffer_.empty()) flush();  // the watermark it held moves now
  }

  void note_reported(const caf::actor_addr& source, const std::vector<sample>& samples) {
    if (samples.empty()) return;
    auto& end = reported_.try_emplace(source, no_watermark).first->second;
    for (auto& s : samples) end = std::max(end, to_ns(s.end));
  }

  // The engine time before which this daemon has sent everything it will send. The local
  // sources (frame ingest, native) send each interval once it ended, in order, so a live
  // one will send nothing ending before the latest end it reported: it holds the watermark
  // there. A source that has reported nothing yet holds nothing (its first samples may come
  // late, and then go in as they came), and with no source holding, it is this node's
  // present in engine time. Never before one already sent.
  time_ns watermark() const {
    if (!registry_) return no_watermark;  // no engine time origin yet
    time_ns w = shm::monotonic_now_ns() - origin_monotonic_ns_;
    for (auto& [source, end] : reported_) w = std::min(w, end);
    return std::max(w, sent_watermark_);
  }

  // Sends the open batch, with the watermark; with no batch, the watermark alone if it moved.
  void flush() {
    ++batch_id_;  // a timer for an earlier batch finds nothing of its own
    if (!upstream_ || reconnecting_) return;  // reconnecting: the batch waits for the new one
    const time_ns w = watermark();
    if (buffer_.empty() && w <= sent_watermark_) return;
    if (!buffer_.empty()) ++batches_;
    // Acknowledged, the batch is in the upstream: what of it a relay above passed on is not
    // sent twice should that relay go down (source_register's `reached`).
    auto ends = failover_.ends_of(buffer_);
    failover_.on_sent(buffer_);
    if (exiting_)  // no answer will find this actor: none asked for
      send(upstream_, source_samples{std::move(buffer_), w});
    else
      request(upstream_, caf::infinite, source_samples{std::move(buffer_), w})
          .then([=](samples_ack&) { failover_.on_acked(w, ends); }, [](caf::error&) {});
    sent_watermark_ = w;
    buffer_.clear();
    buffer_.reserve(options_.batch);
  }

  // The upstream's connection closed: a relay's children go to its upstream.
  void upstream_lost() {
    if (!start_failover(this, options_.connect, failover_, "daemon"))
      return quit(caf::exit_reason::remote_link_unreachable);
    reconnecting_ = true;
  }

  // Registered anew, as taking over from the relay that went down; what it had not passed on
  // goes again (the new upstream drops what it had), then what waited meanwhile.
  void reconnected(caf::actor up) {
    upstream_ = std::move(up);
    reconnecting_ = false;
    auto again = register_taking_over(this, upstream_, options_.component, failover_, "daemon");
    if (!again.empty()) send(upstream_, source_samples{std::move(again), no_watermark});
    flush();
  }

  caf::actor upstream_;
  relay_options options_;
  upstream_failover failover_;
  bool reconnecting_ = false;
  bool exiting_ = false;
  caf::actor registry_;
  std::vector<caf::actor> sources_;
  source_update last_;
  std::vector<sample> buffer_;
  std::uint64_t batch_id_ = 0;
  std::uint64_t received_ = 0;
  std::map<std::uint64_t, double> sums_;  // what the local sources sent, by MI
  std::uint64_t batches_ = 0;
  std::int64_t origin_monotonic_ns_ = 0;
  std::map<caf::actor_addr, time_ns> reported_;  // the latest end each live source reported
  time_ns sent_watermark_ = no_watermark;
  std::vector<caf::typed_response_promise<ok_reply>> waiting_;
  std::list<std::shared_ptr<caf::response_promise>> asked_;  // the registry's answers still to come
};

}  // namespace

caf::actor spawn_daemon_relay(caf::actor_system& sys, caf::actor upstream, relay_options o) {
  if (o.component.empty()) o.component = default_component_name();
  return sys.spawn<daemon_relay>(std::move(upstream), std::move(o));
}

}  // namespace perfdm
