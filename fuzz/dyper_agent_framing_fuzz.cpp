// libFuzzer target: the dial-out side of DyPer's framing (engine --controller), where perfdm
// is the agent and reads the controller's commands (messages/dyper_framing.hpp, splitter
// without CONNECT), and the translation of each command by the XML codec.
//
// The input is a byte stream as a controller would send it. Fed whole and in pieces (sizes
// from the input) it must give the same frames; no frame is empty (DyPer ignores a trailer
// alone: it gets no reply) and none holds a CR (all of "\n", "\r\n", "\r" end lines); the
// splitter never holds more than its limit plus one trailer line. Every message framed again
// splits back into itself, and every command parses or is refused, with a reply that frames
// into exactly one reply. The agent's own first words (CONNECT <id>, START) read back on
// the controller's side as one connect frame and one message, whatever the host name.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "messages/dyper_framing.hpp"
#include "messages/xml_codec.hpp"

using namespace perfdm;

namespace {

constexpr std::size_t limit = 512;
constexpr std::size_t slack = 64;  // one trailer line, dyper_framing.cpp

[[noreturn]] void broken(const char* what, const std::string& detail) {
  std::fprintf(stderr, "dyper_agent_framing_fuzz: %s\n  %s\n", what, detail.c_str());
  std::abort();
}

std::vector<dyper_frame> split(std::string_view bytes, bool accept_connect) {
  dyper_splitter s(std::size_t(1) << 30, accept_connect);
  std::vector<dyper_frame> out;
  s.feed(bytes, out);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view stream(reinterpret_cast<const char*>(data), size);

  dyper_splitter whole(limit, false);
  std::vector<dyper_frame> expected;
  whole.feed(stream, expected);
  if (whole.held_bytes() > limit + slack)
    broken("holds too much", std::to_string(whole.held_bytes()));

  dyper_splitter pieces(limit, false);
  std::vector<dyper_frame> got;
  std::size_t at = 0;
  while (at < stream.size()) {
    std::size_t n = 1 + static_cast<unsigned char>(stream[at]) % 13;
    if (n > stream.size() - at) n = stream.size() - at;
    pieces.feed(stream.substr(at, n), got);
    if (pieces.held_bytes() > limit + slack)
      broken("holds too much in pieces", std::to_string(pieces.held_bytes()));
    at += n;
  }
  if (got.size() != expected.size()) broken("pieces give other frames", std::to_string(got.size()));
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i].kind != expected[i].kind || got[i].text != expected[i].text)
      broken("pieces give another frame", got[i].text + " vs " + expected[i].text);

  for (auto& f : expected) {
    if (f.kind == dyper_frame::connect) broken("the agent side read a CONNECT", f.text);
    if (f.kind == dyper_frame::too_large) continue;
    if (f.text.empty()) broken("an empty message is a frame (it would get a reply)", "");
    if (f.text.find('\r') != std::string::npos) broken("a CR did not end its line", f.text);
    auto again = split(frame_message(f.text), false);
    if (again.size() != 1 || again[0].text != f.text)
      broken("a message framed again does not split back into itself", f.text);
    if (f.kind != dyper_frame::message) continue;
    auto parsed = parse_request(f.text);
    auto line = parsed.error ? print_error(parsed.target, parsed.error)
                             : print_request(parsed.target, parsed.request);
    if (line.empty()) broken("a command prints nothing", f.text);
    auto reply = split(frame_reply(line), false);
    if (reply.size() != 1 || reply[0].kind != dyper_frame::reply || reply[0].text != line)
      broken("a reply does not frame into one reply", line);
  }

  // The agent's first words, with a host name made of the input's first bytes.
  std::string host;
  for (char c : stream.substr(0, 24))
    if (c != '\n' && c != '\r' && c != ' ' && c != '\t' && c != '\'' && c != '<' && c != '&')
      host += c;
  auto id = "4242@" + host;
  auto hello =
      split(frame_message("CONNECT " + id) + frame_message("<DYPER START='" + id + "' />"), true);
  if (hello.size() != 2 || hello[0].kind != dyper_frame::connect || hello[0].text != id ||
      hello[1].kind != dyper_frame::message)
    broken("CONNECT and START do not read back as sent", id);
  return 0;
}
