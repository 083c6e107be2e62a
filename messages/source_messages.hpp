// The vocabulary between the data manager and its data sources: the frame ingest actors of
// attached processes today, per-node daemons later. A source learns which metric instances
// are collecting and at what sampling interval (rules S1-S5: "every change is sent to the data
// sources"), and sends batched samples. Pairs nobody enabled are never in the set, so a
// source spends nothing on them.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include <caf/actor.hpp>
#include <caf/deserializer.hpp>
#include <caf/sec.hpp>
#include <caf/serializer.hpp>

#include "messages/dm_messages.hpp"
#include "messages/inspect_macros.hpp"
#include "messages/sample_wire.hpp"
#include "messages/time.hpp"

namespace perfdm {

// One metric instance that is collecting: its metric's name and its focus, as resource names
// ("/" alone for the whole program).
struct collecting_mi {
  mi_handle mi;
  std::string metric;
  std::vector<std::string> focus;
};
PERFDM_INSPECT(collecting_mi, x.mi, x.metric, x.focus)

// What every source must know; sent on registration and whenever it changes.
struct source_update {
  double interval = 0;  // seconds, the sampling interval of the SI controller
  std::vector<collecting_mi> mis;
  // The engine's time 0 in seconds since the Unix epoch (CLOCK_REALTIME): a source on
  // another node stamps its samples in engine time with it (clocks synchronised by NTP).
  double origin = 0;
};
PERFDM_INSPECT(source_update, x.interval, x.mis, x.origin)

// A source registers with the data manager (which monitors it) and gets a source_update now
// and after every change; unregistering (or terminating) ends that.
// `component` empty: a local source, whose samples go straight into the metric instances.
// Otherwise the source is a component (a per-node daemon, named e.g. "host:pid"): its
// samples are aggregated with the other components' (component_aggregator.hpp), and when it
// goes down every open stream hears COMPONENTREMOVED.
// `replaces`: the component (a relay that went down) this one took over from, and `reached`:
// for each MI (by id) the latest end of its samples that relay acknowledged receiving. Its
// samples of an MI before the lesser of that and what the relay had passed on are not
// counted again (component_aggregator::take_over).
struct source_register {
  caf::actor source;
  std::string component;
  std::string replaces = {};  // (defaults: the many local registrations omit them)
  std::map<std::uint64_t, time_ns> reached = {};
};
PERFDM_INSPECT(source_register, x.source, x.component, x.replaces, x.reached)
struct source_unregister {
  caf::actor source;
};
PERFDM_INSPECT(source_unregister, x.source)

// A relay lost a child: the child unregistered, its connection closed, or its
// heartbeat timed out (CAF then closes the connection). The relay tells its upstream, naming
// itself as `from` (the receiver knows it as one of its children, by the name it registered
// with: the message crosses a bridge, so the sender is not known otherwise). A relay that gets
// one from a child passes it on with that child's name put in front of `relays`; the engine
// tells every open stream COMPONENTREMOVED with NAME = `name` and RELAY = the path of relays
// from the engine down to the one that lost it (docs/PROTOCOL.md §5, §11).
struct subtree_component_gone {
  caf::actor from;
  std::vector<std::string> relays;  // the relays below `from`, top first, down to the parent
  std::string name;                 // the component that went, as its parent knew it
};
PERFDM_INSPECT(subtree_component_gone, x.from, x.relays, x.name)

// The other way: a component registered with a relay (a daemon or relay starting below it,
// or one that failed over to it when its own relay went down). Passed on and told as
// subtree_component_gone is: every open stream hears COMPONENTADDED with NAME and RELAY.
struct subtree_component_joined {
  caf::actor from;
  std::vector<std::string> relays;  // the relays below `from`, top first, down to the parent
  std::string name;                 // the component that joined, as it registered
};
PERFDM_INSPECT(subtree_component_joined, x.from, x.relays, x.name)

// Failover. A relay tells each child that registers, before its first
// source_update, its own component name and its own upstream's address (HOST:PORT, as given
// to `perfdm relay --upstream`): should the relay go down, the child connects there and
// registers with `replaces` = that name. The engine sends none: a child that heard none
// before its first source_update is the engine's, and has nowhere else to go.
struct upstream_info {
  std::string component;
  std::string upstream;
};
PERFDM_INSPECT(upstream_info, x.component, x.upstream)

// From a relay to its children: everything they sent before `until` (engine time, ns) reached
// the engine (the relay's own watermark, acknowledged upstream, and what its upstream said
// of it in turn), so a child need not keep it to send again should the relay go down.
struct samples_safe {
  time_ns until = 0;
};
PERFDM_INSPECT(samples_safe, x.until)

// Samples from a source. Unlike SAMPLES from a front end, a sample for a metric instance that
// was deleted after the source last heard of it is dropped and counted, not refused: the
// source acted on a set that changed under it. Reply: samples_ack.
// `complete_until` (a component's watermark, engine time in ns): the source has sent
// everything before it that it will ever send, so it no longer holds the aggregate of any
// metric instance back before it (component_aggregator::add_watermark). A daemon's relay
// sends one with every batch, and alone at least every flush period. Local sources send none.
inline constexpr time_ns no_watermark = std::numeric_limits<time_ns>::min();
struct source_samples {
  std::vector<sample> samples;
  time_ns complete_until = no_watermark;
};

// Across the network the samples travel packed (messages/sample_wire.hpp), as CAF's serializers
// are told apart in messages/exact_doubles.hpp; printing shows them.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, source_samples& x) {
  if constexpr (saves_bytes<Inspector>) {
    auto bytes = pack_samples(x.samples);
    return f(caf::meta::type_name("source_samples"), bytes, x.complete_until);
  } else if constexpr (loads_bytes<Inspector>) {
    std::vector<char> bytes;
    if (auto err = f(caf::meta::type_name("source_samples"), bytes, x.complete_until)) return err;
    if (!unpack_samples(bytes, x.samples))
      return caf::make_error(caf::sec::invalid_argument,
                             "source_samples: not a whole number of samples");
    return caf::none;
  } else {
    return f(caf::meta::type_name("source_samples"), x.samples, x.complete_until);
  }
}

}  // namespace perfdm
