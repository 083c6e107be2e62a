#include "messages/request_recorder.hpp"

#include "messages/xml_codec.hpp"

namespace perfdm {

namespace {

std::string header(time_ns now, const std::string& origin) {
  return "# t=" + format_number(to_seconds(now)) + " " + origin;
}

}  // namespace

std::string request_recorder::one_line(const std::string& text, std::size_t limit) {
  std::string out;
  for (char c : text.substr(0, limit)) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else
      out += c;
  }
  if (text.size() > limit) out += "… (" + std::to_string(text.size()) + " bytes)";
  return out;
}

void request_recorder::request(time_ns now, const std::string& origin, const std::string& line) {
  auto trimmed = trim(line);
  bool runs_as_is = !trimmed.empty() && trimmed[0] != '#' &&
                    trimmed.find_first_of("\r\n") == std::string_view::npos;
  if (!runs_as_is) return comment(now, origin, "not replayable as one line: " + one_line(line));
  std::lock_guard<std::mutex> lock(mutex_);
  out_ << header(now, origin) << '\n' << trimmed << '\n';
  out_.flush();
}

void request_recorder::comment(time_ns now, const std::string& origin, const std::string& what) {
  std::lock_guard<std::mutex> lock(mutex_);
  out_ << header(now, origin) << ": " << one_line(what) << '\n';
  out_.flush();
}

}  // namespace perfdm
