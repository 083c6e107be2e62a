#include "shm/schema.hpp"

#include <charconv>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>

#include "shm/names.hpp"
#include "shm/shm_error.hpp"

namespace perfdm::shm {

namespace {

struct position {
  int line = 1, column = 1;
};

enum class token_kind { identifier, number, punctuation, comment, end };

struct token {
  token_kind kind = token_kind::end;
  std::string text;  // a comment's text without // or /* */
  position at;       // where the token starts
  position text_at;  // comments: where `text` starts
};

// Turns the schema into tokens, comments included (annotations live in them).
class tokenizer {
 public:
  tokenizer(const std::string& text, const std::string& file) : text_(text), file_(file) {}

  [[noreturn]] void fail(position at, const std::string& reason) const {
    throw schema_error(file_ + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                       ": " + reason);
  }

  std::vector<token> run() {
    std::vector<token> out;
    for (;;) {
      skip_space();
      token t;
      t.at = here_;
      if (i_ == text_.size()) {
        out.push_back(t);
        return out;
      }
      const char c = text_[i_];
      if (c == '/' && peek(1) == '/') {
        advance(2);
        t.kind = token_kind::comment;
        t.text_at = here_;
        while (i_ < text_.size() && text_[i_] != '\n') t.text += advance(1);
      } else if (c == '/' && peek(1) == '*') {
        advance(2);
        t.kind = token_kind::comment;
        t.text_at = here_;
        while (!(text_[i_] == '*' && peek(1) == '/')) {
          if (i_ == text_.size()) fail(t.at, "unterminated comment");
          t.text += advance(1);
        }
        advance(2);
      } else if (is_word_char(c)) {
        t.kind = (c >= '0' && c <= '9') ? token_kind::number : token_kind::identifier;
        while (i_ < text_.size() && is_word_char(text_[i_])) t.text += advance(1);
      } else if (std::string_view("{}[];:*,()=<>&").find(c) != std::string_view::npos) {
        t.kind = token_kind::punctuation;
        t.text = advance(1);
      } else {
        fail(here_, "unexpected character '" + printable(c) + "'");
      }
      out.push_back(std::move(t));
    }
  }

 private:
  static bool is_word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }

  static std::string printable(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return std::string(1, c);
    static const char hex[] = "0123456789abcdef";
    return std::string("\\x") + hex[u >> 4] + hex[u & 15];
  }

  char peek(std::size_t ahead) const {
    return i_ + ahead < text_.size() ? text_[i_ + ahead] : '\0';
  }

  // Moves past n characters (all on the current line but a final '\n'); returns the last.
  char advance(std::size_t n) {
    char c = '\0';
    for (std::size_t k = 0; k < n && i_ < text_.size(); ++k) {
      c = text_[i_++];
      if (c == '\n') {
        ++here_.line;
        here_.column = 1;
      } else {
        ++here_.column;
      }
    }
    return c;
  }

  void skip_space() {
    while (i_ < text_.size() && (text_[i_] == ' ' || text_[i_] == '\t' || text_[i_] == '\n' ||
                                 text_[i_] == '\r' || text_[i_] == '\f' || text_[i_] == '\v'))
      advance(1);
  }

  const std::string& text_;
  const std::string& file_;
  std::size_t i_ = 0;
  position here_;
};

struct type_name {
  const char* c_name;
  field_type type;
};

constexpr type_name schema_types[] = {
    {"int8_t", field_type::i8},    {"int16_t", field_type::i16},  {"int32_t", field_type::i32},
    {"int64_t", field_type::i64},  {"uint8_t", field_type::u8},   {"uint16_t", field_type::u16},
    {"uint32_t", field_type::u32}, {"uint64_t", field_type::u64}, {"float", field_type::f32},
    {"double", field_type::f64},   {"bool", field_type::boolean},
};

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

class schema_parser {
 public:
  schema_parser(const std::string& text, const std::string& file)
      : lexer_(text, file), tokens_(lexer_.run()) {}

  std::vector<frame_layout> run() {
    std::vector<frame_layout> out;
    std::set<std::string> struct_names;
    for (;;) {
      skip_loose_comments();
      if (cur().kind == token_kind::end) break;
      const token& kw = cur();
      if (kw.kind != token_kind::identifier || kw.text != "struct")
        fail(kw, "expected 'struct' (a schema holds only struct declarations)");
      next();
      const token& name = cur();
      check_name(name, "struct");
      if (!struct_names.insert(name.text).second) fail(name, "duplicate struct " + name.text);
      next();
      expect("{", "expected '{' after the struct name");
      auto fields = parse_fields(name);
      expect("}", "expected '}'");
      expect(";", "expected ';' after the struct's '}'");
      try {
        out.push_back(lay_out(name.text, std::move(fields)));
      } catch (const schema_error& e) {
        fail(name, e.what());
      }
    }
    if (out.empty()) fail(cur(), "the schema declares no struct");
    return out;
  }

 private:
  [[noreturn]] void fail(const token& t, const std::string& reason) const {
    lexer_.fail(t.at, reason);
  }

  const token& cur() const { return tokens_[i_]; }
  void next() {
    if (tokens_[i_].kind != token_kind::end) ++i_;
  }

  // Skips comments between tokens; whatever they say is commentary, but an annotation
  // there would be silently lost, so that is refused.
  void skip_loose_comments() {
    while (cur().kind == token_kind::comment) {
      check_no_annotation(cur());
      next();
    }
  }

  void expect(const char* punct, const char* reason) {
    skip_loose_comments();
    if (cur().kind != token_kind::punctuation || cur().text != punct) fail(cur(), reason);
    next();
  }

  void check_name(const token& t, const char* what) {
    if (t.kind != token_kind::identifier || !is_identifier(t.text))
      fail(t, std::string("expected the ") + what + " name (a C identifier of at most " +
                  std::to_string(max_name_length) + " characters)");
    if (is_reserved_name(t.text))
      fail(t, std::string("a ") + what + " name may not start with perfdm_");
    if (keywords().count(t.text)) fail(t, "'" + t.text + "' is a C or C++ keyword");
  }

  std::vector<field_declaration> parse_fields(const token& struct_name) {
    std::vector<field_declaration> fields;
    std::set<std::string> names;
    for (;;) {
      skip_loose_comments();
      if (cur().kind == token_kind::punctuation && cur().text == "}") break;
      if (cur().kind == token_kind::end) fail(cur(), "the struct is not closed with '}'");
      fields.push_back(parse_field());
      if (!names.insert(fields.back().name).second) {
        i_ = last_name_token_;
        fail(cur(), "duplicate field " + fields.back().name);
      }
    }
    if (fields.empty()) fail(struct_name, "struct " + struct_name.text + " has no fields");
    return fields;
  }

  field_declaration parse_field() {
    field_declaration f;
    const token& type = cur();
    if (type.kind != token_kind::identifier) fail(type, "expected a field type");
    if (type.text == "struct" || type.text == "union" || type.text == "enum")
      fail(type, "nested " + type.text + "s are not allowed: a frame holds plain fields");
    bool is_char = type.text == "char";
    bool known = is_char;
    for (const auto& t : schema_types) {
      if (type.text == t.c_name) {
        f.type = t.type;
        known = true;
      }
    }
    if (!known)
      fail(type, "unknown type '" + type.text +
                     "' (expected int8_t..int64_t, uint8_t..uint64_t, float, double, bool or "
                     "char name[N])");
    next();
    if (cur().kind == token_kind::punctuation && cur().text == "*")
      fail(cur(), "pointers are not allowed: a frame is copied to another process");
    last_name_token_ = i_;
    check_name(cur(), "field");
    f.name = cur().text;
    next();
    if (cur().kind == token_kind::punctuation && cur().text == ":")
      fail(cur(), "bit-fields are not allowed");
    if (cur().kind == token_kind::punctuation && cur().text == "[") {
      if (!is_char) fail(cur(), "only char may be an array (char name[N])");
      next();
      const token& n = cur();
      std::uint32_t length = 0;
      const auto r = std::from_chars(n.text.data(), n.text.data() + n.text.size(), length);
      if (n.kind != token_kind::number || r.ec != std::errc() ||
          r.ptr != n.text.data() + n.text.size() || length == 0 || length > max_frame_size)
        fail(n, "expected the array length, a decimal number from 1 to " +
                    std::to_string(max_frame_size));
      f.type = field_type::text;
      f.text_length = length;
      f.kind = field_kind::text;
      next();
      expect("]", "expected ']'");
    } else if (is_char) {
      fail(type, "char must be an array (char name[N], text); use int8_t for a small integer");
    }
    if (cur().kind != token_kind::punctuation || cur().text != ";")
      fail(cur(), "expected ';' after the field (one field per declaration)");
    const int line = cur().at.line;
    next();
    // Annotations: every comment starting on the line of the ';'.
    bool kind_given = false;
    while (cur().kind == token_kind::comment && cur().at.line == line) {
      parse_annotations(cur(), f, kind_given);
      next();
    }
    return f;
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
  std::size_t last_name_token_ = 0;
};

}  // namespace

std::vector<frame_layout> parse_schema(const std::string& text, const std::string& file) {
  return schema_parser(text, file).run();
}

std::vector<frame_layout> parse_schema_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw schema_error(path + ":1:1: cannot read the schema file");
  std::ostringstream s;
  s << in.rdbuf();
  return parse_schema(s.str(), path);
}

std::map<std::string, std::string> schema_descriptors(const std::string& path) {
  std::map<std::string, std::string> out;
  for (auto& layout : parse_schema_file(path)) out[layout.struct_name] = layout_descriptor(layout);
  return out;
}

}  // namespace perfdm::shm
