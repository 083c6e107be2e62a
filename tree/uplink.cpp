// See uplink.hpp.
#include "tree/uplink.hpp"

namespace perfdm {

std::optional<std::uint64_t> uplink::add(const std::vector<sample>& samples) {
  if (samples.empty()) return std::nullopt;
  const bool opens = buffer_.empty();
  buffer_.insert(buffer_.end(), samples.begin(), samples.end());
  if (!opens) return std::nullopt;
  return ++batch_id_;
}

std::optional<uplink_batch> uplink::flush(time_ns candidate) {
  ++batch_id_;
  if (paused_) return std::nullopt;
  const time_ns w = std::max(candidate, sent_watermark_);
  if (buffer_.empty() && w <= sent_watermark_) return std::nullopt;
  if (!buffer_.empty()) ++batches_;
  sent_ += buffer_.size();
  uplink_batch out;
  // Kept while a relay is above; noted as reached once acknowledged (source_register's
  // `reached`: what of it the relay passed on is not counted twice should it go down).
  out.receipt = uplink_receipt{w, failover_.ends_of(buffer_)};
  failover_.on_sent(buffer_);
  out.message = source_samples{std::move(buffer_), w};
  sent_watermark_ = w;
  buffer_.clear();
  buffer_.reserve(batch_size_);
  return out;
}

}  // namespace perfdm
