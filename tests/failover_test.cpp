// Failover in a tree of daemons, on the plain parts: a relay `kill -9`ed between two
// daemons and the engine, whose children send again what they kept to the engine, which does
// not count twice what the relay had passed on (component_aggregator::take_over); what a
// child keeps (resend_buffer) and what it knows of its upstream (upstream_failover).
#include <catch2/catch.hpp>
#include <random>

#include "dm/component_aggregator.hpp"
#include "tree/resend_buffer.hpp"
#include "tree/upstream_failover.hpp"

using namespace perfdm;

namespace {

const mi_handle mi{1};

component_aggregator counters() {
  return component_aggregator([](mi_handle) { return metric_style::counter; });
}

double total(const std::vector<sample>& v) {
  double t = 0;
  for (auto& x : v) t += x.value;
  return t;
}

// Misaligned samples of one daemon over [0, 2) s, in order, with random values.
std::vector<sample> daemon_samples(std::mt19937& rng, double step) {
  std::uniform_real_distribution<double> value(0, 10);
  std::vector<sample> out;
  for (double t = 0; t + step <= 2.0 + 1e-12; t += step) out.push_back({mi, t, t + step, value(rng)});
  return out;
}

// Runs the daemons' samples through a relay (in batches of `per_batch`, each daemon's
// watermark after each of its batches), of which only the first `reached` outputs reach the
// engine before the relay dies; the daemons keep what ends after `safe` (the watermark the
// relay had acknowledged then), send it again to the engine as taking over from the relay,
// then the rest. Returns what the engine emitted, all components gone at the end.
std::vector<sample> kill_relay_after(const std::vector<std::vector<sample>>& daemons,
                                     std::size_t per_batch, std::size_t reached, bool prune) {
  auto relay = counters();
  auto engine = counters();
  engine.add_component("relay");
  std::vector<std::string> names;
  for (std::size_t d = 0; d < daemons.size(); ++d) names.push_back("node-" + std::to_string(d));
  std::vector<resend_buffer> kept(daemons.size());
  std::vector<std::map<std::uint64_t, time_ns>> received(daemons.size());
  std::vector<std::size_t> next(daemons.size(), 0);
  std::vector<sample> out;
  std::size_t sent_up = 0;
  time_ns relay_watermark = no_watermark, safe = no_watermark;
  std::vector<time_ns> watermarks(daemons.size(), no_watermark);
  // Until the kill: round-robin batches from the daemons into the relay.
  for (bool more = true; more && sent_up < reached;) {
    more = false;
    for (std::size_t d = 0; d < daemons.size() && sent_up < reached; ++d) {
      auto& all = daemons[d];
      if (next[d] >= all.size()) continue;
      more = true;
      std::vector<sample> batch(all.begin() + next[d],
                                all.begin() + std::min(all.size(), next[d] + per_batch));
      next[d] += batch.size();
      kept[d].sent(batch);
      received[d][mi.id] = to_ns(batch.back().end);  // the relay acknowledges at once
      watermarks[d] = to_ns(batch.back().end);
      std::vector<sample> up;
      relay.add_samples(names[d], batch, up);
      relay.add_watermark(names[d], watermarks[d], up);
      relay_watermark = *std::min_element(watermarks.begin(), watermarks.end());
      // One message upstream per child batch; the engine acknowledges it at once.
      engine.add_samples("relay", up, out);
      if (relay_watermark != no_watermark) engine.add_watermark("relay", relay_watermark, out);
      safe = relay_watermark;
      ++sent_up;
    }
  }
  // The relay dies with what it held; the daemons take over at the engine.
  engine.remove_component("relay", out);
  for (std::size_t d = 0; d < daemons.size(); ++d) {
    if (prune) kept[d].safe_until(safe);
    engine.add_component(names[d]);
    engine.take_over(names[d], "relay", received[d]);
    engine.add_samples(names[d], kept[d].kept(), out);
  }
  for (std::size_t d = 0; d < daemons.size(); ++d) {
    std::vector<sample> rest(daemons[d].begin() + next[d], daemons[d].end());
    engine.add_samples(names[d], rest, out);
  }
  for (auto& n : names) engine.remove_component(n, out);
  return out;
}

}  // namespace

TEST_CASE("failover: children of a killed relay send again what they kept, COUNTER sums exact",
          "[failover]") {
  std::mt19937 rng(22);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::vector<sample>> daemons{daemon_samples(rng, 0.1), daemon_samples(rng, 0.07),
                                             daemon_samples(rng, 0.13)};
    double expected = 0;
    for (auto& d : daemons) expected += total(d);
    const std::size_t reached = 1 + static_cast<std::size_t>(round) * 2;
    for (bool prune : {false, true}) {
      INFO("round " << round << (prune ? ", pruned at the safe watermark" : ", all kept"));
      auto out = kill_relay_after(daemons, 3, reached, prune);
      CHECK(total(out) == Approx(expected).epsilon(1e-12));
    }
  }
}

TEST_CASE("failover: without take_over the overlap would be counted twice", "[failover]") {
  // What the relay passed on and the child sends again overlap: the rule is what makes it exact.
  auto engine = counters();
  std::vector<sample> out;
  engine.add_samples("relay", {{mi, 0, 1, 5}}, out);
  engine.remove_component("relay", out);
  engine.add_component("node-1");
  engine.take_over("node-1", "relay", {{mi.id, to_ns(1.2)}});
  // The child kept [0.5, 1) (already passed on) and a straddling [0.8, 1.2) (half of it too).
  engine.add_samples("node-1", {{mi, 0.5, 1, 2.5}, {mi, 0.8, 1.2, 4}}, out);
  engine.remove_component("node-1", out);
  CHECK(total(out) == Approx(5 + 2));
  CHECK(engine.clipped() == 2);
  // Another component (not taking over) is counted whole, as before.
  auto plain = counters();
  std::vector<sample> out2;
  plain.add_samples("relay", {{mi, 0, 1, 5}}, out2);
  plain.remove_component("relay", out2);
  plain.add_samples("node-1", {{mi, 0.5, 1, 2.5}}, out2);
  plain.remove_component("node-1", out2);
  CHECK(total(out2) == Approx(7.5));
  CHECK(plain.clipped() == 0);
}

TEST_CASE("failover: a child keeps what is not yet safe, within its capacity", "[failover]") {
  resend_buffer b(4);
  b.sent({{mi, 0, 1, 1}, {mi, 1, 2, 1}, {mi, 1.5, 2.5, 1}});
  b.safe_until(to_ns(2.0));
  REQUIRE(b.size() == 1);  // ended at or before 2 s: gone; straddling: kept whole
  CHECK(b.kept()[0].start == 1.5);
  b.sent({{mi, 3, 4, 1}, {mi, 4, 5, 1}, {mi, 5, 6, 1}, {mi, 6, 7, 1}});
  CHECK(b.size() == 4);
  CHECK(b.overflowed() == 1);
  CHECK(b.kept()[0].start == 3);
}

TEST_CASE("failover: under the engine nothing is kept, under a relay its upstream is known",
          "[failover]") {
  upstream_failover engine_child;
  engine_child.registered();
  engine_child.on_update();  // no upstream_info first: the engine
  engine_child.on_sent({{mi, 0, 1, 1}});
  CHECK_FALSE(engine_child.can_fail_over());
  CHECK(engine_child.kept() == 0);
  engine_child.on_acked(to_ns(1.0));
  CHECK(engine_child.safe_for_children() == to_ns(1.0));

  upstream_failover relay_child;
  relay_child.registered();
  relay_child.on_info(upstream_info{"relay-a", "127.0.0.1:7000"});
  relay_child.on_update();
  REQUIRE(relay_child.can_fail_over());
  CHECK(relay_child.fallback() == "127.0.0.1:7000");
  CHECK(relay_child.parent() == "relay-a");
  relay_child.on_sent({{mi, 0, 1, 1}, {mi, 1, 2, 1}});
  relay_child.on_acked(to_ns(2.0));
  CHECK(relay_child.safe_for_children() == no_watermark);  // its relay said nothing yet
  relay_child.on_safe(to_ns(1.0));
  CHECK(relay_child.kept() == 1);
  CHECK(relay_child.safe_for_children() == to_ns(1.0));
  // Reconnected to the engine: nothing more to keep once its first update says so.
  relay_child.registered();
  CHECK(relay_child.to_resend().size() == 1);
  relay_child.on_update();
  CHECK_FALSE(relay_child.can_fail_over());
  CHECK(relay_child.kept() == 0);
}

TEST_CASE("failover: a taker that comes before the relay's end is seen waits for it",
          "[failover]") {
  auto engine = counters();
  std::vector<sample> out;
  engine.add_samples("relay", {{mi, 0, 1, 5}}, out);
  engine.add_component("node-1");
  engine.take_over("node-1", "relay", {{mi.id, to_ns(1.5)}});
  // The child sends again [0.5, 2) while the relay's last batch, [1, 1.5), is still on its way.
  engine.add_samples("node-1", {{mi, 0.5, 1, 2.5}, {mi, 1, 1.5, 2.5}, {mi, 1.5, 2, 2.5}}, out);
  engine.add_watermark("node-1", to_ns(2.0), out);
  engine.add_samples("relay", {{mi, 1, 1.5, 2.5}}, out);
  CHECK(engine.clipped() == 0);
  engine.remove_component("relay", out);
  CHECK(engine.clipped() == 2);
  engine.remove_component("node-1", out);
  CHECK(total(out) == Approx(5 + 2.5 + 2.5));
}

// A child whose link to a live relay was lost (frozen past the relay's timeout, a partition)
// fails over to the relay's upstream as if the relay had died. The relay says it lost the
// child (child_lost): the taker then goes in at once, cut where the relay received it, in
// whichever order the two arrive; a taker of a live relay that lost nothing still waits.
TEST_CASE("failover: a taker of a live relay that lost it goes in at once, counted once",
          "[failover]") {
  for (bool lost_first : {false, true}) {
    INFO((lost_first ? "the relay's word first" : "the taker first"));
    auto engine = counters();
    std::vector<sample> out;
    engine.add_samples("relay", {{mi, 0, 1, 5}}, out);  // with the child's [0, 1)
    if (lost_first) CHECK_FALSE(engine.child_lost("relay", "node-1", out));
    engine.add_component("node-1");
    engine.take_over("node-1", "relay", {{mi.id, to_ns(1)}});
    engine.add_component("node-2");  // another taker, of a relay that did not lose it
    engine.take_over("node-2", "relay", {{mi.id, to_ns(1)}});
    if (!lost_first) {
      CHECK(engine.waits("node-1"));
      CHECK(engine.child_lost("relay", "node-1", out));
    }
    CHECK_FALSE(engine.waits("node-1"));
    CHECK(engine.waits("node-2"));
    // The child sends again [0.5, 1) (the relay passed it on) and goes on; the relay goes on
    // with its other children. [1, 1.5) is complete while the relay lives.
    engine.add_samples("node-1", {{mi, 0.5, 1, 2}, {mi, 1, 1.5, 3}}, out);
    engine.add_samples("relay", {{mi, 1, 1.5, 4}}, out);
    CHECK(total(out) == Approx(5 + 3 + 4));
    CHECK(engine.clipped() == 1);
  }
}

TEST_CASE("failover: what a relay lost is forgotten when it ends", "[failover]") {
  auto engine = counters();
  std::vector<sample> out;
  engine.add_samples("relay", {{mi, 0, 1, 5}}, out);
  engine.child_lost("relay", "node-1", out);
  engine.remove_component("relay", out);
  engine.add_samples("relay", {{mi, 1, 2, 1}}, out);  // a new relay of that name
  engine.add_component("node-1");
  engine.take_over("node-1", "relay", {{mi.id, to_ns(2)}});
  CHECK(engine.waits("node-1"));  // the new one lost nothing: its end is awaited
}
