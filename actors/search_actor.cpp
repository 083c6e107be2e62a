#include "actors/search_actor.hpp"

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>

#include "actors/fan_out.hpp"
#include "messages/callgraph_messages.hpp"
#include "messages/dm_error.hpp"
#include "messages/evidence_messages.hpp"
#include "messages/native_messages.hpp"
#include "messages/process_messages.hpp"
#include "native/pc_resources.hpp"
#include "pc/search_engine.hpp"
#include "pc/search_wire.hpp"

namespace perfdm {

namespace {

// The measured cost of the sampler is read this often (PROFILE's COST and MONTIME).
constexpr auto cost_period = std::chrono::seconds(1);
struct cost_tick {};
PERFDM_INSPECT_EMPTY(cost_tick)
// The evidence rule looks at the windows this often (and at once for a node just made).
constexpr auto evidence_period = std::chrono::milliseconds(250);
struct evidence_tick {};
PERFDM_INSPECT_EMPTY(evidence_tick)

// The metrics every hypothesis needs; no experiment starts before they are defined.
const char* const pc_metrics[] = {"cpu", "sync_wait", "io_wait", "io_ops", "io_bytes"};

struct search_slot {
  std::uint64_t id;
  phase_type type;
  phase_handle phase;
  std::unique_ptr<pc::search_engine> engine;
};

// Which experiment input a metric instance feeds.
struct input_ref {
  std::uint64_t search;
  std::uint64_t node;
  std::size_t input;
  friend bool operator<(const input_ref& a, const input_ref& b) {
    return std::tie(a.search, a.node, a.input) < std::tie(b.search, b.node, b.input);
  }
};

struct search_actor_state;
using search_self = caf::stateful_actor<search_actor_state>;

struct search_actor_state {
  explicit search_actor_state(search_self* self) : self(self) {}

  static inline const char* name = "search";

  void init(const search_init& x) {
    stream = x.stream;
    phase = x.phase;
    phase_start = x.phase_start;
    self->request(dm, caf::infinite, list_resources{}).then([=](resource_list& l) {
      for (auto& r : l.resources) add_resource(r.name);
      pump();
    });
    self->request(dm, caf::infinite, list_metrics{}).then([=](metric_list& l) {
      for (auto& m : l.metrics) metrics.insert(m.name);
      pump();
    });
    self->delayed_send(self, cost_period, cost_tick{});
    self->delayed_send(self, evidence_period, evidence_tick{});
  }

  // ------------------------------------------------------------------ SEARCH, SHG

  search_slot* latest(phase_type type) {
    for (auto i = slots.rbegin(); i != slots.rend(); ++i)
      if (i->type == type) return &*i;
    return nullptr;
  }

  search_info info_of(const search_slot& s) const {
    return {s.id,
            s.type,
            s.phase,
            pc::search_state_name(s.engine->state()),
            s.engine->graph().size(),
            s.engine->cost_limited()};
  }

  caf::result<search_info> on_search(const search_request& x) {
    auto* s = latest(x.phase);
    bool live = s && s->engine->state() != pc::search_state::ended &&
                (x.phase == phase_type::global || s->phase == phase);
    const char* kind = x.phase == phase_type::global ? "GLOBAL" : "CURRENT";
    if (x.action == search_action::start) {
      if (live)
        return make_dm_error(dm_error::not_allowed, std::string("a ") + kind +
                                                        " search is running already (search " +
                                                        std::to_string(s->id) + ")");
      if (x.phase == phase_type::current) follow_phases = x.follow;
      return info_of(start_search(x.phase, pc::tunables_with({}, x.tunables)));
    }
    if (!live)
      return make_dm_error(dm_error::not_allowed,
                           std::string("no ") + kind + " search is running or paused");
    if (!x.tunables.empty())
      s->engine->retune(pc::tunables_with(s->engine->settings(), x.tunables));
    switch (x.action) {
      case search_action::pause:
        s->engine->pause();
        break;
      case search_action::resume:
        s->engine->resume();
        break;
      case search_action::stop:
        if (x.phase == phase_type::current) follow_phases = false;
        disable(*s, s->engine->end());
        break;
      case search_action::start:
        break;
    }
    publish(*s);
    pump();
    return info_of(*s);
  }

  search_slot& start_search(phase_type type, const pc::tunables& t) {
    // Data time: the latest data seen, at least the phase's start.
    double start = type == phase_type::current ? std::max(latest_time, phase_start) : latest_time;
    slots.push_back({slots.size(), type, type == phase_type::global ? phase_handle{0} : phase,
                     std::make_unique<pc::search_engine>(t, start)});
    auto& s = slots.back();
    for (auto& r : resources) s.engine->add_resource(r);
    publish(s);
    pump();
    return s;
  }

  shg_reply on_shg(const shg_request& x) const {
    shg_reply r;
    for (auto& s : slots) {
      if (x.has_search && s.id != x.search) continue;
      for (auto& n : s.engine->graph().nodes()) r.nodes.push_back(pc::node_info(s.id, n));
    }
    return r;
  }

  // FINDINGS: each search's findings, ranked within it (pc/findings.hpp), with every edge of
  // its graph.
  findings_reply on_findings(const findings_request& x) const {
    findings_reply r;
    for (auto& s : slots) {
      if (x.has_search && s.id != x.search) continue;
      auto found = pc::finding_infos(s.id, s.engine->graph());
      r.findings.insert(r.findings.end(), found.begin(), found.end());
    }
    return r;
  }

  // ------------------------------------------------------------------ experiments

  // Every node change goes to every open stream (SHGNODE), in the order it happened.
  void publish(search_slot& s) {
    for (auto id : s.engine->take_changes())
      self->send(dm, shg_broadcast{pc::node_info(s.id, s.engine->graph().at(id))});
  }

  void disable(search_slot& s, const std::vector<pc::disable_order>& orders) {
    for (auto& o : orders) {
      auto i = mi_of.find({s.id, o.node, o.input});
      if (i == mi_of.end()) continue;
      auto mi = i->second;
      mi_of.erase(i);
      input_of.erase({mi.id, static_cast<int>(s.type)});
      // The reply says whether the MI stays (another user, a data flag): nothing to do.
      self->request(dm, caf::infinite, disable_request{stream, mi, s.type})
          .then([](mi_info&) {}, [](caf::error&) {});
    }
  }

  bool metrics_defined() const {
    for (auto* m : pc_metrics)
      if (!metrics.count(m)) return false;
    return true;
  }

  // Starts what the searches admit, releases what they dropped, and publishes changes.
  void pump() {
    for (auto& s : slots) {
      disable(s, s.engine->take_disables());
      if (metrics_defined())
        for (auto& o : s.engine->admit()) enable(s, o);
      publish(s);
    }
  }

  void enable(search_slot& s, const pc::enable_order& o) {
    enable_request r;
    r.stream = stream;
    r.metric = o.metric;
    r.focus = o.focus.enable_focus();
    r.phase = phase_ref{s.type, false, {}};
    // Paradyn's flags: the global search keeps its data, a phase's search keeps it for the phase.
    if (s.type == phase_type::global)
      r.flags.data = true;
    else
      r.flags.phase_data = true;
    auto search = s.id;
    auto type = s.type;
    self->request(dm, caf::infinite, r)
        .then(
            [=](mi_info& mi) {
              auto& slot = slots[search];
              mi_of[{search, o.node, o.input}] = mi.id;
              input_of[{mi.id.id, static_cast<int>(type)}] = {search, o.node, o.input};
              if (widths_known < 2) learn_width(mi.id, type);
              slot.engine->enabled(o.node, o.input, latest_time);
              pump();
            },
            [=](caf::error&) {
              slots[search].engine->enable_failed(o.node);
              pump();
            });
  }

  // The histograms' width before any FOLD this stream heard: an MI's histogram says it.
  void learn_width(mi_handle mi, phase_type type) {
    self->request(dm, caf::infinite, data_request{mi, phase_ref{type, false, {}}})
        .then(
            [=](histogram_data& h) {
              auto& w = type == phase_type::global ? global_width : current_width;
              if (w <= 0) {
                w = h.width;
                ++widths_known;
              }
            },
            [=](caf::error&) {});
  }

  void on_data(const data_event& x) {
    std::map<std::uint64_t, bool> touched;
    for (auto& v : x.values) {
      auto i = input_of.find({v.mi.id, static_cast<int>(v.phase)});
      if (i == input_of.end()) continue;
      auto span =
          pc::span_of_bucket(v.bucket, v.phase == phase_type::global ? global_width : current_width,
                             v.phase == phase_type::global ? 0 : phase_start);
      latest_time = std::max(latest_time, span.end);
      auto& ref = i->second;
      slots[ref.search].engine->data(ref.node, ref.input, span.begin, span.end, v.value);
      touched[ref.search] = true;
    }
    for (auto& [search, yes] : touched) slots[search].engine->evaluate(latest_time);
    pump();
  }

  // N8: a new phase ends the search bound to the old one (its nodes keep their truth); the
  // data manager dropped its current-phase subscriptions itself (N1).
  void on_new_phase(const phase_info& p) {
    phase = p.id;
    phase_start = p.start;
    current_width = p.width;
    if (auto* s = latest(phase_type::current); s && s->engine->state() != pc::search_state::ended) {
      auto tunables = s->engine->settings();
      for (auto& o : s->engine->end()) {
        auto i = mi_of.find({s->id, o.node, o.input});
        if (i == mi_of.end()) continue;
        input_of.erase({i->second.id, static_cast<int>(phase_type::current)});
        mi_of.erase(i);
      }
      publish(*s);
      if (follow_phases) start_search(phase_type::current, tunables);
    }
    pump();
  }

  void add_resource(const std::string& name) {
    pc::hierarchy h;
    if (!pc::hierarchy_of(name, h)) return;
    resources.push_back(name);
    for (auto& s : slots) s.engine->add_resource(name);
  }

  // ------------------------------------------------------------------ evidence

  // One round of evidence: the call graph's new edges and each search's note (by slot).
  struct evidence_round {
    std::vector<evidence_call> calls;
    std::vector<std::optional<evidence_note>> notes;
  };

  // Live only (a replay has no window to read, and fires no timer): reads the call graph and
  // every running search's nodes' counts from the windows, and sends them to the data manager
  // as EVIDENCE, which records it and hands it back (on_evidence). One round at a time; a
  // round asked for meanwhile follows at once.
  void gather_evidence() {
    if (gathering) {
      gather_again = true;
      return;
    }
    gathering = true;
    gather_again = false;
    // The call graph and the windows are asked at once: each waits for the slowest daemon of
    // a tree (up to tree_gather_wait), so one after the other made a round twice as long. Their
    // notes go in one order, the calls first, once both are in.
    auto round = std::make_shared<evidence_round>();
    round->notes.resize(slots.size());
    auto asked = countdown::make([=] { send_notes(round); }, true);
    asked->expect();
    self->request(dm, caf::infinite, callgraph_request{0})
        .then(
            [=](callgraph_report& r) {
              round->calls = new_calls(r);
              asked->arrived();
            },
            [=](caf::error&) { asked->arrived(); });
    for (std::size_t i = 0; i < slots.size(); ++i) ask_window(i, round, asked);
    asked->release();
  }

  std::vector<evidence_call> new_calls(const callgraph_report& r) {
    std::vector<evidence_call> out;
    for (auto& e : r.entries)
      if (sent_calls.insert({"", e.name}).second) out.push_back({"", e.name});
    for (auto& e : r.edges)
      if (sent_calls.insert({e.caller, e.callee}).second) out.push_back({e.caller, e.callee});
    return out;
  }

  // Slot `slot`'s search: the counts at the foci of its nodes that want evidence, as a note.
  void ask_window(std::size_t slot, std::shared_ptr<evidence_round> round,
                  std::shared_ptr<countdown> asked) {
    auto& s = slots[slot];
    auto wanting = s.engine->wanting_evidence();
    if (wanting.empty()) return;
    std::set<pc::focus> seen;
    window_query q;
    q.since = s.engine->start();
    std::vector<pc::focus> foci;
    for (auto id : wanting) {
      auto& f = s.engine->graph().at(id).focus;
      if (!seen.insert(f).second) continue;
      foci.push_back(f);
      q.foci.push_back(f.enable_focus());
    }
    asked->expect();
    auto search = s.id;
    self->request(dm, caf::infinite, q)
        .then(
            [=](window_answers& a) {
              if (!a.processes.empty())
                round->notes[slot] = pc::evidence_note_of(search, latest_time, foci, a, own_host);
              asked->arrived();
            },
            [=](caf::error&) { asked->arrived(); });
  }

  // The round's notes to the data manager, which records each and hands it back
  // (on_evidence); every one is waited for, then the next round may start.
  void send_notes(std::shared_ptr<evidence_round> round) {
    auto count = countdown::make(
        [=] {
          gathering = false;
          if (gather_again) gather_evidence();
        },
        true);
    auto send_note = [=](evidence_note note) {
      count->expect();
      self->request(dm, caf::infinite, std::move(note))
          .then([=](ok_reply&) { count->arrived(); }, [=](caf::error&) { count->arrived(); });
    };
    if (!round->calls.empty())
      send_note(evidence_note{0, latest_time, 0, {}, std::move(round->calls)});
    for (auto& note : round->notes)
      if (note) send_note(std::move(*note));
    count->release();
  }

  // EVIDENCE, from the data manager (live: what gather_evidence sent; replay: the recording).
  void on_evidence(const evidence_note& x) {
    if (!x.calls.empty()) {
      for (auto& c : x.calls) {
        if (!known_calls.insert({c.caller, c.callee}).second) continue;
        if (c.caller.empty())
          call_entries.push_back(c.callee);
        else
          call_edges.push_back({c.caller, c.callee});
      }
      for (auto& s : slots) s.engine->set_call_graph(call_entries, call_edges);
    }
    evicted = std::max(evicted, x.evicted);
    if (x.search < slots.size() && !x.foci.empty()) {
      auto& s = slots[x.search];
      auto by_focus = pc::evidence_by_focus(x);
      bool fresh = false;
      auto before = s.engine->graph().size();
      for (auto id : s.engine->wanting_evidence()) {
        auto i = by_focus.find(s.engine->graph().at(id).focus);
        if (i == by_focus.end()) {
          fresh = true;  // made since the windows were read: read them again at once
          continue;
        }
        s.engine->evidence(id, i->second, x.time);
      }
      pump();
      if (fresh || s.engine->graph().size() != before) gather_evidence();
      return;
    }
    pump();
  }

  // ------------------------------------------------------------------ cost

  // The sampler's measured cost over the last period, summed over the watched processes.
  void on_cost_tick() {
    self->delayed_send(self, cost_period, cost_tick{});
    self->request(dm, caf::infinite, list_processes{})
        .then(
            [=](process_list& l) {
              for (auto& p : l.processes) {
                if (!p.watched || !p.active) continue;
                auto pid = p.pid;
                self->request(dm, caf::infinite, profile_request{pid})
                    .then(
                        [=](cpu_profile_report& r) {
                          auto& before = cost_seen[pid];
                          double cost = r.cost - before.first, covered = r.montime - before.second;
                          before = {r.cost, r.montime};
                          for (auto& s : slots) s.engine->observe_cost(cost, covered);
                          pump();
                        },
                        [=](caf::error&) {});
              }
            },
            [=](caf::error&) {});
  }

  search_self* self;
  // The data manager holds this actor and this actor the data manager: the handle goes with
  // the state as the actor ends (CAF destroys a stateful actor's state then), or neither
  // would ever be destroyed (nor the engine shut down).
  caf::actor dm;
  stream_handle stream;
  phase_handle phase;
  double phase_start = 0;
  double global_width = 0;
  double current_width = 0;
  int widths_known = 0;
  double latest_time = 0;
  bool follow_phases = false;
  std::vector<search_slot> slots;
  std::vector<std::string> resources;
  std::set<std::string> metrics;
  std::map<input_ref, mi_handle> mi_of;
  std::map<std::pair<std::uint64_t, int>, input_ref> input_of;  // (MI, phase type)
  std::map<std::int32_t, std::pair<double, double>> cost_seen;  // pid: cost, montime
  // The evidence rule: one round of window reads at a time; the call graph as EVIDENCE
  // gave it (entries, then edges, in the order they came) and what was sent of it.
  bool gathering = false;
  bool gather_again = false;
  std::set<std::pair<std::string, std::string>> sent_calls, known_calls;
  std::vector<std::string> call_entries;
  std::vector<pc::call_edge> call_edges;
  std::uint64_t evicted = 0;
  const std::string own_host = native::host_part();  // the engine's: EVIDENCE leaves it out
};

caf::behavior search_actor(search_self* self, caf::actor dm) {
  self->state.dm = std::move(dm);
  self->set_error_handler([](caf::error&) {});
  return {
      [=](search_init& x) { self->state.init(x); },
      [=](search_request& x) -> caf::result<search_info> { return self->state.on_search(x); },
      [=](shg_request& x) -> caf::result<shg_reply> { return self->state.on_shg(x); },
      [=](findings_request& x) -> caf::result<findings_reply> {
        return self->state.on_findings(x);
      },
      [=](data_event& x) { self->state.on_data(x); },
      [=](fold_event& x) {
        auto& st = self->state;
        (x.phase == phase_type::global ? st.global_width : st.current_width) = x.width;
      },
      [=](new_phase_event& x) { self->state.on_new_phase(x.phase); },
      [=](new_resource_event& x) {
        self->state.add_resource(x.resource.name);
        self->state.pump();
      },
      [=](new_metric_event& x) {
        self->state.metrics.insert(x.metric.name);
        self->state.pump();
      },
      [=](samplerate_event&) {},
      [=](component_removed_event&) {},
      [=](component_added_event&) {},
      [=](shg_node_event&) {},  // its own, as every stream gets them
      [=](cost_tick) { self->state.on_cost_tick(); },
      [=](evidence_tick) {
        self->delayed_send(self, evidence_period, evidence_tick{});
        self->state.gather_evidence();
      },
      [=](evidence_note& x) { self->state.on_evidence(x); },
  };
}

}  // namespace

caf::actor spawn_search_actor(caf::event_based_actor* dm) {
  return dm->spawn<caf::linked>(search_actor, caf::actor_cast<caf::actor>(dm));
}

}  // namespace perfdm
