// A per-node daemon's relay. See daemon_relay_actor.hpp.
#include "actors/daemon_relay_actor.hpp"

#include <unistd.h>

#include <algorithm>
#include <caf/response_promise.hpp>
#include <caf/stateful_actor.hpp>
#include <cstdio>
#include <list>
#include <map>
#include <memory>
#include <vector>

#include "actors/failover_steps.hpp"
#include "actors/process_registry_actor.hpp"
#include "actors/tree_gather.hpp"
#include "messages/dm_messages.hpp"
#include "messages/native_messages.hpp"
#include "messages/process_command_messages.hpp"
#include "messages/process_messages.hpp"
#include "messages/record_messages.hpp"
#include "messages/source_messages.hpp"
#include "messages/topology_messages.hpp"
#include "proc/process_facts.hpp"
#include "shm/frame_clock.hpp"
#include "tree/uplink.hpp"

namespace perfdm {

std::string default_component_name() {
  return proc::host_name() + ":" + std::to_string(getpid());
}

namespace {

using flush_atom = caf::atom_constant<caf::atom("relayflush")>;
using watermark_atom = caf::atom_constant<caf::atom("relaywm")>;

struct daemon_relay_state;
using daemon_relay_actor = caf::stateful_actor<daemon_relay_state>;

struct daemon_relay_state {
  explicit daemon_relay_state(daemon_relay_actor* self) : self(self) {}
  ~daemon_relay_state();

  daemon_relay_actor* self;
  caf::actor upstream;
  relay_options options;
  uplink up{relay_options{}.batch};
  bool exiting = false;
  caf::actor registry;
  std::vector<caf::actor> sources;
  source_update last;
  std::uint64_t received = 0;
  std::map<std::uint64_t, double> sums;  // what the local sources sent, by MI
  std::int64_t origin_monotonic_ns = 0;
  std::map<caf::actor_addr, time_ns> reported;  // the latest end each live source reported
  std::vector<caf::typed_response_promise<ok_reply>> waiting;
  std::list<std::shared_ptr<caf::response_promise>> asked;  // the registry's answers still to come
  static inline const char* name = "daemon_relay";

  // A process request for the registry. Not delegated: if the relay ends first (its upstream
  // went down, and the linked registry with it), the daemon hears why at once instead of
  // waiting out its request's timeout for a promise CAF 0.17 drops silently.
  template <class Request>
  caf::response_promise ask_registry(Request x) {
    // One promise shared by the answer and the relay's end: whichever comes first delivers.
    auto rp = std::make_shared<caf::response_promise>(self->make_response_promise());
    asked.remove_if([](const auto& p) { return !p->pending(); });
    asked.push_back(rp);
    self->request(registry, caf::infinite, std::move(x))
        .then([=](process_info& p) { rp->deliver(p); }, [=](caf::error& e) { rp->deliver(e); });
    return *rp;
  }

  void on_update(source_update& u) {
    up.failover().on_update();
    last = u;
    if (!registry) start_registry(u.origin);
    for (auto& s : sources) self->send(s, last);
  }

  // Engine time 0 on this node's CLOCK_MONOTONIC, from the engine's origin on the wall clock.
  void start_registry(double origin) {
    auto wall_now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    ingest_options io;
    io.origin_monotonic_ns = shm::monotonic_now_ns() - to_ns(wall_now - origin);
    native_options no = options.native;
    no.origin_monotonic_ns = io.origin_monotonic_ns;
    origin_monotonic_ns = io.origin_monotonic_ns;
    registry = spawn_process_registry(self, io, no);
    self->delayed_send(self, options.quiet_period, watermark_atom::value);
    for (auto& rp : waiting) rp.deliver(ok_reply{});
    waiting.clear();
  }

  // A source that ended (its process exited, or it was detached) sent everything it had
  // before it unregistered: it no longer holds the watermark.
  void forget(const caf::actor_addr& source) {
    sources.erase(std::remove(sources.begin(), sources.end(), source), sources.end());
    reported.erase(source);
    if (up.empty()) flush();  // the watermark it held moves now
  }

  void on_samples(const std::vector<sample>& samples) {
    received += samples.size();
    for (auto& s : samples) sums[s.mi.id] += s.value;
    if (!samples.empty()) {
      auto source = caf::actor_cast<caf::actor_addr>(self->current_sender());
      auto& end = reported.try_emplace(source, no_watermark).first->second;
      for (auto& s : samples) end = std::max(end, to_ns(s.end));
    }
    if (auto timer = up.add(samples))
      self->delayed_send(self, options.flush_period, flush_atom::value, *timer);
    if (up.full()) flush();
  }

  // The engine time before which this daemon has sent everything it will send. The local
  // sources (frame ingest, native) send each interval once it ended, in order, so a live
  // one will send nothing ending before the latest end it reported: it holds the watermark
  // there. A source that has reported nothing yet holds nothing (its first samples may come
  // late, and then go in as they came), and with no source holding, it is this node's
  // present in engine time.
  time_ns watermark() const {
    if (!registry) return no_watermark;  // no engine time origin yet
    return least_held(shm::monotonic_now_ns() - origin_monotonic_ns, reported);
  }

  // Sends the open batch, with the watermark; with no batch, the watermark alone if it moved.
  void flush() {
    flush_uplink(self, upstream, up, watermark(), exiting);
  }

  // The upstream's connection closed: a relay's children go to its upstream.
  void upstream_lost() {
    if (!start_failover(self, options.connect, up.failover(), "daemon"))
      return self->quit(caf::exit_reason::remote_link_unreachable);
    up.pause();
  }

  // Registered anew, as taking over from the relay that went down; what it had not passed on
  // goes again (the new upstream drops what it had), then what waited meanwhile.
  void reconnected(caf::actor new_upstream) {
    upstream = std::move(new_upstream);
    up.resume();
    auto again = register_taking_over(self, upstream, options.component, up.failover(), "daemon");
    if (!again.empty()) self->send(upstream, source_samples{std::move(again), no_watermark});
    flush();
  }

  topology_reply topology() const {
    topology_node own;
    own.name = options.component;
    own.host = proc::host_name();
    own.kind = "daemon";
    own.components = 1;
    own.sources = sources.size();
    return topology_reply{{own}};
  }

  std::string sums_text() const {
    std::string text;
    char one[64];
    for (auto& [mi, sum] : sums) {
      std::snprintf(one, sizeof one, "%s%llu=%.17g", text.empty() ? "" : " ",
                    static_cast<unsigned long long>(mi), sum);
      text += one;
    }
    return text;
  }
};

// Whatever ends the relay (but a kill -9 of the daemon), the samples it holds go upstream,
// and whoever waits for it to be ready hears why it never will be (CAF 0.17 drops an
// undelivered promise silently: the daemon would wait out its request's timeout). CAF
// destroys a stateful actor's state as the actor ends.
daemon_relay_state::~daemon_relay_state() {
  exiting = true;
  flush();
  auto why = self->fail_state() ? self->fail_state() : caf::make_error(caf::exit_reason::normal);
  for (auto& rp : waiting) rp.deliver(why);
  for (auto& rp : asked)
    if (rp->pending()) rp->deliver(why);
}

caf::behavior daemon_relay(daemon_relay_actor* self, caf::actor upstream, relay_options o) {
  auto& st = self->state;
  st.upstream = std::move(upstream);
  st.up = uplink(o.batch);
  st.options = std::move(o);
  join_upstream(self, [=](const caf::actor_addr& source) { self->state.forget(source); });
  return caf::message_handler{
      // ---- from the local sources, as to a data manager
      [=](source_register& x) {
        auto& st = self->state;
        if (!x.source || std::count(st.sources.begin(), st.sources.end(), x.source)) return;
        self->monitor(x.source);
        st.sources.push_back(x.source);
        if (st.registry) self->send(x.source, st.last);  // else it comes with the first update
      },
      [=](source_unregister& x) {
        self->demonitor(x.source);
        self->state.forget(x.source.address());
      },
      [=](source_samples& x) {
        self->state.on_samples(x.samples);
        return samples_ack{x.samples.size(), 0};
      },
      [=](flush_atom, std::uint64_t id) {
        if (self->state.up.timer_due(id)) self->state.flush();  // its batch is still open
      },
      [=](watermark_atom) {
        // With no batch open, the watermark goes alone (a batch carries its own).
        if (self->state.up.empty()) self->state.flush();
        self->delayed_send(self, self->state.options.quiet_period, watermark_atom::value);
      },
      [=](define_resource& x) { return self->delegate(self->state.upstream, x); },
      [=](define_metric& x) { return self->delegate(self->state.upstream, x); },
      [=](status_query x) { return self->delegate(self->state.upstream, x); },  // REPORT
      // ---- the daemon's own requests, for its local process registry
      [=](relay_ready_atom) {
        auto rp = self->make_response_promise<ok_reply>();
        if (self->state.registry)
          rp.deliver(ok_reply{});
        else
          self->state.waiting.push_back(rp);
        return rp;
      },
      [=](relay_stats_atom) {
        auto& st = self->state;
        return caf::make_message(st.received, st.up.batches(),
                                 static_cast<std::uint64_t>(st.sources.size()));
      },
      [=](relay_watermark_atom) { return self->state.up.sent_watermark(); },
      [=](relay_sums_atom) { return self->state.sums_text(); },
      // TOPOLOGY: a daemon is a leaf; its parent measures its link.
      [=](topology_probe&) { return self->state.topology(); },
      [=](attach_request& x) { return self->state.ask_registry(std::move(x)); },
      [=](detach_request& x) { return self->state.ask_registry(std::move(x)); },
      [=](watch_request& x) { return self->state.ask_registry(std::move(x)); },
      [=](unwatch_request& x) { return self->state.ask_registry(std::move(x)); },
      // The search's evidence and call graph, asked by the parent (actors/tree_gather.hpp):
      // the processes this daemon watches (none before its registry exists).
      [=](window_query& x) {
        return gather_over_tree<window_answers>(self, {self->state.registry}, x,
                                                tree_gather_wait_in_relay);
      },
      [=](callgraph_request& x) {
        return gather_over_tree<callgraph_report>(self, {self->state.registry}, x,
                                                  tree_gather_wait_in_relay);
      },
      [=](list_processes& x) { return self->delegate(self->state.registry, x); },
      [=](frames_stats_query& x) { return self->delegate(self->state.registry, x); },
      [=](process_announcements&) {},  // DyPer's START/END stay local
      // Local sources name themselves for the recording; upstream records the relay's
      // aggregated samples under the component's name instead.
      [=](record_origin&) {},
      [=](samples_ack&) {}, [=](ok_reply) {},  // upstream acknowledged the registration
  }.or_else(from_upstream(self));
}

}  // namespace

caf::actor spawn_daemon_relay(caf::actor_system& sys, caf::actor upstream, relay_options o) {
  if (o.component.empty()) o.component = default_component_name();
  return sys.spawn(daemon_relay, std::move(upstream), std::move(o));
}

}  // namespace perfdm
