// DyPer framing (messages/dyper_framing.hpp): the splitter, without sockets or actors.
#include <catch2/catch.hpp>
#include <random>

#include "messages/dyper_framing.hpp"

using namespace perfdm;

namespace {

std::vector<dyper_frame> split(std::string_view bytes, std::size_t max = 1024,
                               bool accept_connect = true) {
  dyper_splitter s(max, accept_connect);
  std::vector<dyper_frame> out;
  s.feed(bytes, out);
  return out;
}

}  // namespace

TEST_CASE("framing: messages end at a line holding only ENDDYPERMSG", "[framing]") {
  auto frames = split("<A/>\nENDDYPERMSG\n<B>\nx\n</B>\nENDDYPERMSG\n");
  REQUIRE(frames.size() == 2);
  CHECK(frames[0].kind == dyper_frame::message);
  CHECK(frames[0].text == "<A/>");
  CHECK(frames[1].text == "<B>\nx\n</B>");
}

TEST_CASE("framing: replies end at ENDDYPERREPLY, and the frame says which", "[framing]") {
  auto frames = split("<R/>\nENDDYPERREPLY\n<E/>\nENDDYPERMSG\n");
  REQUIRE(frames.size() == 2);
  CHECK(frames[0].kind == dyper_frame::reply);
  CHECK(frames[1].kind == dyper_frame::message);
  CHECK(frame_reply("<R/>") == "<R/>\nENDDYPERREPLY\n");
  CHECK(frame_message("<E/>") == "<E/>\nENDDYPERMSG\n");
}

TEST_CASE("framing: a CONNECT first line gives the client id", "[framing]") {
  auto frames = split("CONNECT monitor-7\r\n<A/>\r\nENDDYPERMSG\r\n");
  REQUIRE(frames.size() == 2);
  CHECK(frames[0].kind == dyper_frame::connect);
  CHECK(frames[0].text == "monitor-7");
  CHECK(frames[1].kind == dyper_frame::message);
  CHECK(frames[1].text == "<A/>");  // "\r\n" ends a line as "\n" does
  // Only as the first line, and only on the server side.
  auto later = split("<A/>\nENDDYPERMSG\nCONNECT x\nENDDYPERMSG\n");
  REQUIRE(later.size() == 2);
  CHECK(later[1].kind == dyper_frame::message);
  CHECK(later[1].text == "CONNECT x");
  auto client = split("CONNECT x\nENDDYPERMSG\n", 1024, false);
  REQUIRE(client.size() == 1);
  CHECK(client[0].text == "CONNECT x");
}

TEST_CASE("framing: blank lines between messages are skipped, inside kept", "[framing]") {
  auto frames = split("\n\n<A>\n\n</A>\n  ENDDYPERMSG \n\nENDDYPERMSG\n");
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].text == "<A>\n\n</A>");
  // A trailer alone is an empty message, which DyPer ignores: no frame, so no reply.
}

TEST_CASE("framing: CONNECT is a framed message, its trailer is no message of its own",
          "[framing][dyper]") {
  auto frames = split("CONNECT 12569@localhost\nENDDYPERMSG\n<DYPER START='12569@localhost' />\n"
                      "ENDDYPERMSG\nENDDYPERREPLY\n");
  REQUIRE(frames.size() == 2);
  CHECK(frames[0].kind == dyper_frame::connect);
  CHECK(frames[0].text == "12569@localhost");
  CHECK(frames[1].kind == dyper_frame::message);
  CHECK(frames[1].text == "<DYPER START='12569@localhost' />");
}

TEST_CASE("framing: CR LF and a lone CR end lines, also when cut between them",
          "[framing][dyper]") {
  const std::string stream = "<A>\r1\r\n</A>\rENDDYPERMSG\r<B/>\r\nENDDYPERREPLY\r\n";
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    dyper_splitter s(1024);
    std::vector<dyper_frame> out;
    s.feed(std::string_view(stream).substr(0, cut), out);
    s.feed(std::string_view(stream).substr(cut), out);
    REQUIRE(out.size() == 2);
    CHECK(out[0].text == "<A>\n1\n</A>");
    CHECK(out[1].kind == dyper_frame::reply);
    CHECK(out[1].text == "<B/>");
  }
}

TEST_CASE("framing: bytes cut anywhere give the same frames", "[framing]") {
  const std::string stream =
      "CONNECT c1\n<DYPER PID='DM' COMMAND='PING'/>\nENDDYPERMSG\n<X>\n1\n</X>\r\nENDDYPERMSG\r\n"
      "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>\nENDDYPERREPLY\n";
  auto whole = split(stream);
  REQUIRE(whole.size() == 4);
  std::mt19937 rng(42);
  for (int round = 0; round < 200; ++round) {
    dyper_splitter s(1024);
    std::vector<dyper_frame> out;
    std::size_t at = 0;
    while (at < stream.size()) {
      std::size_t n = std::uniform_int_distribution<std::size_t>(0, 7)(rng);
      n = std::min(n, stream.size() - at);
      s.feed(std::string_view(stream).substr(at, n), out);
      at += n;
    }
    REQUIRE(out.size() == whole.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
      CHECK(out[i].kind == whole[i].kind);
      CHECK(out[i].text == whole[i].text);
    }
    CHECK_FALSE(s.mid_message());
  }
}

TEST_CASE("framing: a message past the limit is refused once and skipped to its trailer",
          "[framing]") {
  dyper_splitter s(100);
  std::vector<dyper_frame> out;
  s.feed("<A/>\nENDDYPERMSG\n", out);
  // 10 lines of 20 bytes: past 100 on the sixth line.
  for (int i = 0; i < 10; ++i) s.feed(std::string(19, 'x') + "\n", out);
  REQUIRE(out.size() == 2);
  CHECK(out[1].kind == dyper_frame::too_large);
  CHECK(out[1].bytes > 100);
  CHECK(s.mid_message());
  CHECK(s.held_bytes() <= 100 + 64);
  s.feed("ENDDYPERMSG\n<B/>\nENDDYPERMSG\n", out);
  REQUIRE(out.size() == 3);
  CHECK(out[2].kind == dyper_frame::message);
  CHECK(out[2].text == "<B/>");
  CHECK_FALSE(s.mid_message());
}

TEST_CASE("framing: one endless line is refused without holding it", "[framing]") {
  dyper_splitter s(1000);
  std::vector<dyper_frame> out;
  const std::string chunk(4096, 'y');
  for (int i = 0; i < 1000; ++i) {  // 4 MiB, no newline
    s.feed(chunk, out);
    REQUIRE(s.held_bytes() <= 1000 + 64);
  }
  REQUIRE(out.size() == 1);
  CHECK(out[0].kind == dyper_frame::too_large);
  // A trailer glued to the end of the long line is not a trailer.
  s.feed("ENDDYPERMSG\n", out);
  CHECK(s.mid_message());
  s.feed("ENDDYPERMSG\n<C/>\nENDDYPERMSG\n", out);
  REQUIRE(out.size() == 2);
  CHECK(out[1].text == "<C/>");
}

TEST_CASE("framing: a message of exactly the limit passes", "[framing]") {
  auto frames = split(std::string(50, 'a') + "\n" + std::string(49, 'b') + "\nENDDYPERMSG\n", 100);
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].kind == dyper_frame::message);
  CHECK(frames[0].text.size() == 100);
  auto over = split(std::string(50, 'a') + "\n" + std::string(50, 'b') + "\nENDDYPERMSG\n", 100);
  REQUIRE(over.size() == 1);
  CHECK(over[0].kind == dyper_frame::too_large);
}

TEST_CASE("framing: a partial message is reported as such", "[framing]") {
  dyper_splitter s(1024);
  std::vector<dyper_frame> out;
  CHECK_FALSE(s.mid_message());
  s.feed("<DYPER PID='DM'", out);
  CHECK(s.mid_message());
  s.feed(" COMMAND='PING'/>\n", out);
  CHECK(s.mid_message());
  CHECK(out.empty());
}
