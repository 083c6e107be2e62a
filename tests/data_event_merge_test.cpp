// DATA events of one stream merged for the dashboard's WebSocket (http/data_event_merge.hpp).
#include <catch2/catch.hpp>

#include "http/data_event_merge.hpp"

using namespace perfdm;

namespace {

std::string v(int bucket) {
  return "<V MI='0' PHASE='GLOBAL' BUCKET='" + std::to_string(bucket) + "' VALUE='1'/>";
}
std::string data(int stream, std::vector<int> buckets) {
  std::string out = "<DYPER DATA='" + std::to_string(stream) + "'>";
  for (int b : buckets) out += v(b);
  return out + "</DYPER>";
}

}  // namespace

TEST_CASE("data event merge: DATA events of one stream in a row become one, in order",
          "[dashboard][merge]") {
  data_event_merge m(50);
  std::vector<std::string> out;
  m.add(data(0, {0}), true, out);
  m.add(data(0, {1, 2}), true, out);
  m.add(data(0, {3}), true, out);
  CHECK(out.empty());
  REQUIRE(m.holding());
  CHECK(m.take() == data(0, {0, 1, 2, 3}));
  CHECK_FALSE(m.holding());
  CHECK_FALSE(m.take());
}

TEST_CASE("data event merge: any other message sends the held event first",
          "[dashboard][merge]") {
  data_event_merge m(50);
  std::vector<std::string> out;
  const std::string fold = "<DYPER FOLD='0' PHASE='GLOBAL' WIDTH='0.4'/>";
  const std::string reply = "<DYPER_REPLY ID='DM'><OK COUNT='1' DROPPED='0'/></DYPER_REPLY>";
  m.add(data(0, {0}), true, out);
  m.add(fold, true, out);
  m.add(data(0, {1}), true, out);
  m.add(reply, false, out);
  m.add(data(0, {2}), true, out);
  m.add(data(1, {2}), true, out);  // another stream's
  CHECK(out == std::vector<std::string>{data(0, {0}), fold, data(0, {1}), reply, data(0, {2})});
  CHECK(m.take() == data(1, {2}));
}

TEST_CASE("data event merge: at most the batch's values in one event (T2)", "[dashboard][merge]") {
  data_event_merge m(4);
  std::vector<std::string> out;
  m.add(data(0, {0, 1, 2}), true, out);
  m.add(data(0, {3, 4}), true, out);  // would make 5: the held one goes as it is
  CHECK(out == std::vector<std::string>{data(0, {0, 1, 2})});
  m.add(data(0, {5, 6}), true, out);  // 4: full, sent at once
  CHECK(out == std::vector<std::string>{data(0, {0, 1, 2}), data(0, {3, 4, 5, 6})});
  CHECK_FALSE(m.holding());
  out.clear();
  m.add(data(0, {7, 8, 9, 10, 11}), true, out);  // more than the batch by itself: not held
  CHECK(out == std::vector<std::string>{data(0, {7, 8, 9, 10, 11})});
}

TEST_CASE("data event merge: what is not a DATA event with values passes unchanged",
          "[dashboard][merge]") {
  data_event_merge m(50);
  std::vector<std::string> out;
  // A reply to DATA, an empty or unfinished DATA event, and a request's text as an event.
  const std::vector<std::string> others = {
      "<DYPER DATA='0'/>", "<DYPER DATA='0'><V MI='0'", "<DYPER DATA='",
      "<DYPER_REPLY ID='DM'><HISTOGRAM START='0' WIDTH='0.2'>1 2</HISTOGRAM></DYPER_REPLY>"};
  for (auto& o : others) m.add(o, true, out);
  CHECK(out == others);
  CHECK_FALSE(m.holding());
  // A DATA reply is a reply even in a DATA event's form: never held.
  out.clear();
  m.add(data(0, {0}), false, out);
  CHECK(out == std::vector<std::string>{data(0, {0})});
}
