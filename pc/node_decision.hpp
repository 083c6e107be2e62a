// Deciding one node: the value against its threshold with hysteresis, and a conclusion once
// the guess has held for the sufficient time (Paradyn's rule).
#pragma once

namespace perfdm::pc {

enum class truth { unknown, true_, false_ };

struct decision_rule {
  double threshold = 0;
  bool greater = true;       // value > threshold tests true (else value < threshold)
  double hysteresis = 0.05;  // the threshold is moved by this fraction against a change
  double sufficient_time = 6;
};

class node_decision {
 public:
  node_decision(decision_rule rule, double start) : rule_(rule), last_time_(start) {}

  // The value at `time` (the running average up to there). The time since the previous
  // evaluation counts for the guess if it did not change; a changed guess starts again from
  // nothing. Returns true when the conclusion changed (unknown -> true/false, or a concluded
  // node that became the other).
  bool evaluate(double value, double time);

  // A value with no meaning (no I/O operation to divide by): it is a false guess.
  bool evaluate_false(double time);

  truth concluded() const { return concluded_; }
  bool guess() const { return guess_; }
  // The threshold the next guess is made against (threshold x h).
  double moved_threshold() const;
  double agreeing_time() const { return agreeing_; }
  void set_rule(const decision_rule& rule) { rule_ = rule; }
  const decision_rule& rule() const { return rule_; }

 private:
  bool take(bool guess, double time);

  decision_rule rule_;
  double last_time_;
  bool has_guess_ = false;
  bool guess_ = false;
  double agreeing_ = 0;
  truth concluded_ = truth::unknown;
};

}  // namespace perfdm::pc
