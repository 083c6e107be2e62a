// The layout of a frame (docs/FRAMES.md §2): perfdm_seq and perfdm_time first, then the
// schema's fields ordered by alignment, largest first, so there is no interior padding.
// The layout descriptor is the text that describes a layout completely; it travels in the
// observed executable and in every segment header, and its hash identifies the layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace perfdm::shm {

enum class field_type { i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, boolean, text };
enum class field_kind { seq, time, counter, sampled, text };

struct field_layout {
  std::string name;
  field_type type = field_type::u64;
  std::uint32_t offset = 0, size = 0;  // size in bytes: N for char[N], N * type_size for T[N]
  field_kind kind = field_kind::sampled;
  std::string units;               // empty when not given
  std::uint32_t array_length = 0;  // N of a numeric array T[N]; 0 for a scalar and for text
};

struct frame_layout {
  std::string struct_name;
  std::uint32_t size = 0, align = 0;
  std::vector<field_layout> fields;  // fields[0], [1]: perfdm_seq, perfdm_time
};

// A field as declared in a schema, before it has an offset.
struct field_declaration {
  std::string name;
  field_type type = field_type::u64;
  // N of `name[N]`: the characters of a text field, the elements of a numeric array; 0 for
  // a scalar.
  std::uint32_t length = 0;
  field_kind kind = field_kind::sampled;
  std::string units;
};

// The largest frame perfdm accepts (a frame is copied per write; larger is a schema error).
constexpr std::uint32_t max_frame_size = 1u << 16;

const char* to_string(field_type t);
const char* to_string(field_kind k);
std::uint32_t type_size(field_type t);   // 1 for text (per character)
std::uint32_t type_align(field_type t);  // 1 for text
bool is_numeric(field_type t);           // every type but text

// Lays the fields out in exactly the given order, with C's alignment rules, after the two
// fields perfdm adds. Throws schema_error when the frame would exceed max_frame_size.
frame_layout layout_in_order(const std::string& struct_name,
                             const std::vector<field_declaration>& fields);

// The frame layout of FRAMES.md §2: alignment descending, ties in declaration order.
frame_layout lay_out(const std::string& struct_name, std::vector<field_declaration> fields);

// The descriptor text (format in FRAMES.md §2) and its strict inverse: anything but a
// descriptor layout_descriptor could have written is a schema_error naming line and column.
std::string layout_descriptor(const frame_layout& layout);
frame_layout parse_layout_descriptor(std::string_view text);

// FNV-1a (64 bits) of the descriptor text.
std::uint64_t layout_hash(std::string_view descriptor);

// The layout's fields with every numeric array T name[N] replaced by its N elements, scalar
// fields named `name[0]` … `name[N-1]`: what becomes metrics and `perfdm read` columns.
std::vector<field_layout> element_fields(const frame_layout& layout);

// The value of a numeric field of `frame` (bool as 0/1; an array's first element); NaN for
// a text field.
double field_value(const field_layout& field, const std::byte* frame);

// The field as text: integers exactly, floating point in the shortest form that reads back
// the same, text up to its first NUL with \t \n \\ and unprintable bytes escaped (\xHH),
// an array's elements separated by commas.
std::string field_text(const field_layout& field, const std::byte* frame);

}  // namespace perfdm::shm
