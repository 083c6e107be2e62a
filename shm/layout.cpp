#include "shm/layout.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "shm/name_rules.hpp"
#include "shm/shm_error.hpp"

namespace perfdm::shm {

namespace {

constexpr const char* descriptor_magic = "perfdm-frame 1";

std::uint32_t round_up(std::uint32_t n, std::uint32_t align) {
  return (n + align - 1) / align * align;
}

template <class T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Reads a descriptor line by line; every error names its line and column.
class descriptor_parser {
 public:
  explicit descriptor_parser(std::string_view text) : text_(text) {}

  [[noreturn]] void fail(const std::string& reason) const {
    throw schema_error("layout descriptor:" + std::to_string(line_) + ":" +
                       std::to_string(pos_ - line_start_ + 1) + ": " + reason);
  }

  bool at_end() const { return pos_ == text_.size(); }

  // The word up to the next space or end of line.
  std::string_view word(const char* what) {
    const auto start = pos_;
    while (pos_ < text_.size() && text_[pos_] != ' ' && text_[pos_] != '\n') ++pos_;
    if (pos_ == start) fail(std::string("expected ") + what);
    return text_.substr(start, pos_ - start);
  }

  void expect_word(std::string_view w) {
    const auto start = pos_;
    if (word(std::string(w).c_str()) != w) {
      pos_ = start;
      fail("expected '" + std::string(w) + "'");
    }
  }

  void space() {
    if (pos_ >= text_.size() || text_[pos_] != ' ') fail("expected one space");
    ++pos_;
  }

  bool at_space() const { return pos_ < text_.size() && text_[pos_] == ' '; }

  void end_of_line() {
    if (pos_ >= text_.size() || text_[pos_] != '\n') fail("expected the end of the line");
    ++pos_;
    ++line_;
    line_start_ = pos_;
  }

  std::uint32_t number(const char* what) {
    const auto start = pos_;
    const auto w = word(what);
    std::uint32_t v = 0;
    const auto r = std::from_chars(w.data(), w.data() + w.size(), v);
    if (r.ec != std::errc() || r.ptr != w.data() + w.size() || (w.size() > 1 && w[0] == '0')) {
      pos_ = start;
      fail(std::string("expected ") + what + " (a decimal number below 2^32)");
    }
    return v;
  }

  std::string name(const char* what) {
    const auto start = pos_;
    const auto w = word(what);
    if (!is_identifier(w)) {
      pos_ = start;
      fail(std::string("expected ") + what + " (a C identifier of at most " +
           std::to_string(max_name_length) + " characters)");
    }
    return std::string(w);
  }

  std::string rest_of_line() {
    const auto start = pos_;
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  std::size_t column_mark() const { return pos_; }
  void rewind(std::size_t mark) { pos_ = mark; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0, line_start_ = 0;
  int line_ = 1;
};

bool parse_type(std::string_view s, field_type& out) {
  for (int i = 0; i <= static_cast<int>(field_type::text); ++i) {
    if (s == to_string(static_cast<field_type>(i))) {
      out = static_cast<field_type>(i);
      return true;
    }
  }
  return false;
}

// A descriptor's TYPE: a type name, or T[N] for a numeric array (N a plain decimal, 1 up to
// the largest frame).
bool parse_type_word(std::string_view s, field_type& out, std::uint32_t& array_length) {
  array_length = 0;
  const auto open = s.find('[');
  if (open == std::string_view::npos) return parse_type(s, out);
  if (s.back() != ']' || !parse_type(s.substr(0, open), out) || out == field_type::text)
    return false;
  const auto digits = s.substr(open + 1, s.size() - open - 2);
  const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), array_length);
  return r.ec == std::errc() && r.ptr == digits.data() + digits.size() && !digits.empty() &&
         digits[0] != '0' && array_length >= 1 && array_length <= max_frame_size;
}

bool parse_kind(std::string_view s, field_kind& out) {
  for (int i = 0; i <= static_cast<int>(field_kind::text); ++i) {
    if (s == to_string(static_cast<field_kind>(i))) {
      out = static_cast<field_kind>(i);
      return true;
    }
  }
  return false;
}

void append_escaped(std::string& out, const char* s, std::size_t n) {
  static const char hex[] = "0123456789abcdef";
  for (std::size_t i = 0; i < n && s[i] != '\0'; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c < 0x20 || c >= 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
}

template <class T>
void append_number(std::string& out, T v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

}  // namespace

const char* to_string(field_type t) {
  switch (t) {
    case field_type::i8:
      return "i8";
    case field_type::i16:
      return "i16";
    case field_type::i32:
      return "i32";
    case field_type::i64:
      return "i64";
    case field_type::u8:
      return "u8";
    case field_type::u16:
      return "u16";
    case field_type::u32:
      return "u32";
    case field_type::u64:
      return "u64";
    case field_type::f32:
      return "f32";
    case field_type::f64:
      return "f64";
    case field_type::boolean:
      return "bool";
    case field_type::text:
      return "text";
  }
  return "?";
}

const char* to_string(field_kind k) {
  switch (k) {
    case field_kind::seq:
      return "seq";
    case field_kind::time:
      return "time";
    case field_kind::counter:
      return "counter";
    case field_kind::sampled:
      return "sampled";
    case field_kind::text:
      return "text";
  }
  return "?";
}

std::uint32_t type_size(field_type t) {
  switch (t) {
    case field_type::i8:
    case field_type::u8:
    case field_type::boolean:
    case field_type::text:
      return 1;
    case field_type::i16:
    case field_type::u16:
      return 2;
    case field_type::i32:
    case field_type::u32:
    case field_type::f32:
      return 4;
    case field_type::i64:
    case field_type::u64:
    case field_type::f64:
      return 8;
  }
  return 1;
}

std::uint32_t type_align(field_type t) {
  return type_size(t);
}

bool is_numeric(field_type t) {
  return t != field_type::text;
}

frame_layout layout_in_order(const std::string& struct_name,
                             const std::vector<field_declaration>& fields) {
  frame_layout l;
  l.struct_name = struct_name;
  l.align = 8;
  l.fields.push_back({"perfdm_seq", field_type::u64, 0, 8, field_kind::seq, ""});
  l.fields.push_back({"perfdm_time", field_type::u64, 8, 8, field_kind::time, ""});
  std::uint64_t offset = 16;
  for (const auto& d : fields) {
    const std::uint32_t align = type_align(d.type);
    const bool text = d.type == field_type::text;
    const std::uint64_t size =
        text ? std::uint64_t(d.length) : std::uint64_t(type_size(d.type)) * std::max(d.length, 1u);
    offset = (offset + align - 1) / align * align;
    if (offset + size > max_frame_size)
      throw schema_error("struct " + struct_name + ": a frame may hold at most " +
                         std::to_string(max_frame_size) + " bytes");
    l.fields.push_back({d.name, d.type, static_cast<std::uint32_t>(offset),
                        static_cast<std::uint32_t>(size), d.kind, d.units, text ? 0 : d.length});
    offset += size;
    l.align = std::max(l.align, align);
  }
  l.size = round_up(static_cast<std::uint32_t>(offset), l.align);
  return l;
}

frame_layout lay_out(const std::string& struct_name, std::vector<field_declaration> fields) {
  std::stable_sort(fields.begin(), fields.end(), [](const auto& a, const auto& b) {
    return type_align(a.type) > type_align(b.type);
  });
  return layout_in_order(struct_name, fields);
}

std::string layout_descriptor(const frame_layout& l) {
  std::string out = descriptor_magic;
  out += "\nstruct " + l.struct_name + " " + std::to_string(l.size) + " " +
         std::to_string(l.align) + "\n";
  for (const auto& f : l.fields) {
    // A numeric array's type is T[N]; everything else is as it was before arrays existed,
    // so the descriptors (and hashes) of array-free schemas did not change.
    std::string type = to_string(f.type);
    if (f.array_length != 0) type += "[" + std::to_string(f.array_length) + "]";
    out += "field " + f.name + " " + type + " " + std::to_string(f.offset) + " " +
           std::to_string(f.size) + " " + to_string(f.kind);
    if (!f.units.empty()) out += " " + f.units;
    out += "\n";
  }
  return out + "end\n";  // a descriptor cut short is never a shorter valid one
}

frame_layout parse_layout_descriptor(std::string_view text) {
  descriptor_parser p(text);
  p.expect_word("perfdm-frame");
  p.space();
  if (p.number("the format version") != 1) p.fail("unknown descriptor version");
  p.end_of_line();
  p.expect_word("struct");
  p.space();
  frame_layout l;
  l.struct_name = p.name("the struct name");
  p.space();
  l.size = p.number("the frame size");
  p.space();
  l.align = p.number("the frame alignment");
  p.end_of_line();
  std::vector<field_declaration> declared;
  for (;;) {
    if (p.at_end()) p.fail("expected 'field' or 'end'");
    const auto line_mark = p.column_mark();
    if (p.word("'field' or 'end'") == "end") {
      p.end_of_line();
      if (!p.at_end()) p.fail("nothing may follow 'end'");
      break;
    }
    p.rewind(line_mark);
    p.expect_word("field");
    p.space();
    field_layout f;
    const auto name_mark = p.column_mark();
    f.name = p.name("the field name");
    const auto index = l.fields.size();
    const bool added = index >= 2;
    if (!added && f.name != (index == 0 ? "perfdm_seq" : "perfdm_time")) {
      p.rewind(name_mark);
      p.fail(index == 0 ? "the first field must be perfdm_seq"
                        : "the second field must be perfdm_time");
    }
    if (added && is_reserved_name(f.name)) {
      p.rewind(name_mark);
      p.fail("a schema field may not start with perfdm_");
    }
    for (const auto& g : l.fields) {
      if (g.name == f.name) {
        p.rewind(name_mark);
        p.fail("duplicate field " + f.name);
      }
    }
    p.space();
    const auto type_mark = p.column_mark();
    if (!parse_type_word(p.word("a field type"), f.type, f.array_length)) {
      p.rewind(type_mark);
      p.fail("unknown field type");
    }
    p.space();
    f.offset = p.number("the field offset");
    p.space();
    const auto size_mark = p.column_mark();
    f.size = p.number("the field size");
    if (f.type == field_type::text
            ? (f.size == 0 || f.size > max_frame_size)
            : f.size != std::uint64_t(type_size(f.type)) * std::max(f.array_length, 1u)) {
      p.rewind(size_mark);
      p.fail("the size does not fit the type");
    }
    p.space();
    const auto kind_mark = p.column_mark();
    if (!parse_kind(p.word("a field kind"), f.kind)) {
      p.rewind(kind_mark);
      p.fail("unknown field kind");
    }
    const field_kind expected_fixed = index == 0 ? field_kind::seq : field_kind::time;
    const bool kind_fits =
        !added ? f.kind == expected_fixed && f.type == field_type::u64 && f.array_length == 0
        : f.type == field_type::text
            ? f.kind == field_kind::text
            : f.kind == field_kind::counter || f.kind == field_kind::sampled;
    if (!kind_fits) {
      p.rewind(kind_mark);
      p.fail("the kind does not fit the field");
    }
    if (p.at_space()) {
      p.space();
      const auto units_mark = p.column_mark();
      f.units = p.rest_of_line();
      if (!added || !is_valid_units(f.units)) {
        p.rewind(units_mark);
        p.fail("invalid units");
      }
    }
    p.end_of_line();
    if (added)
      declared.push_back(
          {f.name, f.type, f.type == field_type::text ? f.size : f.array_length, f.kind, f.units});
    l.fields.push_back(std::move(f));
  }
  if (l.fields.size() < 3) p.fail("a frame needs at least one field of its own");
  // Offsets, size and alignment must be exactly those of a C struct with these fields in
  // this order: that rules out overlaps, misalignment and fields past the end.
  frame_layout expected;
  try {
    expected = layout_in_order(l.struct_name, declared);
  } catch (const schema_error& e) {
    p.fail(e.what());
  }
  for (std::size_t i = 0; i < l.fields.size(); ++i) {
    if (l.fields[i].offset != expected.fields[i].offset)
      throw schema_error("layout descriptor:" + std::to_string(i + 3) + ": field " +
                         l.fields[i].name + " should be at offset " +
                         std::to_string(expected.fields[i].offset));
  }
  if (l.size != expected.size || l.align != expected.align)
    throw schema_error("layout descriptor:2: the frame's size and alignment should be " +
                       std::to_string(expected.size) + " " + std::to_string(expected.align));
  return l;
}

std::uint64_t layout_hash(std::string_view descriptor) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : descriptor) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

std::vector<field_layout> element_fields(const frame_layout& layout) {
  std::vector<field_layout> out;
  for (const auto& f : layout.fields) {
    if (f.array_length == 0) {
      out.push_back(f);
      continue;
    }
    for (std::uint32_t i = 0; i < f.array_length; ++i) {
      field_layout e = f;
      e.name = f.name + "[" + std::to_string(i) + "]";
      e.size = type_size(f.type);
      e.offset = f.offset + i * e.size;
      e.array_length = 0;
      out.push_back(std::move(e));
    }
  }
  return out;
}

double field_value(const field_layout& f, const std::byte* frame) {
  const std::byte* p = frame + f.offset;
  switch (f.type) {
    case field_type::i8:
      return load<std::int8_t>(p);
    case field_type::i16:
      return load<std::int16_t>(p);
    case field_type::i32:
      return load<std::int32_t>(p);
    case field_type::i64:
      return static_cast<double>(load<std::int64_t>(p));
    case field_type::u8:
      return load<std::uint8_t>(p);
    case field_type::u16:
      return load<std::uint16_t>(p);
    case field_type::u32:
      return load<std::uint32_t>(p);
    case field_type::u64:
      return static_cast<double>(load<std::uint64_t>(p));
    case field_type::f32:
      return load<float>(p);
    case field_type::f64:
      return load<double>(p);
    case field_type::boolean:
      return load<std::uint8_t>(p) != 0 ? 1.0 : 0.0;
    case field_type::text:
      break;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

std::string field_text(const field_layout& f, const std::byte* frame) {
  if (f.array_length != 0) {
    std::string out;
    field_layout e = f;
    e.array_length = 0;
    e.size = type_size(f.type);
    for (std::uint32_t i = 0; i < f.array_length; ++i, e.offset += e.size) {
      if (i) out += ',';
      out += field_text(e, frame);
    }
    return out;
  }
  const std::byte* p = frame + f.offset;
  std::string out;
  switch (f.type) {
    case field_type::i8:
      append_number(out, int(load<std::int8_t>(p)));
      break;
    case field_type::i16:
      append_number(out, load<std::int16_t>(p));
      break;
    case field_type::i32:
      append_number(out, load<std::int32_t>(p));
      break;
    case field_type::i64:
      append_number(out, load<std::int64_t>(p));
      break;
    case field_type::u8:
      append_number(out, unsigned(load<std::uint8_t>(p)));
      break;
    case field_type::u16:
      append_number(out, load<std::uint16_t>(p));
      break;
    case field_type::u32:
      append_number(out, load<std::uint32_t>(p));
      break;
    case field_type::u64:
      append_number(out, load<std::uint64_t>(p));
      break;
    case field_type::f32:
      append_number(out, load<float>(p));
      break;
    case field_type::f64:
      append_number(out, load<double>(p));
      break;
    case field_type::boolean:
      out += load<std::uint8_t>(p) != 0 ? "1" : "0";
      break;
    case field_type::text:
      append_escaped(out, reinterpret_cast<const char*>(p), f.size);
      break;
  }
  return out;
}

}  // namespace perfdm::shm
