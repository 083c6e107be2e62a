// libFuzzer target: the frames schema parser and the layout descriptor parser
// (docs/FRAMES.md §1, §2). The first byte picks the parser, the rest is its text.
//   even: parse_schema; every layout it returns must round-trip through its descriptor.
//   odd:  parse_layout_descriptor; a descriptor it accepts must be exactly the text
//         layout_descriptor writes for the result (the parser accepts nothing else).
// Errors must be schema_error with a position; anything else (crash, other exception,
// sanitizer report) is a failure.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "shm/layout.hpp"
#include "shm/schema.hpp"
#include "shm/shm_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  using namespace perfdm::shm;
  if (data[0] % 2 == 0) {
    std::vector<frame_layout> layouts;
    try {
      layouts = parse_schema(text, "fuzz.frames");
    } catch (const schema_error& e) {
      if (std::string(e.what()).rfind("fuzz.frames:", 0) != 0) std::abort();
      return 0;
    }
    for (const auto& l : layouts) {
      const auto d = layout_descriptor(l);
      if (layout_descriptor(parse_layout_descriptor(d)) != d) std::abort();
    }
  } else {
    try {
      const auto l = parse_layout_descriptor(text);
      if (layout_descriptor(l) != text) std::abort();
    } catch (const schema_error& e) {
      if (std::string(e.what()).rfind("layout descriptor:", 0) != 0) std::abort();
    }
  }
  return 0;
}
