#include "messages/dyper_framing.hpp"

namespace perfdm {

namespace {

// A trailer line may carry spaces, tabs and a CR around the keyword (DOS line ends).
constexpr std::size_t longest_trailer_line = 64;

std::string_view trimmed(std::string_view s) {
  auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

}  // namespace

std::string frame_message(std::string_view text) {
  std::string out(text);
  out += '\n';
  out += dyper_message_trailer;
  out += '\n';
  return out;
}

std::string frame_reply(std::string_view text) {
  std::string out(text);
  out += '\n';
  out += dyper_reply_trailer;
  out += '\n';
  return out;
}

dyper_splitter::dyper_splitter(std::size_t max_message_bytes, bool accept_connect)
    : max_(max_message_bytes), accept_connect_(accept_connect) {}

bool dyper_splitter::mid_message() const {
  return in_message_ || discarding_ || !trimmed(line_).empty();
}

void dyper_splitter::feed(std::string_view bytes, std::vector<dyper_frame>& out) {
  while (!bytes.empty()) {
    // The '\n' of a "\r\n" ends nothing: its '\r' ended the line (maybe in the last chunk).
    if (after_cr_ && bytes.front() == '\n') bytes.remove_prefix(1);
    after_cr_ = false;
    auto end = bytes.find_first_of("\r\n");
    if (end == std::string_view::npos) {
      append_to_line(bytes, out);
      return;
    }
    append_to_line(bytes.substr(0, end), out);
    after_cr_ = bytes[end] == '\r';
    end_line(out);
    bytes.remove_prefix(end + 1);
  }
}

// The size of the message if the current line turned out to be part of it.
std::size_t dyper_splitter::projected_size() const {
  return message_.size() + (in_message_ ? 1 : 0) + line_.size();
}

void dyper_splitter::refuse(std::vector<dyper_frame>& out) {
  out.push_back({dyper_frame::too_large, {}, projected_size()});
  message_.clear();
  message_.shrink_to_fit();  // a refused message may have held up to the limit
  line_.clear();
  in_message_ = false;
  discarding_ = true;
  line_too_long_ = true;  // the line that broke the limit is not a trailer
}

void dyper_splitter::append_to_line(std::string_view part, std::vector<dyper_frame>& out) {
  if (discarding_) {
    // Only a line short enough to be a trailer is worth keeping.
    if (line_too_long_) return;
    if (line_.size() + part.size() > longest_trailer_line) {
      line_too_long_ = true;
      line_.clear();
      return;
    }
    line_.append(part);
    return;
  }
  line_.append(part);
  // A line this long cannot be a trailer, so it belongs to the message: refuse it as soon
  // as it breaks the limit rather than holding more.
  if (projected_size() > max_ + longest_trailer_line) refuse(out);
}

void dyper_splitter::end_line(std::vector<dyper_frame>& out) {
  const bool first = first_line_;
  first_line_ = false;
  auto word = trimmed(line_);
  if (discarding_) {
    if (!line_too_long_ && word == dyper_message_trailer) discarding_ = false;
    line_too_long_ = false;
    line_.clear();
    return;
  }
  if (word == dyper_message_trailer || word == dyper_reply_trailer) {
    // DyPer ignores an empty message (a trailer with nothing before it, such as the one
    // that follows CONNECT): no frame, so nobody answers it.
    if (in_message_)
      out.push_back({word == dyper_message_trailer ? dyper_frame::message : dyper_frame::reply,
                     std::move(message_), 0});
    message_.clear();
    line_.clear();
    in_message_ = false;
    return;
  }
  if (first && accept_connect_ && word.substr(0, 7) == "CONNECT" &&
      (word.size() == 7 || word[7] == ' ' || word[7] == '\t')) {
    out.push_back({dyper_frame::connect, std::string(trimmed(word.substr(7))), 0});
    line_.clear();
    return;
  }
  // Blank lines between messages are not messages.
  if (!in_message_ && word.empty()) {
    line_.clear();
    return;
  }
  if (projected_size() > max_) {
    refuse(out);
    line_too_long_ = false;  // the line ended: the next one may be the trailer
    return;
  }
  if (in_message_) message_ += '\n';
  message_ += line_;
  in_message_ = true;
  line_.clear();
}

}  // namespace perfdm
