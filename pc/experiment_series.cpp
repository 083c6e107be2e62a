#include "pc/experiment_series.hpp"

#include <algorithm>
#include <cmath>

namespace perfdm::pc {

experiment_series::experiment_series(std::size_t inputs, double start)
    : start_(start), inputs_(inputs, input{{}, start}) {}

void experiment_series::add(std::size_t i, double bucket_start, double bucket_end, double value) {
  if (i >= inputs_.size() || !(bucket_end > bucket_start) || bucket_end <= start_) return;
  auto& points = inputs_[i].points;
  double last_end = points.empty() ? start_ : points.back().end;
  if (bucket_end <= last_end) return;
  double amount = std::isfinite(value) ? value : 0;
  // Only the part after what is counted already (the start, or an idle stretch) counts.
  double from = std::max(bucket_start, last_end);
  amount *= (bucket_end - from) / (bucket_end - bucket_start);
  double sum = points.empty() ? 0 : points.back().sum;
  points.push_back({bucket_end, sum + amount});
}

void experiment_series::idle_until(double until) {
  for (auto& in : inputs_) in.idle_end = std::max(in.idle_end, until);
}

std::optional<double> experiment_series::aligned_end() const {
  std::optional<double> end;
  for (auto& in : inputs_) {
    double reached = std::max(in.points.empty() ? start_ : in.points.back().end, in.idle_end);
    if (reached <= start_) return std::nullopt;
    end = end ? std::min(*end, reached) : reached;
  }
  return end;
}

double experiment_series::sum_until(std::size_t i, double end) const {
  if (i >= inputs_.size()) return 0;
  auto& points = inputs_[i].points;
  // The last point at or before `end` (points are in time order).
  auto it = std::upper_bound(points.begin(), points.end(), end,
                             [](double t, const point& p) { return t < p.end; });
  return it == points.begin() ? 0 : std::prev(it)->sum;
}

}  // namespace perfdm::pc
