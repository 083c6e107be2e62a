// The data manager's data sources, samples, folds and reading
// (actors/data_manager_state.hpp).
#include "actors/daemon_relay_actor.hpp"
#include "actors/data_manager_state.hpp"
#include "actors/topology_probe.hpp"
#include "proc/process_facts.hpp"

namespace perfdm::detail {

void data_manager_state::record_source_samples(const std::vector<sample>& samples) {
  if (!recording.on()) return;
  samples_request kept;
  for (auto& s : samples)
    if (find_mi(s.mi)) kept.samples.push_back(s);
  if (kept.samples.size() < samples.size())
    recording.comment(now(), sender_id(),
                      std::to_string(samples.size() - kept.samples.size()) +
                          " samples of deleted metric instances left out");
  if (!kept.samples.empty()) record(kept);
}

source_update data_manager_state::collection_set() const {
  return tables.collection_set(to_seconds(interval), origin);
}

void data_manager_state::notify_sources() {
  if (auto u = sources.changed(collection_set()))
    for (auto& s : sources.sources()) self->send(s, *u);
}

void data_manager_state::on_source_register(const source_register& x) {
  auto& source = x.source;
  auto& component = x.component;
  auto current = collection_set();
  if (!sources.add(source, component, current, x.replaces, x.reached)) return;
  self->monitor(source);
  if (!component.empty()) {
    links.insert_or_assign(source.address(), link_meter{link_now()});
    // One taking over from a relay whose end is not seen yet is announced after it.
    if (!x.replaces.empty() && sources.waits(component))
      announce_after.emplace(x.replaces, component);
    else
      for (auto& [h, a] : streams) self->send(a, component_added_event{h, component});
  }
  self->send(source, current);
}

void data_manager_state::on_source_gone(const caf::actor_addr& source) {
  std::vector<sample> complete;
  auto name = sources.remove(source, complete);
  links.erase(source);
  if (!name) return;
  for (auto& [h, a] : streams) self->send(a, component_removed_event{h, *name});
  for (auto [i, end] = announce_after.equal_range(*name); i != end; i = announce_after.erase(i))
    for (auto& [h, a] : streams) self->send(a, component_added_event{h, i->second});
  if (!complete.empty()) caf::anon_send(self, source_samples{std::move(complete)});
}

// The path of relays from the engine down to the one that sent `from`'s notice (`relays`
// below it), or nothing when `from` is no component (any more: its own COMPONENTREMOVED told
// the streams of its subtree).
std::optional<std::string> data_manager_state::relay_path(
    const caf::actor& from, const std::vector<std::string>& relays) const {
  auto* relay = from ? sources.component_of(from.address()) : nullptr;
  if (!relay) return std::nullopt;
  std::string path = *relay;
  for (auto& r : relays) path += "/" + r;
  return path;
}

void data_manager_state::on_subtree_component_joined(const subtree_component_joined& x) {
  auto path = relay_path(x.from, x.relays);
  if (!path || x.name.empty()) return;
  for (auto& [h, a] : streams) self->send(a, component_added_event{h, x.name, *path});
}

void data_manager_state::on_subtree_component_gone(const subtree_component_gone& x) {
  auto path = relay_path(x.from, x.relays);
  if (!path || x.name.empty()) return;
  for (auto& [h, a] : streams) self->send(a, component_removed_event{h, x.name, *path});
  if (!x.relays.empty()) return;
  // A child of that relay that failed over here as if the relay had died (its own link to it
  // was lost) no longer waits for the relay's end: it is announced, and its samples go in.
  const std::string parent = *path;  // the relay itself, as no relay is below it
  std::vector<sample> complete;
  if (!sources.child_lost(parent, x.name, complete)) return;
  for (auto [i, end] = announce_after.equal_range(parent); i != end;)
    if (i->second == x.name) {
      for (auto& [h, a] : streams) self->send(a, component_added_event{h, x.name});
      i = announce_after.erase(i);
    } else {
      ++i;
    }
  if (!complete.empty()) caf::anon_send(self, source_samples{std::move(complete)});
}

caf::response_promise data_manager_state::on_source_samples(std::vector<sample>& samples,
                                                            time_ns complete_until) {
  auto* component = sources.component_of(caf::actor_cast<caf::actor_addr>(self->current_sender()));
  if (!component) {
    record_source_samples(samples);
    return on_samples(samples, false);
  }
  for (auto& s : samples)
    if (auto err = check_sample(s)) return fail(*err);
  if (auto err = check_watermark(complete_until)) return fail(*err);
  links[caf::actor_cast<caf::actor_addr>(self->current_sender())].note(
      link_now(), samples.size(), complete_until != no_watermark, complete_until);
  std::vector<sample> complete;
  sources.aggregate(*component, samples, complete_until, complete);
  if (complete.empty()) {
    // A watermark alone, or samples held back for the other components: nothing goes in, so
    // nothing is recorded and no stream has anything to flush. Answered at once: awaiting
    // the flush of every stream for each such message (a daemon sends one every --flush-ms)
    // kept the data manager waiting, and CAF rescans its whole mailbox at every resume while
    // it awaits: with 16 daemons its mailbox grew faster than it was served.
    auto rp = self->make_response_promise();
    rp.deliver(samples_ack{});
    return rp;
  }
  record_source_samples(complete);
  return on_samples(complete, false);
}

caf::response_promise data_manager_state::on_samples(std::vector<sample>& samples, bool strict) {
  for (auto& s : samples) {
    if (strict)
      if (auto err = tables.check_mi(s.mi)) return fail(*err);
    if (auto err = check_sample(s)) return fail(*err);
  }
  auto job = std::make_shared<samples_job>();
  job->samples = std::move(samples);
  job->rp = self->make_response_promise();
  run_samples(job);
  return job->rp;
}

void data_manager_state::send_pending(samples_job& job) {
  for (auto& [id, batch] : job.pending) {
    if (batch.empty()) continue;
    if (find_mi(mi_handle{id})) self->send(mi_actor(mi_handle{id}), mi_samples{std::move(batch)});
    batch.clear();
  }
}

void data_manager_state::run_samples(std::shared_ptr<samples_job> job) {
  for (; job->next < job->samples.size(); ++job->next) {
    auto& s = job->samples[job->next];
    auto t1 = to_ns(s.end);
    latest_end = std::max(latest_end, t1);  // C1
    if (auto f = next_fold()) {
      // B4/F2: what arrived before the fold is applied at the old width first.
      send_pending(*job);
      fold(
          *f, [=] { run_samples(job); }, job->rp);
      return;
    }
    auto* e = find_mi(s.mi);
    if (!e || !e->summary.collecting) {
      ++job->ack.dropped;
      ++counters.samples_dropped;
      continue;
    }
    auto& batch = job->pending[s.mi.id];
    if (batch.empty() &&
        std::find(job->touched.begin(), job->touched.end(), s.mi.id) == job->touched.end())
      job->touched.push_back(s.mi.id);
    batch.push_back(raw_sample{to_ns(s.start), t1, s.value});
    ++job->ack.count;
    ++counters.samples;
  }
  send_pending(*job);
  std::vector<std::pair<mi_handle, metric_instance_actor_type>> targets;
  for (auto id : job->touched)
    if (find_mi(mi_handle{id})) targets.emplace_back(mi_handle{id}, mi_actor(mi_handle{id}));
  // The MIs have sent their completed buckets once they answer a sync.
  await_all<ok_reply>(
      targets, mi_sync{}, [](mi_handle, ok_reply&) {},
      [=] { finish(job->rp, caf::make_message(job->ack)); }, job->rp);
}

void data_manager_state::fold(pending_fold f, continuation done, caf::response_promise rp) {
  bool current_folds = widths.apply(f);
  std::vector<mi_handle> targets;
  for (auto h : live_mis())
    if (f.global || find_mi(h)->summary.has_current) targets.push_back(h);
  await_mis(
      targets, mi_fold{f.start, f.width},
      [=] {
        // F1: every stream hears of the fold, subscribed or not; phase 0 folds both kinds.
        std::vector<phase_type> types;
        if (f.global) types.push_back(phase_type::global);
        if (current_folds) types.push_back(phase_type::current);
        for (auto type : types)
          for (auto& [h, a] : streams) self->send(a, fold_event{h, type, to_seconds(f.width)});
        apply_interval_rule(si_fold{f.global, current_folds, f.width, view()}, done);
      },
      rp);
}

caf::response_promise data_manager_state::on_data(data_request& x) {
  if (auto err = tables.check_mi(x.mi)) return fail(*err);
  mi_data q{x.phase.type, false, {}};
  if (x.phase.named) {
    if (x.phase.id.id >= next_phase)
      return fail(make_dm_error(dm_error::unknown_handle, "no phase " + to_string(x.phase.id)));
    if (x.phase.id == current_phase)
      q.type = phase_type::current;
    else
      q = mi_data{phase_type::current, true, x.phase.id};  // N2: the archive of that phase
  }
  auto rp = self->make_response_promise();
  self->request(mi_actor(x.mi), caf::infinite, q)
      .await([=](histogram_data& d) mutable { rp.deliver(d); },
             [=](caf::error& e) mutable { rp.deliver(e); });
  return rp;
}

caf::response_promise data_manager_state::on_status() {
  auto rp = self->make_response_promise();
  auto out = std::make_shared<status_info>();
  out->now = to_seconds(now());
  out->interval = to_seconds(interval);
  out->phase = current_phase;
  out->components.assign(sources.components().begin(), sources.components().end());
  auto hs = live_mis();
  out->mis.resize(hs.size());
  auto index = std::make_shared<std::map<std::uint64_t, std::size_t>>();
  for (std::size_t i = 0; i < hs.size(); ++i) (*index)[hs[i].id] = i;
  await_all<mi_status>(
      mi_targets(hs), mi_status_query{},
      [=](mi_handle h, mi_status& s) {
        auto* e = find_mi(h);
        s.metric = tables.metrics()[e->metric.id].name;
        s.focus = tables.focus_name(e->focus);
        out->mis[index->at(h.id)] = std::move(s);
      },
      [=]() mutable { rp.deliver(*out); }, rp);
  return rp;
}

time_ns data_manager_state::link_now() const {
  auto wall =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  return to_ns(wall - origin);
}

caf::response_promise data_manager_state::on_topology() {
  topology_node own;
  own.name = default_component_name();
  own.host = proc::host_name();
  own.kind = "engine";
  std::vector<topology_child> children;
  const time_ns t = link_now();
  for (auto& source : sources.sources()) {
    auto* name = sources.component_of(source.address());
    if (!name) {
      ++own.sources;  // a local source: a process this engine watches or attached itself
      continue;
    }
    topology_child c{source, {}};
    c.known.name = *name;
    if (auto l = links.find(source.address()); l != links.end())
      measure_link(c.known, l->second, t);
    own.samples_per_s += c.known.samples_per_s;
    children.push_back(std::move(c));
  }
  return answer_topology(self, own, std::move(children), topology_probe{}.budget_ms);
}

std::vector<caf::actor> data_manager_state::tree_targets() const {
  std::vector<caf::actor> out{registry};
  for (auto& source : sources.sources())
    if (sources.component_of(source.address())) out.push_back(source);
  return out;
}

}  // namespace perfdm::detail
