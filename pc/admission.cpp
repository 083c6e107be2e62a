#include "pc/admission.hpp"

namespace perfdm::pc {

void admission::push(std::uint64_t node, int priority) {
  queue_.emplace(priority, order_++, node);
}

void admission::observe_cost(double cost_s, double covered_s) {
  if (!(covered_s > 0)) return;  // no sample covered any time: nothing measured
  overhead_ = cost_s > 0 ? cost_s / covered_s : 0;
  over_budget_ = *overhead_ > limits_.cost_budget;
}

std::optional<std::uint64_t> admission::next(std::uint32_t pending, std::uint32_t active) {
  if (queue_.empty() || over_budget_ || pending >= limits_.max_pending ||
      active + pending >= limits_.max_active)
    return std::nullopt;
  auto node = std::get<2>(*queue_.begin());
  queue_.erase(queue_.begin());
  return node;
}

}  // namespace perfdm::pc
