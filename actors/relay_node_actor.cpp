// An internal node of a tree of daemons. See relay_node_actor.hpp.
#include "actors/relay_node_actor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <caf/event_based_actor.hpp>
#include <caf/response_promise.hpp>
#include <map>
#include <vector>

#include "actors/daemon_relay_actor.hpp"
#include "actors/failover_steps.hpp"
#include "actors/topology_probe.hpp"
#include "actors/tree_gather.hpp"
#include "dm/component_aggregator.hpp"
#include "tree/link_meter.hpp"
#include "tree/upstream_failover.hpp"
#include "messages/dm_messages.hpp"
#include "messages/source_messages.hpp"
#include "proc/process_facts.hpp"

namespace perfdm {

namespace {

using flush_atom = caf::atom_constant<caf::atom("rnflush")>;
using watermark_atom = caf::atom_constant<caf::atom("rnwm")>;

class relay_node : public caf::event_based_actor {
 public:
  relay_node(caf::actor_config& cfg, caf::actor upstream, relay_node_options o)
      : caf::event_based_actor(cfg),
        upstream_(std::move(upstream)),
        options_(std::move(o)),
        aggregator_([this](mi_handle h) { return style_of(h); }) {}

  caf::behavior make_behavior() override {
    monitor(upstream_);
    set_down_handler([=](caf::down_msg& x) {
      if (x.source == upstream_.address()) return upstream_lost();
      child_gone(x.source);
    });
    set_error_handler([](caf::error&) {});
    // Whatever else a child (or a client of this node) asks goes upstream, where the metric
    // instances, streams and processes live; the answer goes back to whoever asked.
    set_default_handler([=](caf::scheduled_actor*, caf::message_view& x) -> caf::result<caf::message> {
      return delegate(upstream_, x.move_content_to_message());
    });
    send(upstream_, source_register{caf::actor_cast<caf::actor>(this), options_.component, {}});
    learn_metrics();
    return {
        // ---- from upstream
        [=](source_update& u) { on_update(u); },
        [=](upstream_info& x) { failover_.on_info(x); },
        [=](samples_safe& x) { failover_.on_safe(x.until); },
        [=](reconnect_atom, caf::actor& up) { reconnected(std::move(up)); },
        [=](reconnect_atom, caf::error& e) { quit(e); },
        // ---- from the children, as to a data manager
        [=](source_register& x) {
          if (!x.source || children_.count(x.source.address())) return;
          monitor(x.source);
          auto name = x.component;
          if (name.empty()) name = "child-" + std::to_string(x.source.id());
          children_.emplace(x.source.address(), name);
          links_.insert_or_assign(x.source.address(), link_meter{have_update_ ? now() : 0});
          if (!aggregator_.is_component(name)) aggregator_.add_component(name);
          aggregator_.take_over(name, x.replaces, x.reached);
          send(x.source, upstream_info{options_.component, options_.upstream_address});
          if (have_update_) send(x.source, last_);
          // Taking over from a child whose end is not seen yet: announced after it.
          if (!x.replaces.empty() && has_child_named(x.replaces))
            joined_after_.emplace(x.replaces, name);
          else
            tell_upstream(subtree_component_joined{self_handle(), {}, name});
        },
        [=](source_unregister& x) {
          demonitor(x.source);
          child_gone(x.source.address());
        },
        // A relay below lost one of its children: the upstream hears of it with that
        // relay's name in front of the path (it is ours to know, not the sender's to say).
        [=](subtree_component_gone& x) {
          auto i = x.from ? children_.find(x.from.address()) : children_.end();
          if (i == children_.end() || x.name.empty()) return;
          const auto child = i->second, name = x.name;
          const bool own = x.relays.empty();
          if (own) {  // its own child, which may have failed over to here
            std::vector<sample> complete;
            aggregator_.child_lost(child, name, complete);
            take(complete);
          }
          x.relays.insert(x.relays.begin(), child);
          tell_upstream(
              subtree_component_gone{self_handle(), std::move(x.relays), std::move(x.name)});
          if (own) announce_takers_of(child, &name);  // it failed over here: it counts now
        },
        [=](subtree_component_joined& x) {
          auto i = x.from ? children_.find(x.from.address()) : children_.end();
          if (i == children_.end() || x.name.empty()) return;
          x.relays.insert(x.relays.begin(), i->second);
          tell_upstream(
              subtree_component_joined{self_handle(), std::move(x.relays), std::move(x.name)});
        },
        [=](source_samples& x) -> samples_ack {
          samples_ack ack{x.samples.size(), 0};
          auto i = children_.find(caf::actor_cast<caf::actor_addr>(current_sender()));
          if (i == children_.end()) {
            ack.dropped = x.samples.size();  // not registered (any more): nothing to join
            return ack;
          }
          received_ += x.samples.size();
          if (have_update_)
            links_[i->first].note(now(), x.samples.size(), x.complete_until != no_watermark,
                                  x.complete_until);
          std::vector<sample> complete;
          std::vector<sample> valid;
          valid.reserve(x.samples.size());
          for (auto& s : x.samples)
            if (s.end >= s.start && std::isfinite(s.start) && std::isfinite(s.end) &&
                std::isfinite(s.value))
              valid.push_back(s);
          ack.dropped = x.samples.size() - valid.size();
          aggregator_.add_samples(i->second, valid, complete);
          if (x.complete_until != no_watermark) {
            aggregator_.add_watermark(i->second, x.complete_until, complete);
            auto& w = watermarks_[i->second];
            w = std::max(w, x.complete_until);
          }
          take(complete);
          return ack;
        },
        [=](flush_atom, std::uint64_t id) {
          if (id == batch_id_) flush();
        },
        [=](watermark_atom) {
          if (buffer_.empty()) flush();
          tell_safe();
          delayed_send(this, options_.quiet_period, watermark_atom::value);
        },
        // TOPOLOGY, asked by the parent: this relay, and below it each child's subtree with
        // the figures of its link as measured here.
        [=](topology_probe& p) {
          topology_node own;
          own.name = options_.component;
          own.host = proc::host_name();
          own.kind = "relay";
          std::vector<topology_child> children;
          const time_ns t = have_update_ ? now() : 0;
          for (auto& [addr, name] : children_) {
            topology_child c{caf::actor_cast<caf::actor>(addr), {}};
            c.known.name = name;
            if (auto l = links_.find(addr); l != links_.end()) measure_link(c.known, l->second, t);
            children.push_back(std::move(c));
          }
          return answer_topology(this, own, std::move(children), p.budget_ms);
        },
        // The search's evidence and call graph, asked by the parent: each child's processes.
        [=](window_query& x) {
          return gather_over_tree<window_answers>(this, child_actors(), x,
                                                  tree_gather_wait_in_relay);
        },
        [=](callgraph_request& x) {
          return gather_over_tree<callgraph_report>(this, child_actors(), x,
                                                    tree_gather_wait_in_relay);
        },
        [=](define_metric& x) {
          auto rp = make_response_promise<metric_info>();
          request(upstream_, caf::infinite, x)
              .then(
                  [=](metric_info& m) mutable {
                    styles_[m.name] = m.style;
                    rp.deliver(m);
                  },
                  [=](caf::error& e) mutable { rp.deliver(e); });
          return rp;
        },
        [=](metric_list& l) {
          for (auto& m : l.metrics) styles_[m.name] = m.style;
        },
        [=](relay_node_ready_atom) {
          auto rp = make_response_promise<ok_reply>();
          if (have_update_)
            rp.deliver(ok_reply{});
          else
            waiting_.push_back(rp);
          return rp;
        },
        [=](relay_node_stats_atom) {
          return caf::make_message(received_, sent_, batches_,
                                   static_cast<std::uint64_t>(children_.size()));
        },
        [=](samples_ack&) {}, [=](ok_reply) {},  // upstream acknowledged
    };
  }

 protected:
  void on_exit() override {
    exiting_ = true;
    flush();
    auto why = fail_state() ? fail_state() : caf::make_error(caf::exit_reason::normal);
    for (auto& rp : waiting_) rp.deliver(why);
    waiting_.clear();
  }

 private:
  void learn_metrics() {
    request(upstream_, std::chrono::seconds(30), list_metrics{})
        .then([=](metric_list& l) { for (auto& m : l.metrics) styles_[m.name] = m.style; },
              [](caf::error&) {});
  }

  std::vector<caf::actor> child_actors() const {
    std::vector<caf::actor> out;
    for (auto& [addr, name] : children_) out.push_back(caf::actor_cast<caf::actor>(addr));
    return out;
  }

  metric_style style_of(mi_handle h) const {
    auto i = metric_of_.find(h.id);
    if (i == metric_of_.end()) return metric_style::counter;
    auto j = styles_.find(i->second);
    return j == styles_.end() ? metric_style::counter : j->second;
  }

  void on_update(source_update& u) {
    failover_.on_update();
    bool unknown = false;
    for (auto& m : u.mis) {
      metric_of_[m.mi.id] = m.metric;
      unknown = unknown || !styles_.count(m.metric);
    }
    if (unknown) learn_metrics();
    last_ = u;
    if (!have_update_) {
      have_update_ = true;
      origin_ = u.origin;
      delayed_send(this, options_.quiet_period, watermark_atom::value);
      for (auto& rp : waiting_) rp.deliver(ok_reply{});
      waiting_.clear();
    }
    for (auto& [addr, name] : children_)
      if (auto child = caf::actor_cast<caf::actor>(addr)) send(child, last_);
  }

  // A child that went down or unregistered stops holding the aggregate back; what it sent
  // is kept and goes up as the others advance.
  void child_gone(const caf::actor_addr& child) {
    auto i = children_.find(child);
    if (i == children_.end()) return;
    auto name = i->second;
    children_.erase(i);
    links_.erase(child);
    if (has_child_named(name)) return;  // another live child shares the name
    std::vector<sample> complete;
    aggregator_.remove_component(name, complete);
    watermarks_.erase(name);
    take(complete);
    tell_upstream(subtree_component_gone{self_handle(), {}, name});
    announce_takers_of(name);
  }

  // The upstream hears that a component of this subtree went or joined
  // (subtree_component_gone, subtree_component_joined); while failing over, once registered
  // at the new upstream.
  template <class Notice>
  void tell_upstream(Notice notice) {
    if (!upstream_ || reconnecting_)
      told_pending_.push_back(caf::make_message(std::move(notice)));
    else
      send(upstream_, std::move(notice));  // the bridge's ok_reply is dropped below
  }

  caf::actor self_handle() { return caf::actor_cast<caf::actor>(this); }

  bool has_child_named(const std::string& name) const {
    for (auto& [addr, other] : children_)
      if (other == name) return true;
    return false;
  }

  // The children that took over from `gone` (it failed over to here) are announced now.
  void announce_takers_of(const std::string& gone, const std::string* only = nullptr) {
    for (auto [i, end] = joined_after_.equal_range(gone); i != end;)
      if (!only || i->second == *only) {
        tell_upstream(subtree_component_joined{self_handle(), {}, i->second});
        i = joined_after_.erase(i);
      } else {
        ++i;
      }
  }

  void take(std::vector<sample>& complete) {
    if (complete.empty()) return;
    if (buffer_.empty())
      delayed_send(this, options_.flush_period, flush_atom::value, ++batch_id_);
    buffer_.insert(buffer_.end(), complete.begin(), complete.end());
    if (buffer_.size() >= options_.batch) flush();
  }

  // Engine time now on this node's wall clock (the engine's origin came with the update).
  time_ns now() const {
    auto wall =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    return to_ns(wall - origin_);
  }

  // Everything before the least watermark of the live children was received from each of
  // them, so aggregated and sent. A child that sent none yet holds nothing (as a daemon's
  // silent source); with no child holding, it is this node's present. Never backwards.
  time_ns watermark() const {
    if (!have_update_) return no_watermark;
    time_ns w = now();
    for (auto& [name, mark] : watermarks_) w = std::min(w, mark);
    return std::max(w, sent_watermark_);
  }

  void flush() {
    ++batch_id_;
    if (!upstream_ || reconnecting_) return;  // reconnecting: the batch waits for the new one
    const time_ns w = watermark();
    if (buffer_.empty() && w <= sent_watermark_) return;
    if (!buffer_.empty()) ++batches_;
    sent_ += buffer_.size();
    auto ends = failover_.ends_of(buffer_);
    failover_.on_sent(buffer_);
    // Acknowledged, the watermark is on the upstream: what the children sent before it
    // need not be kept by them once the upstream's own upstream has it too (tell_safe).
    if (exiting_)  // no answer will find this actor: none asked for
      send(upstream_, source_samples{std::move(buffer_), w});
    else
      request(upstream_, caf::infinite, source_samples{std::move(buffer_), w})
          .then([=](samples_ack&) { failover_.on_acked(w, ends); }, [](caf::error&) {});
    sent_watermark_ = w;
    buffer_.clear();
    buffer_.reserve(options_.batch);
  }

  // Every flush period, the children hear what of theirs reached the engine, if that moved.
  void tell_safe() {
    const time_ns safe = failover_.safe_for_children();
    if (safe == no_watermark || safe <= told_safe_) return;
    told_safe_ = safe;
    for (auto& [addr, name] : children_)
      if (auto child = caf::actor_cast<caf::actor>(addr)) send(child, samples_safe{safe});
  }

  // The upstream's connection closed: under a relay, go to that relay's upstream.
  void upstream_lost() {
    if (!start_failover(this, options_.connect, failover_, "relay"))
      return quit(caf::exit_reason::remote_link_unreachable);
    reconnecting_ = true;
  }

  // Registered anew, as taking over from the relay that went down; its children hear where
  // this node's upstream now is, and what the relay had not passed on goes again.
  void reconnected(caf::actor up) {
    options_.upstream_address = failover_.fallback();
    upstream_ = std::move(up);
    reconnecting_ = false;
    auto again = register_taking_over(this, upstream_, options_.component, failover_, "relay");
    for (auto& [addr, name] : children_)
      if (auto child = caf::actor_cast<caf::actor>(addr))
        send(child, upstream_info{options_.component, options_.upstream_address});
    if (!again.empty()) send(upstream_, source_samples{std::move(again), no_watermark});
    for (auto& m : told_pending_) send(upstream_, std::move(m));
    told_pending_.clear();
    flush();
  }

  caf::actor upstream_;
  relay_node_options options_;
  upstream_failover failover_;
  bool reconnecting_ = false;
  bool exiting_ = false;
  time_ns told_safe_ = no_watermark;
  component_aggregator aggregator_;
  std::map<caf::actor_addr, std::string> children_;  // live children and their names
  std::map<std::string, time_ns> watermarks_;        // the latest of each live child
  std::map<caf::actor_addr, link_meter> links_;      // what each live child's link carries
  std::map<std::uint64_t, std::string> metric_of_;   // MI id -> metric name
  std::map<std::string, metric_style> styles_;       // metric name -> style
  source_update last_;
  bool have_update_ = false;
  double origin_ = 0;
  std::vector<sample> buffer_;
  std::uint64_t batch_id_ = 0;
  std::uint64_t received_ = 0;
  std::uint64_t sent_ = 0;
  std::uint64_t batches_ = 0;
  time_ns sent_watermark_ = no_watermark;
  std::vector<caf::typed_response_promise<ok_reply>> waiting_;
  std::vector<caf::message> told_pending_;  // children gone or joined while failing over
  // Children that took over from a child still live here, by that child's name: announced
  // once it is gone (as the engine's announce_after_).
  std::multimap<std::string, std::string> joined_after_;
};

}  // namespace

caf::actor spawn_relay_node(caf::actor_system& sys, caf::actor upstream, relay_node_options o) {
  if (o.component.empty()) o.component = default_component_name();
  return sys.spawn<relay_node>(std::move(upstream), std::move(o));
}

}  // namespace perfdm
