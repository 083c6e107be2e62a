// The frames schema's tokens (docs/FRAMES.md §1): identifiers, numbers, punctuation and
// comments (annotations live in them), each with its line and column; preprocessor lines
// are skipped with a note. Used by shm/schema.cpp only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shm/shm_error.hpp"

namespace perfdm::shm::schema_detail {

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
      if (c == '#' && line_blank_) {
        skip_preprocessor_line();
        continue;
      }
      line_blank_ = false;
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
        line_blank_ = false;  // a '#' after a comment is not a directive here
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

  // "file:line:col: note: …" for every preprocessor line skipped.
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  // A schema is often a C header: #include, #define, #pragma … lines (with their
  // backslash continuations) are skipped, each with a note. perfdm does not preprocess, so
  // an #if does not hide the fields it encloses: the note says so.
  void skip_preprocessor_line() {
    const position at = here_;
    std::string line;
    while (i_ < text_.size() && text_[i_] != '\n') {
      if (text_[i_] == '\\' && peek(1) == '\n') {
        advance(2);
        line += ' ';
        continue;
      }
      const char c = advance(1);
      if (c != '\r') line += c;
    }
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.pop_back();
    if (line.size() > 80) line = line.substr(0, 77) + "...";
    for (auto& c : line)
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    notes_.push_back(file_ + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                     ": note: preprocessor line skipped (perfdm does not preprocess the "
                     "schema; conditionals are not evaluated): " +
                     line);
  }

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
        line_blank_ = true;
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
  bool line_blank_ = true;  // nothing but white space so far on this line
  std::vector<std::string> notes_;
};

}  // namespace perfdm::shm::schema_detail
