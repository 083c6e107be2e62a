#include "pc/evidence.hpp"

#include <algorithm>
#include <cmath>

namespace perfdm::pc {

double z_two_sided(double alpha) {
  alpha = std::clamp(alpha, 1e-300, 1.0 - 1e-12);
  // P(|Z| > z) = erfc(z / √2), decreasing in z: bisection is exact enough and never fails.
  double lo = 0, hi = 40;
  for (int i = 0; i < 200; ++i) {
    double mid = (lo + hi) / 2;
    (std::erfc(mid / std::sqrt(2.0)) > alpha ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

interval wilson(double p, double n, double z) {
  if (n <= 0) return {0, 1};
  p = std::clamp(p, 0.0, 1.0);
  double z2 = z * z;
  double centre = p + z2 / (2 * n);
  double spread = z * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  double d = 1 + z2 / n;
  return {std::max(0.0, (centre - spread) / d), std::min(1.0, (centre + spread) / d)};
}

sampled_state state_of(hypothesis h) {
  switch (h) {
    case hypothesis::excessive_sync_waiting_time:
      return sampled_state::syncs;
    case hypothesis::excessive_io_blocking_time:
      return sampled_state::ios;
    default:
      return sampled_state::runs;
  }
}

namespace {

// A rate's value, interval and weights at `z` (Bonferroni over the processes with samples).
evidence_value rate_value(sampled_state state, const std::vector<process_evidence>& e, double z) {
  auto st = static_cast<std::size_t>(state);
  evidence_value v;
  std::size_t processes = 0;
  for (auto& p : e) processes += p.ticks > 0 ? 1 : 0;
  double zp = processes > 1 ? z_two_sided(std::erfc(z / std::sqrt(2.0)) / processes) : z;
  double divide = std::max<double>(1, processes);
  for (auto& p : e) {
    if (p.ticks == 0) continue;
    double n = static_cast<double>(p.ticks);
    // Shares of the active threads, each sample's in [0, 1]; without them, the threads
    // counted over the most at once.
    bool shared = !std::isnan(p.share[st]);
    double k = shared ? 1 : std::max<double>(1, p.most[st]);
    double mu =
        std::clamp((shared ? p.share[st] : static_cast<double>(p.hits[st])) / (k * n), 0.0, 1.0);
    auto w = wilson(mu, n, zp);
    v.value += k * mu / divide;
    v.ci.low += k * w.low / divide;
    v.ci.high += k * w.high / divide;
    v.score += (std::isnan(p.saving[st]) ? k * mu : p.saving[st] / n) / divide;
    v.threads += static_cast<double>(p.hits[st]) / n / divide;
    v.blamed += p.blamed[st] / n / divide;
    v.idle += p.idle / n;
  }
  return v;
}

}  // namespace

evidence_value evaluate_evidence(value_kind kind, sampled_state state,
                                 const std::vector<process_evidence>& e, double z,
                                 const evidence_floor& floor) {
  double first = 0, last = 0;
  bool any = false;
  std::uint64_t samples = 0;
  for (auto& p : e) {
    if (p.ticks == 0) continue;
    samples += p.ticks;
    first = any ? std::min(first, p.first) : p.first;
    last = any ? std::max(last, p.last) : p.last;
    any = true;
  }
  evidence_value v;
  if (kind == value_kind::ratio) {
    // Counted, not sampled: the mean size is exact; only the floor guards it. It ranks and is
    // tested under the I/O blocking at its focus.
    auto io = rate_value(sampled_state::ios, e, z);
    double ops = 0, bytes = 0;
    for (auto& p : e) {
      ops += p.io_ops;
      bytes += p.io_bytes;
    }
    v.value = ops > 0 ? bytes / ops : 0;
    v.ci = {v.value, v.value};
    v.no_ops = ops <= 0;
    v.score = io.score;
    v.threads = io.threads;
    v.idle = io.idle;
    v.io_blocking = io.value;
    v.io_ci = io.ci;
  } else {
    v = rate_value(state, e, z);
  }
  v.samples = samples;
  v.span = any ? last - first : 0;
  v.enough = v.samples >= floor.min_samples && v.span + 1e-9 >= floor.min_span_s;
  if (kind == value_kind::ratio) {
    double ops = 0;
    for (auto& p : e) ops += p.io_ops;
    v.enough = v.enough && (v.no_ops || ops >= floor.min_io_ops);
  }
  return v;
}

bool evidence_decision::take(hypothesis h, const std::vector<process_evidence>& e) {
  auto kind = info(h).kind;
  auto state = state_of(h);
  // Not a look yet: the value is shown, nothing is spent.
  auto preview =
      evaluate_evidence(kind, state, e, z_two_sided(1 - rule_.confidence), rule_.floor);
  // Counts run from the search's start, so they only grow: fewer samples than already seen
  // is a round some process was left out of (its daemon was late, actors/tree_gather.hpp).
  // It says nothing new, and would show a concluded node at 0 %.
  if (preview.samples < last_.samples) return false;
  // Too few operations to size, where the program surely does not block in I/O: that no
  // operation here is a bottleneck is already known (a file written once, such as the
  // program's first line on standard output).
  const bool unblocked =
      kind == value_kind::ratio && rule_.io_threshold > 0 && !preview.enough &&
      preview.samples >= rule_.floor.min_samples &&
      preview.span + 1e-9 >= rule_.floor.min_span_s &&
      preview.io_ci.high < rule_.io_threshold * (1 - rule_.hysteresis);
  if ((!preview.enough && !unblocked) || (looks_ > 0 && preview.samples * 4 < looked_at_ * 5)) {
    last_.value = preview.value;
    last_.samples = preview.samples;
    last_.span = preview.span;
    last_.enough = preview.enough;
    last_.score = preview.score;
    last_.threads = preview.threads;
    last_.blamed = preview.blamed;
    last_.idle = preview.idle;
    return false;
  }
  ++looks_;
  looked_at_ = preview.samples;
  constexpr double pi = 3.14159265358979323846;
  double alpha = (1 - rule_.confidence) * 6 / (pi * pi * looks_ * looks_);
  last_ = evaluate_evidence(kind, state, e, z_two_sided(alpha), rule_.floor);
  double up = rule_.threshold * (1 + rule_.hysteresis);
  double down = rule_.threshold * (1 - rule_.hysteresis);
  truth now = truth::unknown;
  if (unblocked && !last_.enough) {
    now = last_.io_ci.high < rule_.io_threshold * (1 - rule_.hysteresis) ? truth::false_
                                                                          : truth::unknown;
  } else if (kind == value_kind::ratio && last_.no_ops) {
    now = truth::false_;  // no operation at all: nothing is small (a division by 0 gives 0)
  } else if (rule_.greater) {
    if (last_.ci.low > up) now = truth::true_;
    if (last_.ci.high < down) now = truth::false_;
  } else {
    if (last_.ci.high < down) now = truth::true_;
    if (last_.ci.low > up) now = truth::false_;
  }
  // Under I/O blocking only: small operations where the program does not wait for I/O are no
  // bottleneck (hwloc's reads at start-up, an eventfd's writes).
  if (kind == value_kind::ratio && rule_.io_threshold > 0 && now == truth::true_) {
    if (last_.io_ci.high < rule_.io_threshold * (1 - rule_.hysteresis))
      now = truth::false_;
    else if (!(last_.io_ci.low > rule_.io_threshold * (1 + rule_.hysteresis)))
      now = truth::unknown;
  }
  if (now == truth::unknown || now == concluded_) return false;
  concluded_ = now;
  return true;
}

}  // namespace perfdm::pc
