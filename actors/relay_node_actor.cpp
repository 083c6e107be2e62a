// An internal node of a tree of daemons. See relay_node_actor.hpp.
#include "actors/relay_node_actor.hpp"

#include <algorithm>
#include <caf/response_promise.hpp>
#include <caf/stateful_actor.hpp>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "actors/daemon_relay_actor.hpp"
#include "actors/failover_steps.hpp"
#include "actors/topology_probe.hpp"
#include "actors/tree_gather.hpp"
#include "dm/component_aggregator.hpp"
#include "messages/dm_messages.hpp"
#include "messages/source_messages.hpp"
#include "proc/process_facts.hpp"
#include "tree/link_meter.hpp"
#include "tree/uplink.hpp"

namespace perfdm {

namespace {

using flush_atom = caf::atom_constant<caf::atom("rnflush")>;
using watermark_atom = caf::atom_constant<caf::atom("rnwm")>;

struct relay_node_state;
using relay_node_actor = caf::stateful_actor<relay_node_state>;

struct relay_node_state {
  explicit relay_node_state(relay_node_actor* self)
      : self(self), aggregator([this](mi_handle h) { return style_of(h); }) {}
  ~relay_node_state();

  relay_node_actor* self;
  caf::actor upstream;
  relay_node_options options;
  uplink up{relay_node_options{}.batch};
  bool exiting = false;
  bool failing_over = false;  // the batches wait, and so do the notices (told_pending)
  time_ns told_safe = no_watermark;
  component_aggregator aggregator;
  std::map<caf::actor_addr, std::string> children;  // live children and their names
  std::map<std::string, time_ns> watermarks;        // the latest of each live child
  std::map<caf::actor_addr, link_meter> links;      // what each live child's link carries
  std::map<std::uint64_t, std::string> metric_of;   // MI id -> metric name
  std::map<std::string, metric_style> styles;       // metric name -> style
  source_update last;
  bool have_update = false;
  double origin = 0;
  std::uint64_t received = 0;
  std::vector<caf::typed_response_promise<ok_reply>> waiting;
  std::vector<caf::message> told_pending;  // children gone or joined while failing over
  // Children that took over from a child still live here, by that child's name: announced
  // once it is gone (as the engine's announce_after_).
  std::multimap<std::string, std::string> joined_after;
  static inline const char* name = "relay_node";

  void learn_metrics() {
    self->request(upstream, std::chrono::seconds(30), list_metrics{})
        .then([this](metric_list& l) { learn(l); }, [](caf::error&) {});
  }

  void learn(const metric_list& l) {
    for (auto& m : l.metrics) styles[m.name] = m.style;
  }

  std::vector<caf::actor> child_actors() const {
    std::vector<caf::actor> out;
    for (auto& [addr, name] : children) out.push_back(caf::actor_cast<caf::actor>(addr));
    return out;
  }

  metric_style style_of(mi_handle h) const {
    auto i = metric_of.find(h.id);
    if (i == metric_of.end()) return metric_style::counter;
    auto j = styles.find(i->second);
    return j == styles.end() ? metric_style::counter : j->second;
  }

  void on_update(source_update& u) {
    up.failover().on_update();
    bool unknown = false;
    for (auto& m : u.mis) {
      metric_of[m.mi.id] = m.metric;
      unknown = unknown || !styles.count(m.metric);
    }
    if (unknown) learn_metrics();
    last = u;
    if (!have_update) {
      have_update = true;
      origin = u.origin;
      self->delayed_send(self, options.quiet_period, watermark_atom::value);
      for (auto& rp : waiting) rp.deliver(ok_reply{});
      waiting.clear();
    }
    for (auto& [addr, name] : children)
      if (auto child = caf::actor_cast<caf::actor>(addr)) self->send(child, last);
  }

  void on_register(const source_register& x) {
    if (!x.source || children.count(x.source.address())) return;
    self->monitor(x.source);
    auto name = x.component;
    if (name.empty()) name = "child-" + std::to_string(x.source.id());
    children.emplace(x.source.address(), name);
    links.insert_or_assign(x.source.address(), link_meter{have_update ? now() : 0});
    if (!aggregator.is_component(name)) aggregator.add_component(name);
    aggregator.take_over(name, x.replaces, x.reached);
    self->send(x.source, upstream_info{options.component, options.upstream_address});
    if (have_update) self->send(x.source, last);
    // Taking over from a child whose end is not seen yet: announced after it.
    if (!x.replaces.empty() && has_child_named(x.replaces))
      joined_after.emplace(x.replaces, name);
    else
      tell_upstream(subtree_component_joined{self_handle(), {}, name});
  }

  // A relay below lost one of its children: the upstream hears of it with that relay's name
  // in front of the path (it is ours to know, not the sender's to say).
  void on_subtree_gone(subtree_component_gone& x) {
    auto i = x.from ? children.find(x.from.address()) : children.end();
    if (i == children.end() || x.name.empty()) return;
    const auto child = i->second, name = x.name;
    const bool own = x.relays.empty();
    if (own) {  // its own child, which may have failed over to here
      std::vector<sample> complete;
      aggregator.child_lost(child, name, complete);
      take(complete);
    }
    x.relays.insert(x.relays.begin(), child);
    tell_upstream(subtree_component_gone{self_handle(), std::move(x.relays), std::move(x.name)});
    if (own) announce_takers_of(child, &name);  // it failed over here: it counts now
  }

  void on_subtree_joined(subtree_component_joined& x) {
    auto i = x.from ? children.find(x.from.address()) : children.end();
    if (i == children.end() || x.name.empty()) return;
    x.relays.insert(x.relays.begin(), i->second);
    tell_upstream(
        subtree_component_joined{self_handle(), std::move(x.relays), std::move(x.name)});
  }

  samples_ack on_samples(source_samples& x) {
    samples_ack ack{x.samples.size(), 0};
    auto i = children.find(caf::actor_cast<caf::actor_addr>(self->current_sender()));
    if (i == children.end()) {
      ack.dropped = x.samples.size();  // not registered (any more): nothing to join
      return ack;
    }
    received += x.samples.size();
    if (have_update)
      links[i->first].note(now(), x.samples.size(), x.complete_until != no_watermark,
                           x.complete_until);
    std::vector<sample> complete;
    std::vector<sample> valid;
    valid.reserve(x.samples.size());
    for (auto& s : x.samples)
      if (s.end >= s.start && std::isfinite(s.start) && std::isfinite(s.end) &&
          std::isfinite(s.value))
        valid.push_back(s);
    ack.dropped = x.samples.size() - valid.size();
    aggregator.add_samples(i->second, valid, complete);
    if (x.complete_until != no_watermark) {
      aggregator.add_watermark(i->second, x.complete_until, complete);
      auto& w = watermarks[i->second];
      w = std::max(w, x.complete_until);
    }
    take(complete);
    return ack;
  }

  // TOPOLOGY, asked by the parent: this relay, and below it each child's subtree with the
  // figures of its link as measured here.
  caf::response_promise topology(std::uint32_t budget_ms) {
    topology_node own;
    own.name = options.component;
    own.host = proc::host_name();
    own.kind = "relay";
    std::vector<topology_child> known;
    const time_ns t = have_update ? now() : 0;
    for (auto& [addr, name] : children) {
      topology_child c{caf::actor_cast<caf::actor>(addr), {}};
      c.known.name = name;
      if (auto l = links.find(addr); l != links.end()) measure_link(c.known, l->second, t);
      known.push_back(std::move(c));
    }
    return answer_topology(self, own, std::move(known), budget_ms);
  }

  caf::response_promise define(define_metric& x) {
    auto rp = self->make_response_promise<metric_info>();
    self->request(upstream, caf::infinite, x)
        .then(
            [this, rp](metric_info& m) mutable {
              styles[m.name] = m.style;
              rp.deliver(m);
            },
            [rp](caf::error& e) mutable { rp.deliver(e); });
    return rp;
  }

  // A child that went down or unregistered stops holding the aggregate back; what it sent
  // is kept and goes up as the others advance.
  void child_gone(const caf::actor_addr& child) {
    auto i = children.find(child);
    if (i == children.end()) return;
    auto name = i->second;
    children.erase(i);
    links.erase(child);
    if (has_child_named(name)) return;  // another live child shares the name
    std::vector<sample> complete;
    aggregator.remove_component(name, complete);
    watermarks.erase(name);
    take(complete);
    tell_upstream(subtree_component_gone{self_handle(), {}, name});
    announce_takers_of(name);
  }

  // The upstream hears that a component of this subtree went or joined
  // (subtree_component_gone, subtree_component_joined); while failing over, once registered
  // at the new upstream.
  template <class Notice>
  void tell_upstream(Notice notice) {
    if (!upstream || failing_over)
      told_pending.push_back(caf::make_message(std::move(notice)));
    else
      self->send(upstream, std::move(notice));  // the bridge's ok_reply is dropped below
  }
  caf::actor self_handle() { return caf::actor_cast<caf::actor>(self); }

  bool has_child_named(const std::string& name) const {
    for (auto& [addr, other] : children)
      if (other == name) return true;
    return false;
  }

  // The children that took over from `gone` (it failed over to here) are announced now.
  void announce_takers_of(const std::string& gone, const std::string* only = nullptr) {
    for (auto [i, end] = joined_after.equal_range(gone); i != end;)
      if (!only || i->second == *only) {
        tell_upstream(subtree_component_joined{self_handle(), {}, i->second});
        i = joined_after.erase(i);
      } else {
        ++i;
      }
  }

  void take(const std::vector<sample>& complete) {
    if (auto timer = up.add(complete))
      self->delayed_send(self, options.flush_period, flush_atom::value, *timer);
    if (up.full()) flush();
  }

  // Engine time now on this node's wall clock (the engine's origin came with the update).
  time_ns now() const {
    auto wall =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    return to_ns(wall - origin);
  }

  // Everything before the least watermark of the live children was received from each of
  // them, so aggregated and sent. A child that sent none yet holds nothing (as a daemon's
  // silent source); with no child holding, it is this node's present.
  time_ns watermark() const {
    if (!have_update) return no_watermark;
    return least_held(now(), watermarks);
  }

  // Acknowledged, the watermark is on the upstream: what the children sent before it need not
  // be kept by them once the upstream's own upstream has it too (tell_safe).
  void flush() {
    flush_uplink(self, upstream, up, watermark(), exiting);
  }

  // Every flush period, the children hear what of theirs reached the engine, if that moved.
  void tell_safe() {
    const time_ns safe = up.failover().safe_for_children();
    if (safe == no_watermark || safe <= told_safe) return;
    told_safe = safe;
    for (auto& [addr, name] : children)
      if (auto child = caf::actor_cast<caf::actor>(addr)) self->send(child, samples_safe{safe});
  }

  // The upstream's connection closed: under a relay, go to that relay's upstream.
  void upstream_lost() {
    if (!start_failover(self, options.connect, up.failover(), "relay"))
      return self->quit(caf::exit_reason::remote_link_unreachable);
    failing_over = true;
    up.pause();
  }

  // Registered anew, as taking over from the relay that went down; its children hear where
  // this node's upstream now is, and what the relay had not passed on goes again.
  void reconnected(caf::actor new_upstream) {
    options.upstream_address = up.failover().fallback();
    upstream = std::move(new_upstream);
    failing_over = false;
    up.resume();
    auto again = register_taking_over(self, upstream, options.component, up.failover(), "relay");
    for (auto& [addr, name] : children)
      if (auto child = caf::actor_cast<caf::actor>(addr))
        self->send(child, upstream_info{options.component, options.upstream_address});
    if (!again.empty()) self->send(upstream, source_samples{std::move(again), no_watermark});
    for (auto& m : told_pending) self->send(upstream, std::move(m));
    told_pending.clear();
    flush();
  }
};

// Whatever ends the node, what it holds goes upstream, and whoever waits for it to be ready
// hears why it never will be. CAF destroys a stateful actor's state as the actor ends.
relay_node_state::~relay_node_state() {
  exiting = true;
  flush();
  auto why = self->fail_state() ? self->fail_state() : caf::make_error(caf::exit_reason::normal);
  for (auto& rp : waiting) rp.deliver(why);
}

caf::behavior relay_node(relay_node_actor* self, caf::actor upstream, relay_node_options o) {
  auto& st = self->state;
  st.upstream = std::move(upstream);
  st.up = uplink(o.batch);
  st.options = std::move(o);
  join_upstream(self, [=](const caf::actor_addr& child) { self->state.child_gone(child); });
  // Whatever else a child (or a client of this node) asks goes upstream, where the metric
  // instances, streams and processes live; the answer goes back to whoever asked.
  self->set_default_handler(
      [=](caf::scheduled_actor*, caf::message_view& x) -> caf::result<caf::message> {
        return self->delegate(self->state.upstream, x.move_content_to_message());
      });
  st.learn_metrics();
  return caf::message_handler{
      // ---- from the children, as to a data manager
      [=](source_register& x) { self->state.on_register(x); },
      [=](source_unregister& x) {
        self->demonitor(x.source);
        self->state.child_gone(x.source.address());
      },
      [=](subtree_component_gone& x) { self->state.on_subtree_gone(x); },
      [=](subtree_component_joined& x) { self->state.on_subtree_joined(x); },
      [=](source_samples& x) { return self->state.on_samples(x); },
      [=](flush_atom, std::uint64_t id) {
        if (self->state.up.timer_due(id)) self->state.flush();
      },
      [=](watermark_atom) {
        auto& st = self->state;
        if (st.up.empty()) st.flush();
        st.tell_safe();
        self->delayed_send(self, st.options.quiet_period, watermark_atom::value);
      },
      [=](topology_probe& p) { return self->state.topology(p.budget_ms); },
      // The search's evidence and call graph, asked by the parent: each child's processes.
      [=](window_query& x) {
        return gather_over_tree<window_answers>(self, self->state.child_actors(), x,
                                                tree_gather_wait_in_relay);
      },
      [=](callgraph_request& x) {
        return gather_over_tree<callgraph_report>(self, self->state.child_actors(), x,
                                                  tree_gather_wait_in_relay);
      },
      [=](define_metric& x) { return self->state.define(x); },
      [=](metric_list& l) { self->state.learn(l); },
      [=](relay_node_ready_atom) {
        auto rp = self->make_response_promise<ok_reply>();
        if (self->state.have_update)
          rp.deliver(ok_reply{});
        else
          self->state.waiting.push_back(rp);
        return rp;
      },
      [=](relay_node_stats_atom) {
        auto& st = self->state;
        return caf::make_message(st.received, st.up.samples_sent(), st.up.batches(),
                                 static_cast<std::uint64_t>(st.children.size()));
      },
      [=](samples_ack&) {}, [=](ok_reply) {},  // upstream acknowledged
  }.or_else(from_upstream(self));
}

}  // namespace

caf::actor spawn_relay_node(caf::actor_system& sys, caf::actor upstream, relay_node_options o) {
  if (o.component.empty()) o.component = default_component_name();
  return sys.spawn(relay_node, std::move(upstream), std::move(o));
}

}  // namespace perfdm
