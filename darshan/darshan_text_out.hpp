// A buffered text writer for the printers: numbers formatted with std::to_chars exactly as
// printf's %lld, %llu, %f and %.4f print them, written to an ostream in large blocks.
#pragma once

#include <charconv>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

namespace perfdm::darshan {

class text_out {
 public:
  explicit text_out(std::ostream& os) : os_(os) { buf_.reserve(1u << 17); }
  ~text_out() { flush(); }
  text_out(const text_out&) = delete;
  text_out& operator=(const text_out&) = delete;

  text_out& operator<<(std::string_view s) {
    buf_.append(s);
    if (buf_.size() >= (1u << 16)) flush();
    return *this;
  }
  text_out& operator<<(char c) {
    buf_.push_back(c);
    return *this;
  }
  text_out& i64(std::int64_t v) { return number(v); }
  text_out& u64(std::uint64_t v) { return number(v); }
  // printf("%.<precision>f", v).
  text_out& fixed(double v, int precision = 6) {
    char tmp[400];
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v, std::chars_format::fixed, precision);
    buf_.append(tmp, r.ptr);
    return *this;
  }
  void flush() {
    if (!buf_.empty()) os_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }

 private:
  template <class T>
  text_out& number(T v) {
    char tmp[24];
    auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf_.append(tmp, r.ptr);
    return *this;
  }
  std::ostream& os_;
  std::string buf_;
};

}  // namespace perfdm::darshan
