#include "dm/session_recording.hpp"

namespace perfdm {

session_recording::origin session_recording::origin_of(std::uint64_t sender) const {
  if (sender == 0) return {"anonymous", true};
  if (auto i = origins_.find(sender); i != origins_.end()) return i->second;
  return {"actor " + std::to_string(sender), true};
}

void session_recording::request(time_ns now, std::uint64_t sender, const std::string& line,
                                bool changes) {
  if (!recorder_) return;
  auto from = origin_of(sender);
  if (from.derived)
    recorder_->comment(now, from.label, "made again by SEARCH in replay: " + line);
  else if (from.replayable || changes)
    recorder_->request(now, from.label, line);
  else
    recorder_->comment(now, from.label, "not a front end's: " + line);
}

void session_recording::live_only(time_ns now, std::uint64_t sender, const std::string& line) {
  if (recorder_) recorder_->comment(now, origin_of(sender).label, "live process only: " + line);
}

void session_recording::comment(time_ns now, std::uint64_t sender, const std::string& what) {
  if (recorder_) recorder_->comment(now, origin_of(sender).label, what);
}

void session_recording::replayed(time_ns now, std::uint64_t sender, const std::string& line) {
  if (recorder_) recorder_->request(now, origin_of(sender).label, line);
}

void session_recording::began(time_ns now, std::uint64_t sender, const record_origin& x) {
  origins_[sender] = origin{x.label, x.replayable};
  if (recorder_) recorder_->comment(now, x.label, "began sending");
}

void session_recording::unsent(time_ns now, std::uint64_t sender, const record_unsent& x) {
  if (!recorder_) return;
  auto from = origin_of(sender);
  if (x.replayable && from.replayable)
    recorder_->request(now, from.label, x.text);
  else
    recorder_->comment(now, from.label, "answered by the front end: " + x.text);
}

}  // namespace perfdm
