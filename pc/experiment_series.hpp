// The data of one experiment: the running sums of its metric instances since the experiment
// started, aligned on the same interval end (Paradyn: "the value fed to a test is the
// running average since the experiment started"; "inputs of one experiment are aligned on
// the same interval end").
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace perfdm::pc {

class experiment_series {
 public:
  // `inputs` metric instances, whose data counts from `start` (seconds, the time the
  // experiment was started) on.
  experiment_series(std::size_t inputs, double start);

  // One completed bucket [bucket_start, bucket_end) of input `i` with the amount `value`
  // (a COUNTER's amount; NaN: no sample, counted as 0). Buckets of one input come in time
  // order; a bucket ending at or before the input's last one is ignored (reported already),
  // the part of a bucket before the experiment's start is left out pro rata.
  void add(std::size_t i, double bucket_start, double bucket_end, double value);

  // An input that gets no data is an idle one: the data manager sends no bucket for a
  // metric instance without samples. `until` (the latest time data came for anything) makes
  // every input that has nothing past it count as 0 up to there; a bucket that still comes
  // for that stretch is counted (late, not lost).
  void idle_until(double until);

  // The latest end every input has reached; none before all have data past the start.
  std::optional<double> aligned_end() const;
  // The running sum of input `i` up to `end` (an end its data reached).
  double sum_until(std::size_t i, double end) const;
  double start() const { return start_; }

 private:
  struct point {
    double end;
    double sum;  // running sum up to `end`
  };
  struct input {
    std::vector<point> points;  // the buckets received, in time order
    double idle_end;            // counted as 0 up to here when no bucket reached it
  };
  double start_;
  std::vector<input> inputs_;
};

}  // namespace perfdm::pc
