// DyPer's TCP framing (docs/PROTOCOL.md, "TCP endpoint"): text lines ended by "\n", "\r\n"
// or "\r"; an optional first line `CONNECT <id>` (a framed message of its own, with no
// reply); every message followed by a line holding only `ENDDYPERMSG`, every reply by a line
// holding only `ENDDYPERREPLY`; an empty message (a trailer alone) is no message at all. The
// splitter below turns a byte stream cut anywhere into whole messages, in bounded memory; both the
// gateway and `perfdm send` use it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace perfdm {

inline constexpr std::string_view dyper_message_trailer = "ENDDYPERMSG";
inline constexpr std::string_view dyper_reply_trailer = "ENDDYPERREPLY";

// `text` followed by its trailer line: a request or stream event, or a reply.
std::string frame_message(std::string_view text);
std::string frame_reply(std::string_view text);

struct dyper_frame {
  enum kind_t {
    connect,    // the first line was `CONNECT <id>`; `text` is the id
    message,    // a message ended by ENDDYPERMSG; `text` is the message without its trailer
    reply,      // a message ended by ENDDYPERREPLY
    too_large,  // a message grew past the limit; its bytes up to its trailer are discarded
  } kind;
  std::string text;
  std::size_t bytes = 0;  // too_large: how many bytes it had when it was refused
};

class dyper_splitter {
 public:
  // A message may hold at most `max_message_bytes` (its lines joined by '\n', trailer not
  // counted). `accept_connect`: a first line `CONNECT <id>` is a connect frame (the server
  // side); otherwise it is an ordinary line.
  explicit dyper_splitter(std::size_t max_message_bytes, bool accept_connect = true);

  // Takes the next bytes of the stream and appends every frame they complete to `out`.
  void feed(std::string_view bytes, std::vector<dyper_frame>& out);

  // True while part of a message (or of a refused one) has been seen but not its trailer.
  bool mid_message() const;

  // Bytes held for the message being read (at most the limit plus one trailer line).
  std::size_t held_bytes() const { return message_.size() + line_.size(); }

 private:
  void append_to_line(std::string_view part, std::vector<dyper_frame>& out);
  void end_line(std::vector<dyper_frame>& out);
  std::size_t projected_size() const;
  void refuse(std::vector<dyper_frame>& out);

  std::size_t max_;
  bool accept_connect_;
  bool first_line_ = true;
  bool after_cr_ = false;  // the last line ended with '\r': a '\n' next is part of its end
  std::string line_;       // the current line so far, without '\n'
  std::string message_;    // the complete lines of the current message, joined by '\n'
  bool in_message_ = false;
  bool discarding_ = false;     // a too_large frame was given; skip to the next trailer
  bool line_too_long_ = false;  // discarding: the current line cannot be a trailer
};

}  // namespace perfdm
