// Turns the frames of one frame type of one process into samples for the metric instances
// that collect its fields (docs/FRAMES.md, "Ingest"). Plain C++: the frame ingest actor
// feeds it frames and asks it for samples once per poll; tests drive it directly.
//
// - Field `f` of struct `S` is the metric `S.f` (element i of an array field: `S.f[i]`). A collecting MI takes a field when its metric
//   is that name and every resource of its focus is `/` or an ancestor of (or is) the frame
//   type's resource `/Process/<name>{<pid>}/<S>`. Fields no MI takes are not decoded.
// - Frames are aggregated per sampling interval, aligned to multiples of the interval in
//   engine time: a COUNTER field gives the sum of its values (amounts since the previous
//   frame) over the interval, a SAMPLED field the mean of its levels. An interval with no
//   frame gives no sample (no data, not zero).
// - An interval is closed by flush() once it ended; a frame stamped inside an interval
//   already closed (a late lane) goes into the oldest open one, so nothing is lost.
// - Every numeric field is also summarised (count, min, max, sum) for the log, whether or
//   not an MI collects it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "messages/dm_messages.hpp"
#include "messages/process_messages.hpp"
#include "messages/source_messages.hpp"
#include "dm/histogram.hpp"
#include "messages/time.hpp"
#include "shm/layout.hpp"

namespace perfdm {

class frame_sample_builder {
 public:
  frame_sample_builder(shm::frame_layout layout, std::string frame_resource);
  // Not copied: the hot interval points into open_ (a move keeps the map's nodes).
  frame_sample_builder(const frame_sample_builder&) = delete;
  frame_sample_builder& operator=(const frame_sample_builder&) = delete;
  frame_sample_builder(frame_sample_builder&&) = default;
  frame_sample_builder& operator=(frame_sample_builder&&) = default;

  const shm::frame_layout& layout() const { return layout_; }
  // The layout's fields with numeric arrays as their elements (shm::element_fields): each
  // counter or sampled one is a metric.
  const std::vector<shm::field_layout>& fields() const { return fields_; }
  const std::string& resource() const { return resource_; }

  // The metric name of a field: "<struct>.<field>".
  std::string metric_of(const shm::field_layout& f) const;

  // Which MIs each field feeds. Intervals already open keep their samples for the MIs that
  // still collect.
  void set_collecting(const std::vector<collecting_mi>& mis);
  void set_interval(time_ns width);
  time_ns interval() const { return width_; }
  bool collecting() const { return !routes_.empty(); }

  // One frame stamped `t` (engine time).
  void add(const std::byte* frame, time_ns t);

  // Closes every interval that ended at or before `until` and appends its samples.
  void flush(time_ns until, std::vector<sample>& out);

  std::uint64_t late_frames() const { return late_; }
  const std::vector<field_summary>& summaries() const { return summaries_; }

 private:
  struct route {
    std::size_t summary;  // index into summaries_ and values_ (every routed field has one)
    bool counter;
    std::vector<mi_handle> mis;
  };
  struct accumulator {
    double sum = 0;
    std::uint64_t count = 0;
  };
  struct open_interval {
    time_ns end = 0;
    std::vector<accumulator> acc;  // by route
  };

  open_interval& interval_for(time_ns t);

  shm::frame_layout layout_;
  std::vector<shm::field_layout> fields_;
  std::string resource_;
  time_ns width_ = base_bucket_width;
  std::vector<route> routes_;
  std::map<time_ns, open_interval> open_;  // by start
  time_ns closed_until_ = 0;          // every interval ending at or before it was flushed
  std::uint64_t late_ = 0;
  std::vector<field_summary> summaries_;
  std::vector<std::size_t> summary_field_;  // fields_ index of each summary
  std::vector<double> values_;              // by summary: the value in the frame being added
  // The interval the last frame went into, while it is open: frames come mostly in time
  // order, so it usually holds the next one too and the map is not searched.
  open_interval* hot_ = nullptr;
  time_ns hot_start_ = 0;
};

// True when `resource` is `ancestor` or lies below it ("/" is everyone's ancestor).
bool resource_within(const std::string& resource, const std::string& ancestor);

}  // namespace perfdm
