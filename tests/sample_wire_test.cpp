// The packed wire form of source_samples: exact round trips through CAF's binary
// serialisation, and a byte sequence that is not whole samples refused.
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <catch2/catch.hpp>
#include <limits>

#include "messages/source_messages.hpp"
#include "messages/type_registry.hpp"

using namespace perfdm;

TEST_CASE("sample wire: samples round-trip exactly through CAF's serialisation", "[wire]") {
  caf::actor_system_config cfg;
  register_message_types(cfg);
  caf::actor_system sys{cfg};
  source_samples in{
      {sample{mi_handle{0}, 0, 0.2, 1.5}, sample{mi_handle{~0ull}, -1e9, 1e9, -0.0},
       sample{mi_handle{7}, 0.1, 0.30000000000000004, std::numeric_limits<double>::denorm_min()}},
      -123456789012345};
  std::vector<char> buf;
  caf::binary_serializer sink{sys, buf};
  REQUIRE(!inspect(sink, in));
  CHECK(buf.size() >= in.samples.size() * sample_wire_bytes);
  source_samples out;
  caf::binary_deserializer source{sys, buf};
  REQUIRE(!inspect(source, out));
  REQUIRE(out.samples.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(out.samples[i].mi == in.samples[i].mi);
    CHECK(out.samples[i].start == in.samples[i].start);
    CHECK(out.samples[i].end == in.samples[i].end);
    CHECK(out.samples[i].value == in.samples[i].value);
  }
  CHECK(std::signbit(out.samples[1].value));
  CHECK(out.complete_until == in.complete_until);
}

TEST_CASE("sample wire: a watermark travels alone, and none stays none", "[wire]") {
  caf::actor_system_config cfg;
  register_message_types(cfg);
  caf::actor_system sys{cfg};
  for (time_ns w : {time_ns{0}, time_ns{42}, no_watermark}) {
    std::vector<char> buf;
    caf::binary_serializer sink{sys, buf};
    source_samples in{{}, w};
    REQUIRE(!inspect(sink, in));
    source_samples out{{sample{mi_handle{1}, 0, 1, 1}}, 7};
    caf::binary_deserializer source{sys, buf};
    REQUIRE(!inspect(source, out));
    CHECK(out.samples.empty());
    CHECK(out.complete_until == w);
  }
}

TEST_CASE("sample wire: bytes that are not whole samples are refused", "[wire]") {
  std::vector<sample> out;
  CHECK(unpack_samples({}, out));
  CHECK(out.empty());
  CHECK_FALSE(unpack_samples(std::vector<char>(33), out));
  CHECK(unpack_samples(pack_samples({sample{mi_handle{3}, 1, 2, 3}}), out));
  REQUIRE(out.size() == 1);
  CHECK(out[0].value == 3);
}
