// What a node of the tree of daemons (a daemon's relay, or a relay) sends to its upstream, as
// plain state: its samples in batches, each with the node's watermark, and what it keeps to
// send again should the relay above it go down (upstream_failover).
//
// - A batch goes when it holds `batch_size` samples, or when the timer its first sample
//   opened fires (the node's flush period), whichever comes first: the upstream is another
//   process, and CAF carries some 50 k remote messages a second, so one message per sample
//   would not do.
// - Every batch carries the node's watermark: the engine time before which it has sent
//   everything it will send. With no batch open, the watermark goes alone when it moved, so
//   that a quiet node does not hold the aggregate back upstream
//   (component_aggregator::add_watermark). It never goes backwards.
// - While the node fails over (no upstream), the batch waits and grows; nothing goes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "messages/dm_messages.hpp"
#include "messages/source_messages.hpp"
#include "messages/time.hpp"
#include "tree/upstream_failover.hpp"

namespace perfdm {

// What to note once the upstream acknowledged a batch (uplink::acked).
struct uplink_receipt {
  time_ns watermark = no_watermark;       // the watermark the batch carried
  std::map<std::uint64_t, time_ns> ends;  // the latest end of each MI's samples in it
};

// A batch on its way up.
struct uplink_batch {
  source_samples message;
  uplink_receipt receipt;
};

class uplink {
 public:
  explicit uplink(std::size_t batch_size) : batch_size_(batch_size) {}

  // Samples to send up. When they open a batch, the id for its flush timer (timer_due).
  std::optional<std::uint64_t> add(const std::vector<sample>& samples);

  // The open batch reached `batch_size`: flush now.
  bool full() const { return buffer_.size() >= batch_size_; }
  bool empty() const { return buffer_.empty(); }

  // A flush timer fired: whether the batch it was set for is still open.
  bool timer_due(std::uint64_t id) const { return id == batch_id_; }

  // The open batch with the watermark `candidate` (raised to the last one sent): what to send
  // now, or nothing when there is nothing new (no samples and the watermark did not move) or
  // the node has no upstream (the batch waits). Any flush timer still running finds nothing.
  std::optional<uplink_batch> flush(time_ns candidate);

  // The upstream acknowledged (received) the batch of `receipt`.
  void acked(const uplink_receipt& receipt) {
    failover_.on_acked(receipt.watermark, receipt.ends);
  }

  // The upstream went away (the batch waits) or is back.
  void pause() { paused_ = true; }
  void resume() { paused_ = false; }

  // The watermark sent last (no_watermark: none yet).
  time_ns sent_watermark() const { return sent_watermark_; }
  std::uint64_t batches() const { return batches_; }  // batches sent, watermarks alone not counted
  std::uint64_t samples_sent() const { return sent_; }

  upstream_failover& failover() { return failover_; }
  const upstream_failover& failover() const { return failover_; }

 private:
  std::size_t batch_size_;
  std::vector<sample> buffer_;
  std::uint64_t batch_id_ = 0;
  bool paused_ = false;
  time_ns sent_watermark_ = no_watermark;
  std::uint64_t batches_ = 0;
  std::uint64_t sent_ = 0;
  upstream_failover failover_;
};

// The least of `present` and every time in `holds` (the latest end each source reported, or
// each child's watermark): before it, everything was received from each of them.
template <class Map>
time_ns least_held(time_ns present, const Map& holds) {
  for (auto& [who, t] : holds) present = std::min(present, t);
  return present;
}

}  // namespace perfdm
