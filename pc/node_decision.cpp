#include "pc/node_decision.hpp"

namespace perfdm::pc {

double node_decision::moved_threshold() const {
  // Paradyn's h: 1.05 until the node guesses true, then 0.95 (for a "greater" test); a
  // "less" test mirrors it, so a change of guess always needs the value to cross further.
  double h = guess_ ? 1 - rule_.hysteresis : 1 + rule_.hysteresis;
  if (!rule_.greater) h = guess_ ? 1 + rule_.hysteresis : 1 - rule_.hysteresis;
  return rule_.threshold * h;
}

bool node_decision::evaluate(double value, double time) {
  double adjusted = rule_.greater ? value - moved_threshold() : moved_threshold() - value;
  return take(adjusted > 0, time);
}

bool node_decision::evaluate_false(double time) {
  return take(false, time);
}

bool node_decision::take(bool guess, double time) {
  double elapsed = time > last_time_ ? time - last_time_ : 0;
  last_time_ = time > last_time_ ? time : last_time_;
  if (!has_guess_ || guess != guess_) {
    // A flip resets the agreeing time; the interval that showed the new guess counts for it.
    has_guess_ = true;
    guess_ = guess;
    agreeing_ = elapsed;
  } else {
    agreeing_ += elapsed;
  }
  auto want = guess_ ? truth::true_ : truth::false_;
  if (agreeing_ + 1e-9 >= rule_.sufficient_time && concluded_ != want) {
    concluded_ = want;
    return true;
  }
  return false;
}

}  // namespace perfdm::pc
