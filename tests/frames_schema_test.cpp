// Frames schema, layout and layout descriptor (docs/FRAMES.md §1, §2).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "shm/layout.hpp"
#include "shm/schema.hpp"
#include "shm/shm_error.hpp"
#include "test_frames.h"

using namespace perfdm::shm;

namespace {

const field_layout& field(const frame_layout& l, const std::string& name) {
  for (const auto& f : l.fields)
    if (f.name == name) return f;
  FAIL("no field " << name);
  throw std::logic_error("unreachable");
}

// The message of the schema_error `text` raises.
std::string schema_error_of(const std::string& text) {
  try {
    parse_schema(text, "s.frames");
  } catch (const schema_error& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("frames schema: the documented example parses with kinds, units and the layout") {
  const auto layouts = parse_schema(R"(// demo.frames
struct work {
  uint64_t requests;        // @counter @units(requests)
  uint64_t bytes;           // @counter @units(bytes)
  double   queue_depth;     // @units(items)          (SAMPLED is the default)
  int32_t  worker;
  bool     busy;
  char     stage[16];       // text: carried in the frame, not a metric
};
)",
                                    "demo.frames");
  REQUIRE(layouts.size() == 1);
  const auto& l = layouts[0];
  CHECK(l.struct_name == "work");
  REQUIRE(l.fields.size() == 8);
  CHECK(l.fields[0].name == "perfdm_seq");
  CHECK(l.fields[0].offset == 0);
  CHECK(l.fields[1].name == "perfdm_time");
  CHECK(l.fields[1].offset == 8);
  CHECK(field(l, "requests").kind == field_kind::counter);
  CHECK(field(l, "requests").units == "requests");
  CHECK(field(l, "queue_depth").kind == field_kind::sampled);
  CHECK(field(l, "queue_depth").units == "items");
  CHECK(field(l, "worker").kind == field_kind::sampled);
  CHECK(field(l, "busy").type == field_type::boolean);
  CHECK(field(l, "stage").kind == field_kind::text);
  CHECK(field(l, "stage").size == 16);
  // 16 + 3*8 + 4 + 1 + 16 = 61, rounded to 64; the int32 follows the 8-byte fields.
  CHECK(field(l, "worker").offset == 40);
  CHECK(l.size == 64);
}

TEST_CASE("frames schema: errors name file, line, column and the reason") {
  struct bad {
    const char* text;
    const char* expected;  // the start of the message
  };
  const bad cases[] = {
      {"struct a {\n  foo_t x;\n};", "s.frames:2:3: unknown type 'foo_t' (expected a C scalar"},
      {"struct a {\n  long double x;\n};", "s.frames:2:3: 'long double' is not a scalar type"},
      {"struct a { unsigned float x; };", "s.frames:1:12: 'unsigned float' is not a scalar type"},
      {"struct a { long long long x; };", "s.frames:1:22: too many 'long' in the type"},
      {"struct a { size_t unsigned x; };", "s.frames:1:19: 'unsigned' cannot be combined with"},
      {"struct a { int x, *p; };", "s.frames:1:19: pointers are not allowed"},
      {"struct a { int x y; };", "s.frames:1:18: expected ',' or ';' after the field"},
      {"struct a { int x = 1; };", "s.frames:1:18: expected ',' or ';' after the field"},
      {"struct a { int x, x; };", "s.frames:1:19: duplicate field x"},
      {"struct a { char c[2][3]; };", "s.frames:1:21: arrays of arrays are not allowed"},
      {"struct a { int v[16385]; };",
       "s.frames:1:18: expected the array length, a decimal number from 1 to 16384"},
      {"typedef int x;", "s.frames:1:9: expected 'struct' after 'typedef'"},
      {"typedef struct { int x; };", "s.frames:1:26: expected the typedef name"},
      {"typedef struct { int x; } b;\nstruct b { int y; };", "s.frames:2:8: duplicate struct b"},
      {"struct a { int x; };\n  #include <x.h>\nint",
       "s.frames:3:1: expected 'struct' or 'typedef struct'"},
      {"struct a { int /* c */ x; } /* @counter */;",
       "s.frames:1:32: @counter must be in a comment"},
      {"struct a {\n  int32_t* p;\n};", "s.frames:2:10: pointers are not allowed"},
      {"struct a {\n  uint32_t x : 3;\n};", "s.frames:2:14: bit-fields are not allowed"},
      {"struct a {\n  struct b x;\n};", "s.frames:2:3: nested structs are not allowed"},
      {"struct a {\n  int8_t x;\n  int8_t x;\n};", "s.frames:3:10: duplicate field x"},
      {"struct a { int8_t x; };\nstruct a { int8_t y; };", "s.frames:2:8: duplicate struct a"},
      {"struct a {\n  int8_t perfdm_x;\n};",
       "s.frames:2:10: a field name may not start with perfdm_"},
      {"struct perfdm_a { int8_t x; };", "s.frames:1:8: a struct name may not start with perfdm_"},
      {"struct a {\n  int8_t x; // @often\n};", "s.frames:2:16: unknown annotation '@often'"},
      {"struct a {\n  char t[4]; // @counter\n};", "s.frames:2:17: @counter on a text field"},
      {"struct a {\n};", "s.frames:1:8: struct a has no fields"},
      {"struct a { char c[0]; };", "s.frames:1:19: expected the array length"},
      {"struct a { int8_t x; int8_t y; }", "s.frames:1:33: expected ';' after the struct's '}'"},
      {"struct a { int8_t x /* open", "s.frames:1:21: unterminated comment"},
      {"struct a { int8_t x; } ;\n@", "s.frames:2:1: unexpected character '@'"},
      {"struct a { int8_t x; } a;", "s.frames:1:24: expected ';' after the struct's '}'"},
      {"struct a { int8_t class; };", "s.frames:1:19: 'class' is a C or C++ keyword"},
      {"struct a { int8_t uint8_t; };", "s.frames:1:19: 'uint8_t' names a type"},
      {"struct size_t { int x; };", "s.frames:1:8: 'size_t' names a type"},
      {"struct a {\n  int8_t x; // @counter @sampled\n};",
       "s.frames:2:25: the field already has @counter or @sampled"},
      {"struct a {\n  int8_t x; // @units()\n};", "s.frames:2:16: @units(text) needs"},
      {"struct a {\n  // @counter\n  int8_t x;\n};", "s.frames:2:6: @counter must be in a comment"},
      {"", "s.frames:1:1: the schema declares no struct"},
      {"struct a { char big[70000]; };", "s.frames:1:21: expected the array length"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    const auto message = schema_error_of(c.text);
    CHECK(message.rfind(c.expected, 0) == 0);
    if (message.rfind(c.expected, 0) != 0) CHECK(message == c.expected);
  }
}

TEST_CASE("frames layout: the generated structs match the computed layout (sizeof, offsetof)") {
  const auto layouts = parse_schema_file(PERFDM_SOURCE_DIR "/tests/frames/test.frames");
  REQUIRE(layouts.size() == 2);
  const auto& s = layouts[0];
  CHECK(s.size == sizeof(perfdm_sample_frame));
#define CHECK_OFFSET(l, type, name) CHECK(field(l, #name).offset == offsetof(type, name))
  CHECK_OFFSET(s, perfdm_sample_frame, perfdm_seq);
  CHECK_OFFSET(s, perfdm_sample_frame, perfdm_time);
  CHECK_OFFSET(s, perfdm_sample_frame, small);
  CHECK_OFFSET(s, perfdm_sample_frame, thread);
  CHECK_OFFSET(s, perfdm_sample_frame, index);
  CHECK_OFFSET(s, perfdm_sample_frame, odd);
  CHECK_OFFSET(s, perfdm_sample_frame, negative);
  CHECK_OFFSET(s, perfdm_sample_frame, label);
  CHECK_OFFSET(s, perfdm_sample_frame, quarter);
  CHECK_OFFSET(s, perfdm_sample_frame, half);
  CHECK_OFFSET(s, perfdm_sample_frame, tiny);
  CHECK_OFFSET(s, perfdm_sample_frame, medium);
  CHECK_OFFSET(s, perfdm_sample_frame, big);
  CHECK_OFFSET(s, perfdm_sample_frame, wide);
  const auto& p = layouts[1];
  CHECK(p.size == sizeof(perfdm_pair_frame));
  CHECK(p.size == 32);
  CHECK_OFFSET(p, perfdm_pair_frame, first);
  CHECK_OFFSET(p, perfdm_pair_frame, second);
#undef CHECK_OFFSET
  // The executable carries the same descriptor and hash as the tool computes.
  CHECK(std::string(perfdm_layout_sample) == layout_descriptor(s));
  CHECK(perfdm_layout_hash_sample == layout_hash(layout_descriptor(s)));
  CHECK(std::string(perfdm_layout_pair) == layout_descriptor(p));
}

TEST_CASE("frames layout: no ordering of the fields is smaller (every permutation)") {
  const field_type types[] = {field_type::i8,      field_type::u16, field_type::i32,
                              field_type::u64,     field_type::f32, field_type::f64,
                              field_type::boolean, field_type::text};
  std::mt19937 rng(20261123);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 7);
    std::vector<field_declaration> fields;
    for (int i = 0; i < n; ++i) {
      field_declaration d;
      d.name = "f" + std::to_string(i);
      d.type = types[rng() % std::size(types)];
      if (d.type == field_type::text) {
        d.length = 1 + rng() % 11;
        d.kind = field_kind::text;
      }
      fields.push_back(d);
    }
    const auto best = lay_out("s", fields);
    // Fields in the chosen order never overlap and sit at aligned offsets.
    for (std::size_t i = 1; i < best.fields.size(); ++i) {
      CHECK(best.fields[i].offset >= best.fields[i - 1].offset + best.fields[i - 1].size);
      CHECK(best.fields[i].offset % type_align(best.fields[i].type) == 0);
    }
    std::vector<int> order(n);
    for (int i = 0; i < n; ++i) order[i] = i;
    std::uint32_t smallest = UINT32_MAX;
    do {
      std::vector<field_declaration> permuted;
      for (int i : order) permuted.push_back(fields[i]);
      smallest = std::min(smallest, layout_in_order("s", permuted).size);
    } while (std::next_permutation(order.begin(), order.end()));
    INFO("trial " << trial << ": " << layout_descriptor(best));
    CHECK(best.size == smallest);
  }
}

TEST_CASE("frames layout: descriptors round-trip, and any corruption is a schema_error") {
  const auto layouts = parse_schema_file(PERFDM_SOURCE_DIR "/tests/frames/test.frames");
  for (const auto& l : layouts) {
    const auto text = layout_descriptor(l);
    const auto back = parse_layout_descriptor(text);
    CHECK(layout_descriptor(back) == text);
    CHECK(back.size == l.size);
  }
  const auto text = layout_descriptor(layouts[0]);
  // Every byte replaced by a few others, and every truncation: an error or a descriptor
  // that describes itself exactly, never undefined behaviour.
  const char replacements[] = {'\0', ' ', '\n', '0', '9', 'x', '_', '(', '\xff'};
  std::size_t refused = 0, tried = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    for (const char c : replacements) {
      if (text[i] == c) continue;
      std::string bad = text;
      bad[i] = c;
      ++tried;
      try {
        const auto l = parse_layout_descriptor(bad);
        CHECK(layout_descriptor(l) == bad);
      } catch (const schema_error& e) {
        ++refused;
        CHECK(std::string(e.what()).rfind("layout descriptor:", 0) == 0);
      }
    }
    try {
      parse_layout_descriptor(std::string_view(text).substr(0, i));
      CHECK(i == 0);  // unreachable: every proper prefix is incomplete
      FAIL("prefix of " << i << " bytes accepted");
    } catch (const schema_error&) {
    }
  }
  CHECK(refused > tried * 9 / 10);
  CHECK_THROWS_AS(parse_layout_descriptor(text + "field extra u8 200 1 sampled\n"), schema_error);
  CHECK_THROWS_WITH(parse_layout_descriptor(""), Catch::Contains("layout descriptor:1:1"));
}

TEST_CASE("frames layout: field_value and field_text read every type") {
  const auto l = parse_schema_file(PERFDM_SOURCE_DIR "/tests/frames/test.frames")[0];
  perfdm_sample_frame f{};
  PERFDM_sample_SET_small(&f, 200);
  PERFDM_sample_SET_negative(&f, -7);
  PERFDM_sample_SET_odd(&f, 5);
  PERFDM_sample_SET_label(&f, "a\tb\\c\n");
  PERFDM_sample_SET_quarter(&f, 0.1);
  PERFDM_sample_SET_wide(&f, INT64_MIN);
  PERFDM_sample_SET_index(&f, UINT64_MAX);
  const auto* p = reinterpret_cast<const std::byte*>(&f);
  CHECK(field_value(field(l, "small"), p) == 200);
  CHECK(field_value(field(l, "negative"), p) == -7);
  CHECK(field_value(field(l, "odd"), p) == 1);
  CHECK(field_value(field(l, "quarter"), p) == 0.1);
  CHECK(std::isnan(field_value(field(l, "label"), p)));
  CHECK(field_text(field(l, "label"), p) == "a\\tb\\\\c\\n");
  CHECK(field_text(field(l, "quarter"), p) == "0.1");
  CHECK(field_text(field(l, "wide"), p) == "-9223372036854775808");
  CHECK(field_text(field(l, "index"), p) == "18446744073709551615");
  CHECK(field_text(field(l, "odd"), p) == "1");
}
