// DATA events of one stream that follow each other, merged into one (the dashboard's
// WebSocket, http/websocket_session.cpp): the data manager sends a DATA event at the end of
// every command (T2), which with 20 live histograms is about 1,000 small events a second, and a
// browser pays per message. Merging keeps every value, in order, and the order of every other
// message: anything that is not a DATA event of the same stream sends the held event first.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfdm {

class data_event_merge {
 public:
  // `max_values`: at most that many values in one event (T2's batch, 50).
  explicit data_event_merge(std::size_t max_values) : max_values_(max_values) {}

  // A message about to be sent (`event`: a stream event, not a reply). What must go now, in
  // order, is appended to `out`; a DATA event may be held instead, until the next message or
  // take().
  void add(std::string_view xml, bool event, std::vector<std::string>& out);

  // The held event, if any (its time is up, or the connection ends).
  std::optional<std::string> take();

  bool holding() const { return !held_.empty(); }

 private:
  std::size_t max_values_;
  std::string held_;       // a whole DATA event, or empty
  std::size_t head_ = 0;   // length of its start tag `<DYPER DATA='s'>`
  std::size_t values_ = 0;
};

}  // namespace perfdm
