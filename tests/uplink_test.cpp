// What a daemon's relay and a relay send upstream (tree/uplink.hpp), on the plain parts:
// batches by size or timer, the watermark with every batch and alone when it moved, never
// backwards, nothing while failing over, and what is kept to send again under a relay.
#include <catch2/catch.hpp>

#include "tree/uplink.hpp"

using namespace perfdm;

namespace {

std::vector<sample> samples(std::size_t n, double from = 0) {
  std::vector<sample> out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(sample{mi_handle{1}, from + 0.1 * i, from + 0.1 * (i + 1), 1.0});
  return out;
}

}  // namespace

TEST_CASE("uplink: the first samples open a batch and its timer, a later timer finds it gone",
          "[uplink]") {
  uplink up(4);
  CHECK(up.empty());
  auto timer = up.add(samples(2));
  REQUIRE(timer);
  CHECK_FALSE(up.add(samples(1, 1)));  // the batch is open: no second timer
  CHECK_FALSE(up.full());
  CHECK(up.timer_due(*timer));
  auto b = up.flush(to_ns(0.3));
  REQUIRE(b);
  CHECK(b->message.samples.size() == 3);
  CHECK(b->message.complete_until == to_ns(0.3));
  CHECK(b->receipt.watermark == to_ns(0.3));
  CHECK(up.empty());
  CHECK_FALSE(up.timer_due(*timer));  // that batch went
  CHECK(up.batches() == 1);
  CHECK(up.samples_sent() == 3);
  // A full batch says so.
  up.add(samples(4));
  CHECK(up.full());
}

TEST_CASE("uplink: the watermark goes alone only when it moved, and never backwards",
          "[uplink]") {
  uplink up(8);
  auto first = up.flush(100);
  REQUIRE(first);
  CHECK(first->message.samples.empty());
  CHECK(first->message.complete_until == 100);
  CHECK_FALSE(up.flush(100));  // unchanged: nothing to say
  CHECK_FALSE(up.flush(50));   // earlier: nothing either
  up.add(samples(1));
  auto b = up.flush(50);  // a batch carries the watermark, raised to the last one sent
  REQUIRE(b);
  CHECK(b->message.samples.size() == 1);
  CHECK(b->message.complete_until == 100);
  CHECK(up.sent_watermark() == 100);
  CHECK(up.batches() == 1);  // a watermark alone is no batch
}

TEST_CASE("uplink: while failing over the batch waits and grows, then goes whole", "[uplink]") {
  uplink up(100);
  auto timer = up.add(samples(2));
  REQUIRE(timer);
  up.pause();
  CHECK_FALSE(up.flush(200));
  CHECK_FALSE(up.timer_due(*timer));      // the timer of the waiting batch finds nothing
  CHECK_FALSE(up.add(samples(3, 1)));     // still one batch
  up.resume();
  auto b = up.flush(300);
  REQUIRE(b);
  CHECK(b->message.samples.size() == 5);
  CHECK(b->message.complete_until == 300);
}

TEST_CASE("uplink: under a relay what went up is kept until safe, and acknowledged is reached",
          "[uplink][failover]") {
  uplink up(100);
  up.failover().on_info(upstream_info{"relay-a", "127.0.0.1:1"});
  up.failover().on_update();
  REQUIRE(up.failover().can_fail_over());
  up.add(samples(3));  // [0, 0.3)
  auto b = up.flush(to_ns(0.3));
  REQUIRE(b);
  CHECK(up.failover().kept() == 3);
  CHECK(up.failover().reached().empty());  // not acknowledged yet
  up.acked(b->receipt);
  CHECK(up.failover().reached().at(1) == to_ns(0.3));
  up.failover().on_safe(to_ns(0.2));
  CHECK(up.failover().kept() == 1);  // what ends at or before 0.2 s reached the engine
  // Under the engine nothing is kept.
  uplink flat(100);
  flat.failover().on_update();
  flat.add(samples(3));
  REQUIRE(flat.flush(to_ns(0.3)));
  CHECK(flat.failover().kept() == 0);
}

TEST_CASE("uplink: the least time held, and the present when none holds", "[uplink]") {
  std::map<std::string, time_ns> holds{{"a", 50}, {"b", 70}};
  CHECK(least_held(100, holds) == 50);
  CHECK(least_held(40, holds) == 40);
  CHECK(least_held(100, std::map<std::string, time_ns>{}) == 100);
}
