#include "shm/schema.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>

#include "shm/name_rules.hpp"
#include "shm/schema_tokenizer.hpp"
#include "shm/shm_error.hpp"

namespace perfdm::shm {

namespace {

using namespace schema_detail;

// Words a field or struct may not be called: the generated code is C and C++.
const std::set<std::string>& keywords() {
  static const std::set<std::string> k = {"auto",
                                          "break",
                                          "case",
                                          "char",
                                          "const",
                                          "continue",
                                          "default",
                                          "do",
                                          "double",
                                          "else",
                                          "enum",
                                          "extern",
                                          "float",
                                          "for",
                                          "goto",
                                          "if",
                                          "inline",
                                          "int",
                                          "long",
                                          "register",
                                          "restrict",
                                          "return",
                                          "short",
                                          "signed",
                                          "sizeof",
                                          "static",
                                          "struct",
                                          "switch",
                                          "typedef",
                                          "union",
                                          "unsigned",
                                          "void",
                                          "volatile",
                                          "while",
                                          "bool",
                                          "true",
                                          "false",
                                          "class",
                                          "delete",
                                          "new",
                                          "namespace",
                                          "private",
                                          "protected",
                                          "public",
                                          "template",
                                          "this",
                                          "throw",
                                          "try",
                                          "catch",
                                          "typename",
                                          "virtual",
                                          "operator",
                                          "friend",
                                          "using",
                                          "asm",
                                          "alignas",
                                          "alignof",
                                          "constexpr",
                                          "decltype",
                                          "noexcept",
                                          "nullptr",
                                          "static_assert",
                                          "thread_local",
                                          "mutable",
                                          "explicit",
                                          "export",
                                          "wchar_t",
                                          "char8_t",
                                          "char16_t",
                                          "char32_t",
                                          "const_cast",
                                          "dynamic_cast",
                                          "reinterpret_cast",
                                          "static_cast",
                                          "typeid",
                                          "and",
                                          "or",
                                          "not",
                                          "xor",
                                          "bitand",
                                          "bitor",
                                          "compl",
                                          "and_eq",
                                          "or_eq",
                                          "xor_eq",
                                          "not_eq",
                                          "concept",
                                          "requires",
                                          "co_await",
                                          "co_yield",
                                          "co_return",
                                          "_Bool"};
  return k;
}

// A C scalar type: what a declaration's specifiers resolve to (x86-64, LP64: docs/FRAMES.md
// §1). `c_name` is the canonical spelling the generated header checks the size of.
struct scalar_type {
  field_type type = field_type::i32;
  std::string c_name;
  bool plain_char = false;  // `char` without signed/unsigned: text when an array
};

// The type names from <stdint.h>, <stddef.h> and <sys/types.h> a schema may use.
struct typedef_name {
  const char* name;
  field_type type;
};
constexpr typedef_name typedef_names[] = {
    {"int8_t", field_type::i8},    {"int16_t", field_type::i16},  {"int32_t", field_type::i32},
    {"int64_t", field_type::i64},  {"uint8_t", field_type::u8},   {"uint16_t", field_type::u16},
    {"uint32_t", field_type::u32}, {"uint64_t", field_type::u64}, {"size_t", field_type::u64},
    {"ssize_t", field_type::i64},  {"intptr_t", field_type::i64}, {"uintptr_t", field_type::u64},
};

constexpr const char* expected_types =
    "expected a C scalar type: char, short, int, long, long long (signed or unsigned), "
    "float, double, bool, _Bool, int8_t..int64_t, uint8_t..uint64_t, size_t, ssize_t, "
    "intptr_t or uintptr_t";

// The words of a declaration's type, as C allows them in any order.
struct specifiers {
  int signed_ = 0, unsigned_ = 0, char_ = 0, short_ = 0, int_ = 0, long_ = 0, bool_ = 0, float_ = 0,
      double_ = 0;
  const char* typedef_name = nullptr;
  field_type typedef_type = field_type::i32;
  bool any() const {
    return signed_ || unsigned_ || char_ || short_ || int_ || long_ || bool_ || float_ || double_ ||
           typedef_name;
  }
};

class schema_parser {
 public:
  schema_parser(const std::string& text, const std::string& file)
      : lexer_(text, file), tokens_(lexer_.run()) {
    settle();
  }

  parsed_schema run() {
    parsed_schema out;
    out.notes = lexer_.notes();
    std::set<std::string> struct_names;
    while (cur().kind != token_kind::end) {
      schema_struct s;
      const token* name = nullptr;
      if (is_word("typedef")) {
        next();
        if (!is_word("struct"))
          fail(cur(),
               "expected 'struct' after 'typedef' (only typedef struct { … } Name; is "
               "allowed)");
        next();
        if (cur().kind == token_kind::identifier) {  // the tag, if any: C calls it both ways
          check_name(cur(), "struct");
          next();
        }
        expect("{", "expected '{' after typedef struct");
        const token& open = tokens_[i_ - 1];
        s.fields = parse_fields();
        expect("}", "expected '}'");
        name = &cur();
        check_name(*name, "typedef");
        next();
        expect(";", "expected ';' after the typedef name");
        s.name = name->text;
        s.c_type = name->text;
        if (s.fields.empty()) fail(open, "struct " + s.name + " has no fields");
      } else if (is_word("struct")) {
        next();
        name = &cur();
        check_name(*name, "struct");
        next();
        expect("{", "expected '{' after the struct name");
        s.fields = parse_fields();
        expect("}", "expected '}'");
        expect(";", "expected ';' after the struct's '}'");
        s.name = name->text;
        s.c_type = "struct " + name->text;
        if (s.fields.empty()) fail(*name, "struct " + s.name + " has no fields");
      } else {
        fail(cur(),
             "expected 'struct' or 'typedef struct' (a schema holds only struct "
             "declarations)");
      }
      if (!struct_names.insert(s.name).second) fail(*name, "duplicate struct " + s.name);
      try {
        out.layouts.push_back(lay_out(s.name, s.fields));
      } catch (const schema_error& e) {
        fail(*name, e.what());
      }
      out.structs.push_back(std::move(s));
    }
    if (out.structs.empty()) fail(cur(), "the schema declares no struct");
    out.c_types = c_types_;
    return out;
  }

 private:
  [[noreturn]] void fail(const token& t, const std::string& reason) const {
    lexer_.fail(t.at, reason);
  }

  // The current token is never a comment: comments are skipped as the parser moves (and
  // checked: an annotation anywhere but after a field's ';' would be silently lost).
  const token& cur() const { return tokens_[i_]; }
  void next() {
    if (tokens_[i_].kind != token_kind::end) ++i_;
    settle();
  }
  void settle() {
    while (tokens_[i_].kind == token_kind::comment) {
      check_no_annotation(tokens_[i_]);
      ++i_;
    }
  }

  bool is_word(const char* w) const {
    return cur().kind == token_kind::identifier && cur().text == w;
  }
  bool is_punct(const char* p) const {
    return cur().kind == token_kind::punctuation && cur().text == p;
  }

  void expect(const char* punct, const char* reason) {
    if (!is_punct(punct)) fail(cur(), reason);
    next();
  }

  void check_name(const token& t, const char* what) {
    if (t.kind != token_kind::identifier || !is_identifier(t.text))
      fail(t, std::string("expected the ") + what + " name (a C identifier of at most " +
                  std::to_string(max_name_length) + " characters)");
    if (is_reserved_name(t.text))
      fail(t, std::string("a ") + what + " name may not start with perfdm_");
    if (keywords().count(t.text)) fail(t, "'" + t.text + "' is a C or C++ keyword");
    // The generated code spells these types: a field or struct of that name would hide one.
    for (const auto& d : typedef_names)
      if (t.text == d.name) fail(t, "'" + t.text + "' names a type");
  }

  std::vector<field_declaration> parse_fields() {
    std::vector<field_declaration> fields;
    std::set<std::string> names;
    for (;;) {
      if (is_punct("}")) break;
      if (cur().kind == token_kind::end) fail(cur(), "the struct is not closed with '}'");
      std::vector<const token*> name_tokens;
      const auto declared = parse_declaration(name_tokens);
      for (std::size_t k = 0; k < declared.size(); ++k) {
        if (!names.insert(declared[k].name).second)
          fail(*name_tokens[k], "duplicate field " + declared[k].name);
        fields.push_back(declared[k]);
      }
    }
    return fields;
  }

  // The specifiers of a declaration (any order, const and volatile ignored), resolved to
  // one scalar type.
  scalar_type parse_type() {
    const token& first = cur();
    if (first.kind != token_kind::identifier) fail(first, "expected a field type");
    specifiers s;
    while (cur().kind == token_kind::identifier) {
      const token& t = cur();
      const std::string& w = t.text;
      if (w == "const" || w == "volatile") {
        next();
        continue;
      }
      int* count = w == "signed"                 ? &s.signed_
                   : w == "unsigned"             ? &s.unsigned_
                   : w == "char"                 ? &s.char_
                   : w == "short"                ? &s.short_
                   : w == "int"                  ? &s.int_
                   : w == "long"                 ? &s.long_
                   : w == "_Bool" || w == "bool" ? &s.bool_
                   : w == "float"                ? &s.float_
                   : w == "double"               ? &s.double_
                                                 : nullptr;
      if (count) {
        if (s.typedef_name) fail(t, "'" + w + "' cannot be combined with " + s.typedef_name);
        if (*count == (w == "long" ? 2 : 1)) fail(t, "too many '" + w + "' in the type");
        ++*count;
        next();
        continue;
      }
      if (w == "struct" || w == "union" || w == "enum") {
        if (s.any()) break;
        fail(t, "nested " + w + "s are not allowed: a frame holds plain fields");
      }
      if (!s.any()) {
        for (const auto& d : typedef_names) {
          if (w == d.name) {
            s.typedef_name = d.name;
            s.typedef_type = d.type;
          }
        }
        if (!s.typedef_name) fail(t, "unknown type '" + w + "' (" + expected_types + ")");
        next();
        continue;
      }
      break;  // the declarator's name
    }
    if (!s.any()) fail(first, std::string("expected a field type (") + expected_types + ")");
    scalar_type r;
    if (!resolve(s, r))
      fail(first, "'" + spelled(s) + "' is not a scalar type perfdm knows (" + expected_types +
                      "; long double is not allowed)");
    return r;
  }

  static std::string spelled(const specifiers& s) {
    std::string out;
    auto add = [&](int n, const char* w) {
      for (int i = 0; i < n; ++i) out += (out.empty() ? "" : " ") + std::string(w);
    };
    add(s.signed_, "signed");
    add(s.unsigned_, "unsigned");
    add(s.short_, "short");
    add(s.long_, "long");
    add(s.char_, "char");
    add(s.int_, "int");
    add(s.bool_, "bool");
    add(s.float_, "float");
    add(s.double_, "double");
    return out;
  }

  // C's rules for combining specifiers, with x86-64 LP64 sizes.
  static bool resolve(const specifiers& s, scalar_type& r) {
    if (s.typedef_name) {
      r.type = s.typedef_type;
      r.c_name = s.typedef_name;
      return true;
    }
    const int sign = s.signed_ + s.unsigned_;
    if (sign > 1) return false;
    const bool u = s.unsigned_ != 0;
    if (s.bool_ || s.float_ || s.double_) {
      if (sign || s.char_ || s.short_ || s.int_ || s.long_ || s.bool_ + s.float_ + s.double_ > 1)
        return false;
      r.type = s.bool_ ? field_type::boolean : s.float_ ? field_type::f32 : field_type::f64;
      r.c_name = s.bool_ ? "bool" : s.float_ ? "float" : "double";
      return true;
    }
    if (s.char_) {
      if (s.short_ || s.int_ || s.long_) return false;
      r.type = u ? field_type::u8 : field_type::i8;  // plain char is signed on x86-64
      r.c_name = u ? "unsigned char" : s.signed_ ? "signed char" : "char";
      r.plain_char = sign == 0;
      return true;
    }
    if (s.short_ && s.long_) return false;
    if (s.short_) {
      r.type = u ? field_type::u16 : field_type::i16;
      r.c_name = u ? "unsigned short" : "short";
    } else if (s.long_) {
      r.type = u ? field_type::u64 : field_type::i64;
      r.c_name = std::string(u ? "unsigned " : "") + (s.long_ == 2 ? "long long" : "long");
    } else {
      r.type = u ? field_type::u32 : field_type::i32;
      r.c_name = u ? "unsigned int" : "int";
    }
    return true;
  }

  // `type declarator, declarator …;` and the annotations after the ';' (they apply to every
  // field the declaration declares).
  std::vector<field_declaration> parse_declaration(std::vector<const token*>& name_tokens) {
    const scalar_type type = parse_type();
    std::vector<field_declaration> out;
    bool scalar_char = false;
    for (;;) {
      if (is_punct("*"))
        fail(cur(), "pointers are not allowed: a frame is copied to another process");
      check_name(cur(), "field");
      name_tokens.push_back(&cur());
      field_declaration f;
      f.name = cur().text;
      f.type = type.type;
      next();
      if (is_punct(":")) fail(cur(), "bit-fields are not allowed");
      if (is_punct("[")) {
        next();
        const bool text = type.plain_char;
        const std::uint32_t most = text ? max_frame_size : max_frame_size / type_size(type.type);
        const token& n = cur();
        std::uint32_t length = 0;
        const auto r = std::from_chars(n.text.data(), n.text.data() + n.text.size(), length);
        if (n.kind != token_kind::number || r.ec != std::errc() ||
            r.ptr != n.text.data() + n.text.size() || length == 0 || length > most)
          fail(n, "expected the array length, a decimal number from 1 to " + std::to_string(most));
        f.length = length;
        if (text) {
          f.type = field_type::text;
          f.kind = field_kind::text;
        }
        next();
        expect("]", "expected ']'");
        if (is_punct("[")) fail(cur(), "arrays of arrays are not allowed");
      } else if (type.plain_char) {
        scalar_char = true;
      }
      out.push_back(std::move(f));
      if (is_punct(",")) {
        next();
        continue;
      }
      if (!is_punct(";")) fail(cur(), "expected ',' or ';' after the field");
      break;
    }
    // The header checks the size of the types that reach a frame as numbers (a plain char
    // array is text, whatever the size of char).
    if ((!type.plain_char || scalar_char) &&
        std::find(c_types_.begin(), c_types_.end(), type.c_name) == c_types_.end())
      c_types_.push_back(type.c_name);
    // Annotations: every comment starting on the line of the ';', after it.
    const int line = cur().at.line;
    ++i_;  // past ';' without skipping the comments
    std::vector<const token*> comments;
    while (tokens_[i_].kind == token_kind::comment && tokens_[i_].at.line == line)
      comments.push_back(&tokens_[i_++]);
    for (auto& f : out) {
      bool kind_given = false;
      for (const token* c : comments) parse_annotations(*c, f, kind_given);
    }
    settle();
    return out;
  }
  // One annotation found in a comment: its name, position and argument.
  struct annotation {
    std::string name, argument;
    bool has_argument = false;
    position at;
  };

  // Scans a comment for annotations: '@' at the start or after a space, then a word.
  std::vector<annotation> annotations_in(const token& comment) const {
    std::vector<annotation> out;
    const std::string& s = comment.text;
    position at = comment.text_at;
    auto step = [&](char c) {
      if (c == '\n') {
        ++at.line;
        at.column = 1;
      } else {
        ++at.column;
      }
    };
    for (std::size_t i = 0; i < s.size();) {
      const bool starts = s[i] == '@' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t' ||
                                          s[i - 1] == '\n' || s[i - 1] == '*');
      if (!starts) {
        step(s[i++]);
        continue;
      }
      annotation a;
      a.at = at;
      step(s[i++]);
      while (i < s.size() && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                              s[i] == '_' || (s[i] >= '0' && s[i] <= '9'))) {
        a.name += s[i];
        step(s[i++]);
      }
      if (i < s.size() && s[i] == '(') {
        a.has_argument = true;
        step(s[i++]);
        while (i < s.size() && s[i] != ')' && s[i] != '\n') {
          a.argument += s[i];
          step(s[i++]);
        }
        if (i == s.size() || s[i] != ')')
          lexer_.fail(a.at, "@" + a.name + "( is not closed with ')' on its line");
        step(s[i++]);
      }
      out.push_back(std::move(a));
    }
    return out;
  }

  void check_no_annotation(const token& comment) const {
    for (const auto& a : annotations_in(comment)) {
      if (a.name == "counter" || a.name == "sampled" || a.name == "units")
        lexer_.fail(a.at,
                    "@" + a.name + " must be in a comment after a field's ';' on the same line");
    }
  }

  void parse_annotations(const token& comment, field_declaration& f, bool& kind_given) const {
    for (const auto& a : annotations_in(comment)) {
      if (a.name == "counter" || a.name == "sampled") {
        if (a.has_argument) lexer_.fail(a.at, "@" + a.name + " takes no argument");
        if (f.type == field_type::text)
          lexer_.fail(a.at, "@" + a.name + " on a text field (char arrays are not metrics)");
        if (kind_given) lexer_.fail(a.at, "the field already has @counter or @sampled");
        kind_given = true;
        f.kind = a.name == "counter" ? field_kind::counter : field_kind::sampled;
      } else if (a.name == "units") {
        if (f.type == field_type::text)
          lexer_.fail(a.at, "@units on a text field (char arrays are not metrics)");
        if (!f.units.empty()) lexer_.fail(a.at, "the field already has @units");
        if (!a.has_argument || !is_valid_units(a.argument))
          lexer_.fail(a.at, "@units(text) needs 1 to " + std::to_string(max_units_length) +
                                " printable characters, no parentheses, no surrounding space");
        f.units = a.argument;
      } else {
        lexer_.fail(a.at, "unknown annotation '@" + a.name +
                              "' (expected @counter, @sampled or @units(text))");
      }
    }
  }

  tokenizer lexer_;
  std::vector<token> tokens_;
  std::size_t i_ = 0;
  std::vector<std::string> c_types_;  // parsed_schema::c_types
};

}  // namespace

parsed_schema parse_schema_text(const std::string& text, const std::string& file) {
  return schema_parser(text, file).run();
}

parsed_schema read_schema_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw schema_error(path + ":1:1: cannot read the schema file");
  std::ostringstream s;
  s << in.rdbuf();
  return parse_schema_text(s.str(), path);
}

std::vector<frame_layout> parse_schema(const std::string& text, const std::string& file) {
  return parse_schema_text(text, file).layouts;
}

std::vector<frame_layout> parse_schema_file(const std::string& path) {
  return read_schema_file(path).layouts;
}

std::uint32_t lp64_size_of(const std::string& c_type) {
  for (const auto& d : typedef_names)
    if (c_type == d.name) return type_size(d.type);
  if (c_type == "char" || c_type == "signed char" || c_type == "unsigned char" || c_type == "bool")
    return 1;
  if (c_type == "short" || c_type == "unsigned short") return 2;
  if (c_type == "int" || c_type == "unsigned int" || c_type == "float") return 4;
  return 8;  // long, long long (signed or unsigned), double
}

std::map<std::string, std::string> schema_descriptors(const std::string& path) {
  std::map<std::string, std::string> out;
  for (auto& layout : parse_schema_file(path)) out[layout.struct_name] = layout_descriptor(layout);
  return out;
}

}  // namespace perfdm::shm
