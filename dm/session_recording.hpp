// The data manager's side of `--record` (docs/PROTOCOL.md §6): who sent each request, and
// whether replay runs it again (a request line) or it only tells the session (a comment).
// Plain C++ over messages/request_recorder.hpp; the data manager actor names the sender of
// each message by its actor id (0: no sender).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "messages/record_messages.hpp"
#include "messages/request_recorder.hpp"
#include "messages/time.hpp"

namespace perfdm {

class session_recording {
 public:
  struct origin {
    std::string label;
    bool replayable = true;
    // Its requests follow from another request (the search's from SEARCH): replaying that
    // one makes them again, so they are comments.
    bool derived = false;
  };

  explicit session_recording(std::shared_ptr<request_recorder> recorder)
      : recorder_(std::move(recorder)) {}

  bool on() const { return static_cast<bool>(recorder_); }

  // Names a sender: as it named itself (record_origin), or as the data manager knows it.
  void name(std::uint64_t sender, origin o) { origins_[sender] = std::move(o); }
  // Who sent a message, as it was named; unnamed senders get a name here.
  origin origin_of(std::uint64_t sender) const;

  // `line`, a request the data manager processed. `changes`: it may change the data manager
  // (a read does not). Whatever changes it is replayed, whoever sent it (the registry's
  // SETDETAIL enables, say); the engine's own reads are comments.
  void request(time_ns now, std::uint64_t sender, const std::string& line, bool changes);
  // A request that needs the live process: replay has none, so it is a comment; what it does
  // to the data manager comes as requests of the sources it starts.
  void live_only(time_ns now, std::uint64_t sender, const std::string& line);
  void comment(time_ns now, std::uint64_t sender, const std::string& what);
  // A request replay must run whoever sent it, derived or not (the search's EVIDENCE: what
  // it read from live processes, which replay cannot read again).
  void replayed(time_ns now, std::uint64_t sender, const std::string& line);
  // A sender named itself (record_origin).
  void began(time_ns now, std::uint64_t sender, const record_origin& x);
  // A request a front end answered itself (record_unsent).
  void unsent(time_ns now, std::uint64_t sender, const record_unsent& x);

 private:
  std::shared_ptr<request_recorder> recorder_;
  std::unordered_map<std::uint64_t, origin> origins_;
};

}  // namespace perfdm
