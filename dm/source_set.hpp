// The data sources registered with a data manager: local ones (frame ingest, native
// sources), whose samples go straight in, and components (per-node daemons), whose samples
// are aggregated interval by interval first (Paradyn's rule, dm/component_aggregator.hpp);
// and what every source was told last (the collecting set and the interval, S1-S5). Plain
// C++ over actor handles: the data manager actor does the sending and the monitoring.
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_addr.hpp>
#include <caf/error.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dm/component_aggregator.hpp"
#include "messages/dm_messages.hpp"
#include "messages/source_messages.hpp"

namespace perfdm {

class source_set {
 public:
  explicit source_set(component_aggregator::style_of style) : aggregator_(std::move(style)) {}

  // Registers `source` (a component when `component` names one). False for a null or known
  // source. The caller sends it `current`, which is then what the sources were told last.
  // `replaces`: the component it takes over from (component_aggregator::take_over).
  bool add(const caf::actor& source, const std::string& component, source_update current,
           const std::string& replaces = {},
           const std::map<std::uint64_t, time_ns>& reached = {});

  // A source ended or unregistered. A component stops holding the aggregate back: the name it
  // leaves (unless another live source shares it), with the samples that thereby became
  // complete appended to `complete`.
  std::optional<std::string> remove(const caf::actor_addr& source, std::vector<sample>& complete);

  // The update every source must hear when `current` differs from what they were told last
  // (another interval or collecting set); it is then what they were told.
  std::optional<source_update> changed(source_update current);

  const std::vector<caf::actor>& sources() const { return sources_; }

  // The component a sender is, or nullptr for a local source.
  const std::string* component_of(const caf::actor_addr& source) const;

  // A component's samples and watermark: what became complete is appended to `complete`.
  void aggregate(const std::string& component, const std::vector<sample>& samples,
                 time_ns complete_until, std::vector<sample>& complete);

  // A live component (a relay) lost its child (component_aggregator::child_lost): true when
  // the child waited as a taker of it and went in now.
  bool child_lost(const std::string& parent, const std::string& child,
                  std::vector<sample>& complete) {
    return aggregator_.child_lost(parent, child, complete);
  }
  bool waits(const std::string& component) const { return aggregator_.waits(component); }

  // The live components, by name.
  const std::set<std::string>& components() const { return aggregator_.components(); }
  void forget(mi_handle mi) { aggregator_.forget(mi); }

 private:
  component_aggregator aggregator_;
  std::vector<caf::actor> sources_;                    // registered, monitored
  std::map<caf::actor_addr, std::string> components_;  // the sources that are components
  source_update last_;                                 // what the sources were told last
};

}  // namespace perfdm
