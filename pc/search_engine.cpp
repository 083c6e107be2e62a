#include "pc/search_engine.hpp"

#include <algorithm>

#include "proc/mpi_job.hpp"

namespace perfdm::pc {

namespace {

admission_limits limits_of(const tunables& t) {
  return {t.max_pending, t.max_active, t.cost_budget};
}

}  // namespace

const char* search_state_name(search_state s) {
  switch (s) {
    case search_state::running:
      return "running";
    case search_state::paused:
      return "paused";
    case search_state::ended:
      return "ended";
  }
  return "running";
}

search_engine::search_engine(tunables settings, double start)
    : settings_(settings), start_(start), admission_(limits_of(settings)) {
  for (auto h : all_hypotheses()) {
    if (info(h).parent) continue;
    auto [id, made] = graph_.reach(h, focus{}, std::nullopt, edge_kind::why);
    auto& n = graph_.at(id);
    n.persistent = true;
    n.threshold = settings_.threshold(h);
    if (made) admission_.push(id, why_priority);
    tops_[h] = id;
  }
}

decision_rule search_engine::rule_for(hypothesis h) const {
  return {settings_.threshold(h), info(h).greater, settings_.hysteresis, settings_.sufficient_time};
}

evidence_rule search_engine::evidence_rule_for(hypothesis h) const {
  evidence_rule r;
  r.threshold = settings_.threshold(h);
  r.greater = info(h).greater;
  r.hysteresis = settings_.hysteresis;
  r.confidence = settings_.confidence;
  if (info(h).kind == value_kind::ratio) r.io_threshold = settings_.io_threshold;
  return r;
}

void search_engine::retune(const tunables& settings) {
  settings_ = settings;
  admission_.set_limits(limits_of(settings));
  for (auto& n : graph_.nodes()) {
    auto& node = graph_.at(n.id);
    node.threshold = settings_.threshold(node.hyp);
    if (auto e = experiments_.find(n.id); e != experiments_.end() && e->second.decision)
      e->second.decision->set_rule(rule_for(node.hyp));
    if (auto e = experiments_.find(n.id); e != experiments_.end() && e->second.evidence)
      e->second.evidence->set_rule(evidence_rule_for(node.hyp));
  }
}

void search_engine::pause() {
  if (state_ == search_state::running) state_ = search_state::paused;
}

void search_engine::resume() {
  if (state_ == search_state::paused) state_ = search_state::running;
}

std::vector<disable_order> search_engine::end() {
  if (state_ == search_state::ended) return {};
  state_ = search_state::ended;
  for (auto& [id, e] : experiments_) {
    if (graph_.at(id).active) stop_experiment(id);
    e.pending = false;
  }
  // Experiments pending an enable are disabled as their replies come (enabled()).
  return take_disables();
}

void search_engine::add_resource(const std::string& name) {
  if (!tree_.add(name)) return;
  start_each_process();
  refine_all_true();
}

// Over several hosts (a tree of daemons) the top focus averages every process: one process in
// 64 that waits on a lock is 1/64 of the whole and never passes a threshold there, and the
// whole-program interval adds one interval per process. So, as Paradyn's Distributed
// Performance Consultant searched each process as well as the whole (Roth & Miller, PPoPP
// 2006), each top hypothesis also starts at every process, decided on that process's samples
// alone, as a where-child of its top node; the report folds the processes that behave alike.
// An MPI job's ranks (processes named by their rank, proc/mpi_job.hpp) are searched each the
// same way on one host too: a late rank's work and the others' waits at the MPI call are
// findings of their own ranks (pc/rank_imbalance.hpp), folded by rank. Other processes on one
// host are searched from the top only, as before.
void search_engine::start_each_process() {
  const auto& machine = hierarchy_root(hierarchy::machine);
  auto hosts = tree_.refinements(hierarchy::machine, machine);
  auto ranked = [](const std::string& process) {
    auto part = process.substr(process.rfind('/') + 1);
    return proc::rank_in_process_name(part.substr(0, part.rfind('{'))).has_value();
  };
  for (auto& host : hosts)
    for (auto& process : tree_.refinements(hierarchy::machine, host)) {
      if (hosts.size() < 2 && !ranked(process)) continue;
      if (!started_processes_.insert(process).second) continue;
      for (auto [h, top] : tops_) {
        auto [id, made] = graph_.reach(h, focus{}.with(hierarchy::machine, process), top,
                                       edge_kind::where);
        if (!made) continue;
        auto& n = graph_.at(id);
        n.reached_by = hierarchy::machine;
        n.threshold = settings_.threshold(h);
        windows_only_.insert(id);
        admission_.push(id, why_priority);
        changed(id);
      }
    }
}

void search_engine::set_call_graph(std::vector<std::string> entries, std::vector<call_edge> edges) {
  if (tree_.set_call_graph(std::move(entries), std::move(edges))) refine_all_true();
}

std::uint32_t search_engine::pending_count() const {
  std::uint32_t n = 0;
  for (auto& [id, e] : experiments_) n += e.pending ? 1 : 0;
  return n;
}

std::uint32_t search_engine::active_count() const {
  std::uint32_t n = 0;
  for (auto& [id, e] : experiments_) n += graph_.at(id).active ? 1 : 0;
  return n;
}

std::vector<enable_order> search_engine::admit() {
  std::vector<enable_order> out;
  if (state_ != search_state::running) return out;
  while (auto id = admission_.next(pending_count(), active_count())) {
    auto& n = graph_.at(*id);
    if (n.state != node_state::never || experiments_.count(*id)) continue;
    auto& e = experiments_[*id];
    e.pending = true;
    if (uses_evidence()) {
      // Decided on the window of samples since the search began: it collects at once, its
      // metric instances are for the data manager's other users (dashboard, log).
      e.evidence.emplace(evidence_rule_for(n.hyp));
      n.active = true;
      n.threshold = settings_.threshold(n.hyp);
      // A process's own start over a cluster has none: 3 per process, each an MI every
      // daemon hears of, and enables the admission waits for 30 at a time.
      if (windows_only_.count(*id)) {
        e.pending = false;
        continue;
      }
    }
    auto& metrics = info(n.hyp).metrics;
    for (std::size_t i = 0; i < metrics.size(); ++i) out.push_back({*id, i, metrics[i], n.focus});
  }
  return out;
}

void search_engine::enabled(std::uint64_t id, std::size_t input, double now) {
  auto e = experiments_.find(id);
  if (e == experiments_.end()) return;
  auto& n = graph_.at(id);
  auto inputs = info(n.hyp).metrics.size();
  if (state_ == search_state::ended || e->second.stopped) {  // too late: release it at once
    disables_.push_back({id, input});
    return;
  }
  if (!e->second.pending) {  // an evidence node whose other enable was refused
    if (e->second.evidence) disables_.push_back({id, input});
    return;
  }
  if (++e->second.enabled < inputs) return;
  e->second.pending = false;
  if (e->second.evidence) return;  // decided on the evidence, not on the MIs' data
  e->second.series.emplace(inputs, now);
  e->second.decision.emplace(rule_for(n.hyp), now);
  e->second.last_end = now;
  n.active = true;
  n.state = node_state::unknown;
  n.threshold = settings_.threshold(n.hyp);
  changed(id);
}

void search_engine::enable_failed(std::uint64_t id) {
  auto e = experiments_.find(id);
  if (e == experiments_.end()) return;
  // Its other inputs may have been enabled: release them.
  for (std::size_t i = 0; i < e->second.enabled; ++i) disables_.push_back({id, i});
  if (e->second.evidence) {  // the window still decides it; only its MIs are missing
    e->second.enabled = 0;
    e->second.pending = false;
    return;
  }
  experiments_.erase(e);
}

std::vector<std::uint64_t> search_engine::wanting_evidence() const {
  std::vector<std::uint64_t> out;
  if (state_ != search_state::running) return out;
  for (auto& [id, e] : experiments_)
    if (e.evidence && !e.stopped && graph_.at(id).active) out.push_back(id);
  return out;
}

const evidence_decision* search_engine::evidence_of(std::uint64_t id) const {
  auto e = experiments_.find(id);
  return e == experiments_.end() || !e->second.evidence ? nullptr : &*e->second.evidence;
}

void search_engine::evidence(std::uint64_t id, const std::vector<process_evidence>& ev,
                             double time) {
  if (state_ != search_state::running) return;
  auto e = experiments_.find(id);
  if (e == experiments_.end() || !e->second.evidence || e->second.stopped) return;
  auto& n = graph_.at(id);
  if (!n.active) return;
  bool change = e->second.evidence->take(n.hyp, ev);
  auto& last = e->second.evidence->last();
  n.value = last.value;
  n.score = last.score;
  n.threads = last.threads;
  n.blamed = last.blamed;
  n.idle = last.idle;
  if (n.state == node_state::never) {
    n.state = node_state::unknown;
    changed(id);
  }
  if (change) concluded(id, time);
}

void search_engine::data(std::uint64_t id, std::size_t input, double bucket_start,
                         double bucket_end, double value) {
  auto e = experiments_.find(id);
  if (e == experiments_.end() || !e->second.series) return;
  e->second.series->add(input, bucket_start, bucket_end, value);
}

double search_engine::value_of(std::uint64_t id, double end, bool& meaningful) const {
  auto& n = graph_.at(id);
  auto& s = *experiments_.at(id).series;
  meaningful = true;
  double span = end - s.start();
  switch (info(n.hyp).kind) {
    case value_kind::rate_per_process: {
      auto processes = static_cast<double>(tree_.processes_under(n.focus[hierarchy::machine]));
      return span > 0 ? s.sum_until(0, end) / span / processes : 0;
    }
    case value_kind::ratio: {
      double ops = s.sum_until(1, end);
      // No operation: there is no mean size to call small (and a division by <= 0 gives 0).
      meaningful = ops > 0;
      return ops > 0 ? s.sum_until(0, end) / ops : 0;
    }
  }
  return 0;
}

void search_engine::evaluate(double now) {
  if (state_ != search_state::running) return;
  for (auto& [id, e] : experiments_) {
    if (!graph_.at(id).active || !e.series) continue;
    e.series->idle_until(now);
    auto end = e.series->aligned_end();
    if (!end || *end <= e.last_end) continue;
    e.last_end = *end;
    bool meaningful;
    double value = value_of(id, *end, meaningful);
    graph_.at(id).value = value;
    bool change = meaningful ? e.decision->evaluate(value, *end) : e.decision->evaluate_false(*end);
    if (change) concluded(id, *end);
  }
}

void search_engine::concluded(std::uint64_t id, double time) {
  auto& ex = experiments_.at(id);
  auto truth_now = ex.evidence ? ex.evidence->concluded() : ex.decision->concluded();
  auto& n = graph_.at(id);
  n.state = truth_now == truth::true_ ? node_state::true_ : node_state::false_;
  if (n.state == node_state::true_) n.since = time - start_;
  changed(id);
  if (n.state == node_state::true_) {
    refine(id);
    return;
  }
  if (!n.persistent) stop_experiment(id);
  // A where-parent refining narrowly moves on once every child of a hierarchy is false.
  for (auto& p : std::vector<shg_edge>(graph_.at(id).parents))
    if (p.kind == edge_kind::where && graph_.at(p.from).state == node_state::true_)
      refine_where(p.from);
}

void search_engine::stop_experiment(std::uint64_t id) {
  auto& n = graph_.at(id);
  auto& e = experiments_.at(id);
  for (std::size_t i = 0; i < e.enabled; ++i) disables_.push_back({id, i});
  e.enabled = 0;
  if (e.pending) e.stopped = true;  // its enables still to come are released as they come
  if (n.active) {
    n.active = false;
    changed(id);
  }
}

void search_engine::refine(std::uint64_t id) {
  graph_.at(id).refined = true;
  // Why first: the sub-hypotheses at the same focus (key 5).
  for (auto h : all_hypotheses()) {
    if (info(h).parent != graph_.at(id).hyp) continue;
    auto [child, made] = graph_.reach(h, graph_.at(id).focus, id, edge_kind::why);
    if (!made) continue;
    auto& c = graph_.at(child);
    c.reached_by = graph_.at(id).reached_by;
    c.threshold = settings_.threshold(h);
    admission_.push(child, why_priority);
    changed(child);
  }
  refine_where(id);
}

std::vector<hierarchy> search_engine::where_order(const shg_node& n) const {
  std::vector<hierarchy> order;
  auto pruned = info(n.hyp).pruned;
  // Paradyn prunes /Machine for sync waiting: on one host the lock and the code say where.
  // Over several hosts (a tree of daemons) which process waits is half the answer, and a
  // lock lives in one process: the search goes down /Machine then too, to the process (its
  // threads, each waiting on the same lock, would only repeat it).
  auto& machine = n.focus[hierarchy::machine];
  if (std::count(machine.begin(), machine.end(), '/') < 3 &&
      tree_.refinements(hierarchy::machine, hierarchy_root(hierarchy::machine)).size() > 1)
    pruned[static_cast<std::size_t>(hierarchy::machine)] = false;
  if (n.reached_by && !pruned[static_cast<std::size_t>(*n.reached_by)])
    order.push_back(*n.reached_by);
  for (auto h : all_hierarchies)
    if (!pruned[static_cast<std::size_t>(h)] &&
        std::find(order.begin(), order.end(), h) == order.end())
      order.push_back(h);
  return order;
}

std::vector<std::uint64_t> search_engine::add_where_children(std::uint64_t id, hierarchy h) {
  std::vector<std::uint64_t> kids;
  auto f = graph_.at(id).focus;
  auto hyp = graph_.at(id).hyp;
  for (auto& c : tree_.refinements(h, f[h])) {
    auto [child, made] = graph_.reach(hyp, f.with(h, c), id, edge_kind::where);
    kids.push_back(child);
    if (!made) continue;
    auto& n = graph_.at(child);
    n.reached_by = h;
    n.threshold = settings_.threshold(hyp);
    admission_.push(child, where_priority);
    changed(child);
  }
  return kids;
}

void search_engine::refine_where(std::uint64_t id) {
  if (state_ == search_state::ended) return;
  auto order = where_order(graph_.at(id));
  if (graph_.at(id).focus.is_top()) {
    // The first where-expansion goes wide: the children in every hierarchy at once.
    for (auto h : order) add_where_children(id, h);
    return;
  }
  // Later ones go narrow: one hierarchy at a time; the next once every child in the current
  // one is false (or it has none). Earlier hierarchies are looked at again for new children.
  auto stage = graph_.at(id).where_stage;
  for (std::size_t s = 0; s < stage && s < order.size(); ++s) add_where_children(id, order[s]);
  while (graph_.at(id).where_stage < order.size()) {
    auto kids = add_where_children(id, order[graph_.at(id).where_stage]);
    bool all_false = std::all_of(kids.begin(), kids.end(), [&](std::uint64_t k) {
      return graph_.at(k).state == node_state::false_;
    });
    if (!all_false) break;
    ++graph_.at(id).where_stage;
  }
}

void search_engine::refine_all_true() {
  if (state_ == search_state::ended) return;
  for (std::size_t id = 0; id < graph_.size(); ++id)
    if (graph_.at(id).state == node_state::true_ && graph_.at(id).refined) refine_where(id);
}

void search_engine::observe_cost(double cost_s, double covered_s) {
  admission_.observe_cost(cost_s, covered_s);
}

bool search_engine::settled() const {
  if (admission_.queued() != 0) return false;
  for (auto& [id, e] : experiments_) {
    if (e.pending) return false;
    auto& n = graph_.at(id);
    if (n.active && n.state == node_state::unknown) return false;
  }
  return true;
}

void search_engine::changed(std::uint64_t id) {
  changes_.push_back(id);
}

std::vector<std::uint64_t> search_engine::take_changes() {
  return std::exchange(changes_, {});
}

std::vector<disable_order> search_engine::take_disables() {
  return std::exchange(disables_, {});
}

}  // namespace perfdm::pc
