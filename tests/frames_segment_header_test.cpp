// The segment header is declared once (shm/segment_format.hpp, PERFDM_SEGMENT_HEADER_FIELDS):
// the generated writer's copy declares every field of format::header and asserts its offset
// and size, so a field added, moved or resized on one side only stops the observed program's
// build instead of corrupting the segment.
#include <catch2/catch.hpp>
#include <cstddef>
#include <string>

#include "shm/codegen.hpp"
#include "shm/schema.hpp"
#include "shm/segment_format.hpp"

using namespace perfdm::shm;

TEST_CASE("frames codegen: the writer's segment header is format::header, field by field",
          "[frames][codegen]") {
  const auto layouts = parse_schema("struct s { int x; };\n", "s.frames");
  const auto source = generate_frames_code(layouts, "s", "s.frames").source;
  std::size_t fields = 0, at = source.find("struct perfdm_segment_header {");
  REQUIRE(at != std::string::npos);
#define PERFDM_CHECK_FIELD(type, name, extent)                                                 \
  {                                                                                            \
    ++fields;                                                                                  \
    INFO("field " #name);                                                                      \
    const auto declared = source.find("  " #type " " #name #extent ";\n", at);                \
    CHECK(declared != std::string::npos);                                                      \
    if (declared != std::string::npos) at = declared; /* in the list's order */                \
    CHECK(source.find("static_assert(offsetof(perfdm_segment_header, " #name ") == " +         \
                      std::to_string(offsetof(format::header, name)) +                         \
                      " &&\n              sizeof(perfdm_segment_header::" #name ") == " +      \
                      std::to_string(sizeof(format::header::name)) + ",") != std::string::npos); \
  }
  PERFDM_SEGMENT_HEADER_FIELDS(PERFDM_CHECK_FIELD)
#undef PERFDM_CHECK_FIELD
  CHECK(fields == 18);
  CHECK(source.find("static_assert(sizeof(perfdm_segment_header) == 128,") != std::string::npos);
  // The numbers the writer checks a segment with come from segment_format.hpp too.
  CHECK(source.find("std::memcmp(h.magic, \"PERFDMF1\", 8) == 0") != std::string::npos);
  CHECK(source.find("lane + 128, m->mask") != std::string::npos);
  CHECK(source.find("@") == std::string::npos);  // no slot left unfilled
}
