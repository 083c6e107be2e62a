// What a child of a relay (a daemon, or a relay under a relay) keeps of the samples it sent
// upstream, so that nothing received is lost when that relay goes down (`kill -9`):
// it sends them again to the relay's own upstream, where what the relay had already passed
// on is not counted twice (component_aggregator::take_over).
//
// A sample may go once everything before its end is known to have reached the engine: the
// relay says so with samples_safe (its acknowledged watermark, which covers every MI: the
// relay emitted each MI up to it). Bounded: past `capacity` samples the oldest go, counted
// (a relay that never says anything is safe cannot grow a daemon without limit).
#pragma once

#include <cstddef>
#include <deque>
#include <vector>

#include "messages/dm_messages.hpp"
#include "messages/time.hpp"

namespace perfdm {

class resend_buffer {
 public:
  explicit resend_buffer(std::size_t capacity = std::size_t{1} << 20) : capacity_(capacity) {}

  // Samples sent upstream.
  void sent(const std::vector<sample>& samples);

  // Everything before `until` reached the engine: the samples ending at or before it go.
  // (A sample still pending that straddles it is kept whole; the engine cuts it.)
  void safe_until(time_ns until);

  // What to send again to a new upstream, oldest first.
  std::vector<sample> kept() const { return {kept_.begin(), kept_.end()}; }
  std::size_t size() const { return kept_.size(); }

  // Nothing to keep any more (the new upstream is the engine itself).
  void clear() { kept_.clear(); }

  // Samples dropped because the buffer was full.
  std::size_t overflowed() const { return overflowed_; }

 private:
  std::size_t capacity_;
  std::deque<sample> kept_;
  std::size_t overflowed_ = 0;
};

}  // namespace perfdm
