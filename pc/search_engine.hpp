// One automated search (the global one, or one phase's): the search history graph grown by
// refining true nodes, the experiments it wants enabled or disabled, and the decisions from
// their data. Plain C++: the search actor (actors/search_actor.*) turns orders into data
// manager requests and feeds back replies and data; time is data time (seconds of the data
// manager's clock), so the same data always grows the same graph.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pc/admission.hpp"
#include "pc/evidence.hpp"
#include "pc/experiment_series.hpp"
#include "pc/hypotheses.hpp"
#include "pc/node_decision.hpp"
#include "pc/resource_tree.hpp"
#include "pc/search_graph.hpp"

namespace perfdm::pc {

// Enable metric `metric` at `focus` as input `input` of node `node`'s experiment.
struct enable_order {
  std::uint64_t node;
  std::size_t input;
  std::string metric;
  pc::focus focus;
};
struct disable_order {
  std::uint64_t node;
  std::size_t input;
};

enum class search_state { running, paused, ended };
const char* search_state_name(search_state s);  // "running", "paused", "ended"

class search_engine {
 public:
  // A search starting at data time `start` with one persistent node per top-level hypothesis
  // at the top focus </Code, /Machine, /SyncObject>.
  search_engine(tunables settings, double start);

  const tunables& settings() const { return settings_; }
  // New tunables: every node's threshold and deciding rule follow from its next evaluation.
  void retune(const tunables& settings);
  search_state state() const { return state_; }
  void pause();
  void resume();
  // Ends the search: every node becomes inactive and keeps its truth; nothing is started or
  // decided any more. Returns the experiments still enabled.
  std::vector<disable_order> end();

  // What the where axis offers; a change refines the true nodes again (a function or thread
  // discovered after its parent was refined is added to it). Over several hosts (or an MPI
  // job's ranks) each top hypothesis also starts at every process (start_each_process).
  void add_resource(const std::string& name);
  void set_call_graph(std::vector<std::string> entries, std::vector<call_edge> edges);
  const resource_tree& resources() const { return tree_; }

  // The experiments to start now (admission: priority, pending and active limits, cost).
  std::vector<enable_order> admit();
  // Input `input` of `node` is enabled at data time `now`; with all its inputs the node's
  // experiment starts there.
  void enabled(std::uint64_t node, std::size_t input, double now);
  // An enable was refused: the node stays never evaluated and inactive.
  void enable_failed(std::uint64_t node);
  // A completed bucket of an input.
  void data(std::uint64_t node, std::size_t input, double bucket_start, double bucket_end,
            double value);
  // Evaluates every active node on its data up to `now` (the latest data time seen; inputs
  // with nothing up to there are idle).
  void evaluate(double now);
  // The evidence rule (no SUFFICIENT_TIME): the nodes that want evidence now (every node
  // whose experiment started and was not stopped), and the evidence of one of them, the
  // counts at its focus from the search's start to data time `time` (one entry per process).
  bool uses_evidence() const { return settings_.sufficient_time <= 0; }
  std::vector<std::uint64_t> wanting_evidence() const;
  void evidence(std::uint64_t node, const std::vector<process_evidence>& e, double time);
  // The nodes' decisions on the evidence (for the report: samples, interval).
  const evidence_decision* evidence_of(std::uint64_t node) const;

  // The sampler's measured cost over an interval (PROFILE's COST and MONTIME differences).
  void observe_cost(double cost_s, double covered_s);
  bool cost_limited() const { return admission_.over_budget(); }

  const search_graph& graph() const { return graph_; }
  double start() const { return start_; }
  // Nothing queued, pending or undecided: the search has said what it can.
  bool settled() const;

  // Nodes whose state or activity changed since the last call, in the order they changed.
  std::vector<std::uint64_t> take_changes();
  std::vector<disable_order> take_disables();

 private:
  struct experiment {
    std::size_t enabled = 0;
    bool pending = false;
    std::optional<experiment_series> series;
    std::optional<node_decision> decision;
    std::optional<evidence_decision> evidence;  // the evidence rule's instead
    bool stopped = false;  // concluded false before all its enables were answered
    double last_end = 0;
  };

  decision_rule rule_for(hypothesis h) const;
  evidence_rule evidence_rule_for(hypothesis h) const;
  void changed(std::uint64_t id);
  void concluded(std::uint64_t id, double time);
  void stop_experiment(std::uint64_t id);
  void refine(std::uint64_t id);
  void refine_where(std::uint64_t id);
  std::vector<hierarchy> where_order(const shg_node& n) const;
  std::vector<std::uint64_t> add_where_children(std::uint64_t id, hierarchy h);
  void refine_all_true();
  void start_each_process();
  double value_of(std::uint64_t id, double end, bool& meaningful) const;
  std::uint32_t pending_count() const;
  std::uint32_t active_count() const;

  tunables settings_;
  double start_;
  search_state state_ = search_state::running;
  search_graph graph_;
  resource_tree tree_;
  admission admission_;
  std::map<std::uint64_t, experiment> experiments_;
  std::vector<std::uint64_t> changes_;
  std::vector<disable_order> disables_;
  std::map<hypothesis, std::uint64_t> tops_;  // the node of each top-level hypothesis at the top
  std::set<std::string> started_processes_;  // processes each top hypothesis started at
  // Nodes decided on the windows alone, without metric instances (a process's own start,
  // under the evidence rule).
  std::set<std::uint64_t> windows_only_;
};

}  // namespace perfdm::pc
