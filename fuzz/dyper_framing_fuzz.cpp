// libFuzzer target: DyPer's TCP framing (messages/dyper_framing.hpp) and the translation of
// each framed message by the XML codec, as the gateway does it.
//
// The input is a byte stream as a client would send it. It is fed to the splitter whole, and
// again cut into pieces whose sizes come from the input itself; both must give the same
// frames, and the splitter must never hold more than its limit plus one trailer line. Every
// message is parsed; its reply (the error, or the canonical request for an accepted one) is
// framed as the gateway frames it and split again by a client-side splitter, which must give
// back exactly that one line: nothing a client sends can forge or break the framing of what
// it reads back. Broken properties print what they saw and abort.
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

// Small, so that the too_large path is reached often.
constexpr std::size_t limit = 512;
constexpr std::size_t slack = 64;  // one trailer line, dyper_framing.cpp

[[noreturn]] void broken(const char* what, const std::string& detail) {
  std::fprintf(stderr, "dyper_framing_fuzz: %s\n  %s\n", what, detail.c_str());
  std::abort();
}

void check_reply_framing(const std::string& line) {
  if (line.find('\n') != std::string::npos) broken("a printed line holds a line feed", line);
  dyper_splitter client(std::size_t(1) << 30, false);
  std::vector<dyper_frame> frames;
  client.feed(frame_reply(line), frames);
  if (frames.size() != 1 || frames[0].kind != dyper_frame::reply || frames[0].text != line)
    broken("a framed reply does not split back into itself", line);
  if (client.mid_message()) broken("a framed reply leaves bytes behind", line);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view stream(reinterpret_cast<const char*>(data), size);

  dyper_splitter whole(limit);
  std::vector<dyper_frame> expected;
  whole.feed(stream, expected);
  if (whole.held_bytes() > limit + slack)
    broken("holds too much", std::to_string(whole.held_bytes()));

  // The same bytes in pieces of 1..16 bytes, sizes taken from the bytes themselves.
  dyper_splitter pieces(limit);
  std::vector<dyper_frame> got;
  std::size_t at = 0;
  while (at < stream.size()) {
    std::size_t n = 1 + static_cast<unsigned char>(stream[at]) % 16;
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
  if (pieces.mid_message() != whole.mid_message())
    broken("pieces disagree on a partial message", "");

  for (auto& f : expected) {
    if (f.text.size() > limit && f.kind != dyper_frame::connect)
      broken("a frame is larger than the limit", std::to_string(f.text.size()));
    if (f.kind != dyper_frame::message) continue;
    auto parsed = parse_request(f.text);
    if (parsed.error) {
      check_reply_framing(print_error(parsed.target, parsed.error));
    } else {
      auto line = print_request(parsed.target, parsed.request);
      if (line.empty()) broken("an accepted request does not print", f.text);
      check_reply_framing(line);
    }
  }
  return 0;
}
