// See resend_buffer.hpp.
#include "tree/resend_buffer.hpp"

#include <algorithm>

namespace perfdm {

void resend_buffer::sent(const std::vector<sample>& samples) {
  kept_.insert(kept_.end(), samples.begin(), samples.end());
  if (kept_.size() > capacity_) {
    const std::size_t excess = kept_.size() - capacity_;
    kept_.erase(kept_.begin(), kept_.begin() + static_cast<std::ptrdiff_t>(excess));
    overflowed_ += excess;
  }
}

void resend_buffer::safe_until(time_ns until) {
  // Samples come roughly in time order but from several sources and MIs: test each one.
  kept_.erase(std::remove_if(kept_.begin(), kept_.end(),
                             [&](const sample& s) { return to_ns(s.end) <= until; }),
              kept_.end());
}

}  // namespace perfdm
