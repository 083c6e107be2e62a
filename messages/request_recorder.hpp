// The recording of an engine (`--record FILE`): every request the data manager processed, in
// the order it processed them, in the replay format (docs/PROTOCOL.md §6), each after a `#`
// line with the virtual time and the origin, so `perfdm replay FILE` runs it again. Requests
// that only concern a live process are comments: their effects on the data manager are
// recorded as requests of their own (the sources' DEFINEs and SAMPLES).
#pragma once

#include <mutex>
#include <ostream>
#include <string>

#include "messages/time.hpp"

namespace perfdm {

class request_recorder {
 public:
  explicit request_recorder(std::ostream& out) : out_(out) {}
  request_recorder(const request_recorder&) = delete;
  request_recorder& operator=(const request_recorder&) = delete;

  // `# t=NOW ORIGIN` and then `line`, which replay runs. A line that replay would not run as
  // it was received (it spans lines, or is blank or a comment once trimmed) is commented.
  void request(time_ns now, const std::string& origin, const std::string& line);

  // `# t=NOW ORIGIN: WHAT`: something replay cannot run (a live process's request, a read
  // by the engine's own log writer), kept so the file tells the whole session.
  void comment(time_ns now, const std::string& origin, const std::string& what);

  // What a comment shows of `text`: one line (line breaks as `\n`), at most `limit` bytes
  // and a note of how many there were.
  static std::string one_line(const std::string& text, std::size_t limit = 4096);

 private:
  std::mutex mutex_;  // one recorder may be shared by several data managers' threads
  std::ostream& out_;
};

}  // namespace perfdm
