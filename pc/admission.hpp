// Which candidate experiments start, and when: a priority queue (why-refinements, key 5,
// before where-refinements, key 10; first come first served within a key) and the cost
// limits — at most N experiments pending, M active, and none started while the sampler's
// MEASURED cost is over the budget (Paradyn's cost model).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <tuple>

namespace perfdm::pc {

inline constexpr int why_priority = 5;
inline constexpr int where_priority = 10;

struct admission_limits {
  std::uint32_t max_pending = 30;
  std::uint32_t max_active = 1000;
  double cost_budget = 0.10;
};

class admission {
 public:
  explicit admission(admission_limits limits) : limits_(limits) {}

  void push(std::uint64_t node, int priority);
  std::size_t queued() const { return queue_.size(); }

  // The measured cost: the seconds the sampler stopped the program over the seconds of its
  // life the samples cover, in the latest interval. Over the budget, admission pauses.
  void observe_cost(double cost_s, double covered_s);
  bool over_budget() const { return over_budget_; }
  std::optional<double> overhead() const { return overhead_; }

  // The next candidate allowed to start with `pending` experiments waiting for their enables
  // and `active` collecting; none when the queue is empty or a limit holds.
  std::optional<std::uint64_t> next(std::uint32_t pending, std::uint32_t active);

  void set_limits(admission_limits limits) { limits_ = limits; }
  const admission_limits& limits() const { return limits_; }

 private:
  admission_limits limits_;
  std::set<std::tuple<int, std::uint64_t, std::uint64_t>> queue_;  // priority, order, node
  std::uint64_t order_ = 0;
  std::optional<double> overhead_;
  bool over_budget_ = false;
};

}  // namespace perfdm::pc
