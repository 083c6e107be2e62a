// Paradyn's aggregation of a metric instance's components. A component is a data source that
// observes part of the program (a per-node daemon); each reports samples of the same metric
// instances, and the aggregate of an interval is the sum over components. An interval is
// emitted only once every live component of the MI has reported it, so a slow daemon holds
// the aggregate back instead of having its share missing from it.
//
// Choices (see also docs/PROTOCOL.md, "Daemons and component aggregation"):
// - A component joins an MI with its first sample for it, at the MI's aggregated time: the
//   MIs a daemon has nothing for (a focus on another node's process) are never held back by it.
// - Aggregated time t of an MI advances to t' = min over its live components of the latest
//   end each reported. [t, t') is emitted split at every boundary any component reported
//   inside it, so aligned intervals stay whole and no component's detail is smeared.
// - A sample straddling t' is pro-rated by overlap (its value spread uniformly over its
//   interval); the rest waits. A SAMPLED value is a level: it is weighted by time, summed over
//   components and divided by the emitted interval's length (an absent component counts 0).
// - Nothing received is lost: the part of a sample before t (a component that joined late, or
//   one reporting again over time it already covered) is emitted at once as it came. For a
//   COUNTER this keeps every sum exact; for a SAMPLED level the histogram then averages it
//   with what was emitted, instead of adding it.
// - A watermark: a component may tell the engine time up to which it has sent everything it
//   will ever send (a daemon whose observed process exited runs on, with nothing more to
//   say). For every MI it joined it then counts as having reported up to there, so a quiet
//   component no longer holds the aggregate back. A watermark never moves a component back
//   (the latest end it reported only grows), and what arrives before it later anyway is not
//   lost: it goes out at once, as any late sample. An MI the component joins after a
//   watermark takes it as reported from the start.
// - A removed component stops holding time back; what it reported is kept and emitted as the
//   others advance. When no live component of an MI is left, everything pending is emitted.
// - Failover: a component that takes over from a removed one (the children of a
//   relay that went down, reconnected here) sends again what it kept, which may overlap what
//   the removed one had passed on of it. Of each MI the removed one passed on everything
//   before what it reported, but only of what it had received: the taker says up to where
//   that was (the latest end the relay acknowledged). Its samples before the lesser of the
//   two are not counted again (a straddling one keeps its share after it, pro-rated as
//   above); an MI the relay received nothing of is not cut. So a COUNTER's sum stays exact.
//   The taker may come before the removed one's end was seen (its connection's close still
//   on its way): its samples and watermarks then wait until the removed one is removed, so
//   that the cut counts everything the removed one passed on.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "messages/dm_messages.hpp"
#include "messages/dm_types.hpp"
#include "messages/time.hpp"

namespace perfdm {

class component_aggregator {
 public:
  // The style of an MI's metric: how its values are combined.
  using style_of = std::function<metric_style(mi_handle)>;

  explicit component_aggregator(style_of style) : style_(std::move(style)) {}

  // A new component; false if one of that name is live already.
  bool add_component(const std::string& name);

  // The component stops holding time back; appends to `out` what becomes complete.
  // False if no live component has that name.
  bool remove_component(const std::string& name, std::vector<sample>& out);

  // Samples of a live component (an unknown one is added first); appends to `out` what
  // becomes complete. Samples must be valid (end >= start, finite).
  void add_samples(const std::string& component, const std::vector<sample>& in,
                   std::vector<sample>& out);

  // The component (an unknown one is added first) has sent everything before `until`: for
  // every MI it joined it counts as reported up to there. Appends to `out` what becomes
  // complete. A watermark before an earlier one changes nothing.
  void add_watermark(const std::string& component, time_ns until, std::vector<sample>& out);

  // `component` takes over from `replaced`, a removed component (or a live one, from what
  // it reported so far), which had received of each MI in `reached` (by id) everything
  // ending up to there: from now on its samples of such an MI before the lesser of that and
  // what `replaced` had reported are dropped (counted in clipped()). Unknown names change
  // nothing.
  void take_over(const std::string& component, const std::string& replaced,
                 const std::map<std::uint64_t, time_ns>& reached);

  // `parent`, a live component (a relay), lost its child `child` and said so (the
  // child's link closed or timed out, and the relay goes on). What the relay received of the
  // child it passes on itself, so a child that takes over from the live relay (it failed over
  // here, taking the lost link for the relay's death) need not wait for the relay's end: it
  // goes in at once, its samples cut where the relay received them (`reached`). True when a
  // taker waited and went in now (appending to `out` what became complete); one that comes
  // later (take_over) goes in at once. Forgotten when `parent` is removed.
  bool child_lost(const std::string& parent, const std::string& child, std::vector<sample>& out);

  // Whether `component` waits, as a taker, for the end of the component it replaces.
  bool waits(const std::string& component) const { return waiting_.count(component) != 0; }

  // Samples (or parts of them) dropped by take_over's rule, over all components.
  std::size_t clipped() const { return clipped_; }

  // An MI that was deleted: its pending samples are forgotten.
  void forget(mi_handle mi) { mis_.erase(mi.id); }

  bool is_component(const std::string& name) const { return live_.count(name) != 0; }
  const std::set<std::string>& components() const { return live_; }

  // The aggregated time of an MI: everything before it was emitted (-1: nothing yet).
  time_ns aggregated_time(mi_handle mi) const;

  // Samples received and held back, over all MIs and components.
  std::size_t pending() const;

 private:
  // A received sample, or what is left of it after its first part was emitted. `amount` is
  // a COUNTER's value, or a SAMPLED level times the length (its weight).
  struct piece {
    time_ns start;
    time_ns end;
    double amount;
  };
  struct part {            // one component of one MI
    time_ns reported = 0;  // the latest end it reported
    std::deque<piece> pieces;
  };
  struct mi_state {
    bool started = false;
    time_ns done = 0;  // the aggregated time t
    std::map<std::string, part> parts;
  };

  void add_one(const std::string& component, const sample& s, std::vector<sample>& out);
  void add_clipped(const std::string& component, const sample& s, time_ns t0, time_ns t1,
                   bool counter, std::vector<sample>& out);
  void advance(std::uint64_t mi, mi_state& m, std::vector<sample>& out);

  style_of style_;
  std::set<std::string> live_;
  std::map<std::string, time_ns> watermarks_;  // of live components that sent one
  std::map<std::uint64_t, mi_state> mis_;  // by MI handle
  // What each removed component had reported of each MI, and, for a component that took
  // over from one, where its samples of each MI start counting (take_over).
  std::map<std::string, std::map<std::uint64_t, time_ns>> left_;
  std::map<std::string, std::map<std::uint64_t, time_ns>> clips_;
  std::size_t clipped_ = 0;
  struct taker {  // one whose replaced component is still live: it waits
    std::string replaced;
    std::map<std::uint64_t, time_ns> reached;
    std::vector<sample> held;
    std::optional<time_ns> watermark;
  };
  std::map<std::string, taker> waiting_;
  std::set<std::pair<std::string, std::string>> lost_;  // (live parent, child it lost)
  void release(const std::string& component, std::vector<sample>& out);
  void cut(const std::string& component, const std::string& replaced,
           const std::map<std::uint64_t, time_ns>& reached);
};

}  // namespace perfdm
