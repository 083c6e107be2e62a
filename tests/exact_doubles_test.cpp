// Doubles cross the network between processes exactly (messages/exact_doubles.hpp): CAF 0.17's
// own packing turns NaN into -1, a denormal into another number and -0 into 0, and loops
// forever on an infinity. Here every special value goes through CAF's binary serialisation,
// as a remote actor's message does, and comes back bit for bit.
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/deep_to_string.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "messages/dm_messages.hpp"
#include "messages/evidence_messages.hpp"
#include "messages/search_messages.hpp"
#include "messages/type_registry.hpp"

using namespace perfdm;

namespace {

const double nan_ = std::numeric_limits<double>::quiet_NaN();
const double inf = std::numeric_limits<double>::infinity();
const double denormal = std::numeric_limits<double>::denorm_min();

template <class T>
T round_trip(const T& in) {
  caf::actor_system_config cfg;
  register_message_types(cfg);
  caf::actor_system sys{cfg};
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  T copy = in;
  REQUIRE(!inspect(sink, copy));
  T out{};
  caf::binary_deserializer source{sys, buf};
  REQUIRE(!inspect(source, out));
  return out;
}

bool same_bits(double a, double b) { return bits_of(a) == bits_of(b); }

}  // namespace

TEST_CASE("exact doubles: a histogram's empty buckets stay no data, every value bit for bit",
          "[wire]") {
  histogram_data in{mi_handle{3}, 0.1, 0.2, 1000, {nan_, 213, -0.0, denormal, inf, -inf, 1e308}};
  auto out = round_trip(in);
  CHECK(out.mi == in.mi);
  CHECK(out.start == 0.1);
  CHECK(out.width == 0.2);
  REQUIRE(out.values.size() == in.values.size());
  CHECK(std::isnan(out.values[0]));  // not -1: an empty bucket is no data, not a count
  CHECK(out.values[1] == 213);
  for (std::size_t i = 0; i < in.values.size(); ++i) CHECK(same_bits(out.values[i], in.values[i]));
  CHECK(std::signbit(out.values[2]));
}

TEST_CASE("exact doubles: evidence shares not given stay NaN across the tree", "[wire]") {
  evidence_counts in;
  in.pid = 42;
  in.io_bytes = 4096;
  in.first = denormal;
  in.last = inf;
  REQUIRE(std::isnan(in.runs_share));
  auto out = round_trip(in);
  CHECK(out.pid == 42);
  CHECK(out.io_bytes == 4096);
  CHECK(std::isnan(out.runs_share));
  CHECK(std::isnan(out.ios_saving));
  CHECK(same_bits(out.first, denormal));
  CHECK(out.last == inf);
}

TEST_CASE("exact doubles: map values and single fields, and printing still shows numbers",
          "[wire]") {
  search_request in;
  in.tunables = {{"CPU_THRESHOLD", 0.25}, {"SUFFICIENT_TIME", nan_}, {"LIMIT", -inf}};
  in.follow = true;
  auto out = round_trip(in);
  CHECK(out.follow);
  REQUIRE(out.tunables.size() == 3);
  CHECK(out.tunables.at("CPU_THRESHOLD") == 0.25);
  CHECK(std::isnan(out.tunables.at("SUFFICIENT_TIME")));
  CHECK(out.tunables.at("LIMIT") == -inf);

  shg_node_info node;
  node.value = 0.5;
  auto text = caf::deep_to_string(node);
  CHECK(text.find("0.5") != std::string::npos);  // the number, not its bits
  CHECK(text.find(std::to_string(bits_of(0.5))) == std::string::npos);
  CHECK(std::isnan(round_trip(node).score));
}
