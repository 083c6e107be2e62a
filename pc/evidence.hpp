// Concluding a node on the evidence (docs/PROTOCOL.md §12 "Deciding on the
// evidence"): the node's value from the stack samples at its focus since its search began,
// a confidence interval around it, and a conclusion once the interval lies wholly beyond
// the threshold ± hysteresis, with the confidence spent over repeated looks.
//
// A sample is one stack sample of one process; its observation is the share of the process's
// active threads (those of the focus's /Machine part) that were in the hypothesis' state at the
// focus (window/sample_window.hpp): in [0, 1], so a variable with mean μ and variance at most
// μ(1 − μ) — a Bernoulli's — and the Wilson score interval for a proportion bounds μ whatever
// the correlation between threads. Evidence without shares (one thread at a time) counts the
// threads instead: y/K, K the most at once, bounded the same way and scaled back. Several
// processes: each its own interval (Bonferroni over the processes), bounds averaged. Repeated
// looks: the k-th look at a node spends α·6/(π²k²) (Σ = α), and a node is looked at only when
// its samples grew by a quarter.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "pc/hypotheses.hpp"
#include "pc/node_decision.hpp"

namespace perfdm::pc {

// The sampled states the hypotheses count: running (CPUbound), blocked or waiting
// (ExcessiveSyncWaitingTime), in I/O (ExcessiveIOBlockingTime).
enum class sampled_state : std::size_t { runs, syncs, ios };
inline constexpr std::size_t sampled_state_count = 3;
// The state a hypothesis counts; TooManySmallIOOps counts operations instead (runs: unused).
sampled_state state_of(hypothesis h);

// One process's counts at a focus since the search began (a stack sample window's answer).
struct process_evidence {
  std::uint64_t ticks = 0;  // stack samples (n)
  // per state: the most threads in it at the focus at one sample (K), and the thread-samples
  // in it at the focus (≤ K·n)
  std::array<std::uint32_t, sampled_state_count> most{};
  std::array<std::uint64_t, sampled_state_count> hits{};
  double io_ops = 0, io_bytes = 0;  // exact counts at the focus
  double first = 0, last = 0;       // seconds: its first and last stack sample counted
  // Per state, summed over the samples: the shares of the active threads (the value), of the
  // busy threads (what a fix would save), and the caused waits shared among the busy threads
  // (blame). NaN shares: not given (the counts stand for them).
  std::array<double, sampled_state_count> share{std::nan(""), std::nan(""), std::nan("")};
  std::array<double, sampled_state_count> saving{std::nan(""), std::nan(""), std::nan("")};
  std::array<double, sampled_state_count> blamed{};
  double idle = 0;  // idle threads of the focus's /Machine part, summed over the samples
};

struct interval {
  double low = 0, high = 0;
};

// z with P(|Z| > z) = alpha for a standard normal Z (0 < alpha < 1).
double z_two_sided(double alpha);
// Wilson's score interval for a proportion p̂ out of n trials, at z.
interval wilson(double p_hat, double n, double z);

struct evidence_floor {
  // stack samples (all processes together). The interval decides; the floor only keeps a
  // burst from it: 10, so that a process sampled 4 times a second (64 daemons on a small
  // machine) can conclude in 2.5 s (all 10 running: 0.42 ≥ 0.315 at the 7th look's z).
  std::uint64_t min_samples = 10;
  double min_span_s = 0.5;         // seconds between the first and last sample counted
  double min_io_ops = 20;          // TooManySmallIOOps: operations before a mean size counts
};

// The value, and its interval at `z`, of a hypothesis of kind `kind` from the processes'
// evidence (`per_process`: rates are divided by the processes with samples at the focus:
// a process outside its /Machine part has none, sample_window::count).
struct evidence_value {
  double value = 0;  // the mean share per process (≤ 1)
  interval ci;
  // What a fix at the focus would save of the elapsed time, roughly (the share of the busy
  // threads, per process; for TooManySmallIOOps the I/O blocking's): how findings rank.
  double score = 0;
  double threads = 0;  // threads in the state at the focus, on average per process
  double blamed = 0;   // threads waiting for the focus's work, on average per process
  double idle = 0;     // idle threads of the focus's /Machine part, on average, all processes
  // TooManySmallIOOps: the I/O blocking at the same focus, which it is tested under.
  double io_blocking = 0;
  interval io_ci;
  std::uint64_t samples = 0;
  double span = 0;
  bool enough = false;  // the floor is met (and, for a ratio, there are operations)
  bool no_ops = false;  // a ratio without any operation (no mean size to call small)
};
evidence_value evaluate_evidence(value_kind kind, sampled_state state,
                                 const std::vector<process_evidence>& e, double z,
                                 const evidence_floor& floor);

struct evidence_rule {
  double threshold = 0;
  bool greater = true;
  double hysteresis = 0.05;
  double confidence = 0.99;
  evidence_floor floor;
  // TooManySmallIOOps (a ratio) is tested only where I/O blocking is true at the same focus
  // (Paradyn's hierarchy): the I/O threshold it is tested under; 0: none.
  double io_threshold = 0;
};

// A node's decision on the evidence: looks at it as evidence comes, concludes when the
// interval clears threshold × (1 ± hysteresis), and may conclude the other way later.
class evidence_decision {
 public:
  explicit evidence_decision(evidence_rule rule) : rule_(rule) {}
  // Evidence up to some time for hypothesis `h`; returns true when the conclusion changed.
  bool take(hypothesis h, const std::vector<process_evidence>& e);
  truth concluded() const { return concluded_; }
  const evidence_value& last() const { return last_; }
  int looks() const { return looks_; }
  void set_rule(const evidence_rule& r) { rule_ = r; }

 private:
  evidence_rule rule_;
  truth concluded_ = truth::unknown;
  int looks_ = 0;
  std::uint64_t looked_at_ = 0;  // samples at the last look
  evidence_value last_;
};

}  // namespace perfdm::pc
