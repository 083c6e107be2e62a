#include "sources/frame_sample_builder.hpp"

#include <algorithm>
#include <limits>

namespace perfdm {

bool resource_within(const std::string& resource, const std::string& ancestor) {
  if (ancestor == "/" || resource == ancestor) return true;
  return resource.size() > ancestor.size() && resource.compare(0, ancestor.size(), ancestor) == 0 &&
         resource[ancestor.size()] == '/';
}

frame_sample_builder::frame_sample_builder(shm::frame_layout layout, std::string frame_resource)
    : layout_(std::move(layout)),
      fields_(shm::element_fields(layout_)),
      resource_(std::move(frame_resource)) {
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    auto& f = fields_[i];
    if (f.kind != shm::field_kind::counter && f.kind != shm::field_kind::sampled) continue;
    summaries_.push_back(field_summary{f.name, 0, 0, 0, 0});
    summary_field_.push_back(i);
  }
  values_.resize(summaries_.size());
}

std::string frame_sample_builder::metric_of(const shm::field_layout& f) const {
  return layout_.struct_name + "." + f.name;
}

void frame_sample_builder::set_collecting(const std::vector<collecting_mi>& mis) {
  std::vector<route> routes;
  for (std::size_t s = 0; s < summary_field_.size(); ++s) {
    auto& f = fields_[summary_field_[s]];
    route r{s, f.kind == shm::field_kind::counter, {}};
    auto metric = metric_of(f);
    for (auto& m : mis) {
      if (m.metric != metric) continue;
      bool within = std::all_of(m.focus.begin(), m.focus.end(), [&](const std::string& focus) {
        return resource_within(resource_, focus);
      });
      if (within) r.mis.push_back(m.mi);
    }
    if (!r.mis.empty()) routes.push_back(std::move(r));
  }
  // Open intervals keep what they gathered for the fields that are still routed.
  for (auto& [start, iv] : open_) {
    std::vector<accumulator> acc(routes.size());
    for (std::size_t n = 0; n < routes.size(); ++n)
      for (std::size_t o = 0; o < routes_.size(); ++o)
        if (routes_[o].summary == routes[n].summary) acc[n] = iv.acc[o];
    iv.acc = std::move(acc);
  }
  routes_ = std::move(routes);
}

void frame_sample_builder::set_interval(time_ns width) {
  if (width > 0) width_ = width;
}

frame_sample_builder::open_interval& frame_sample_builder::interval_for(time_ns t) {
  if (t < closed_until_) {
    ++late_;
    t = closed_until_;
  }
  if (hot_ && t >= hot_start_ && t < hot_->end) return *hot_;
  // An open interval holding t (its width may be one the interval had before a change).
  auto next = open_.upper_bound(t);
  if (next != open_.begin()) {
    auto prev = std::prev(next);
    if (t < prev->second.end) {
      hot_ = &prev->second;
      hot_start_ = prev->first;
      return *hot_;
    }
  }
  time_ns start = t - t % width_;
  time_ns end = start + width_;
  // Intervals never overlap: a new one is clipped to its open neighbours and the flushed past.
  if (next != open_.begin()) start = std::max(start, std::prev(next)->second.end);
  if (next != open_.end()) end = std::min(end, next->first);
  start = std::max(start, closed_until_);
  auto& iv = open_[start];
  iv.end = end;
  iv.acc.resize(routes_.size());
  hot_ = &iv;
  hot_start_ = start;
  return iv;
}

void frame_sample_builder::add(const std::byte* frame, time_ns t) {
  if (t < 0) t = 0;
  // Each numeric field is decoded once, for its summary and for the routes that take it.
  for (std::size_t s = 0; s < summaries_.size(); ++s) {
    const double v = shm::field_value(fields_[summary_field_[s]], frame);
    values_[s] = v;
    auto& sum = summaries_[s];
    if (sum.count == 0 || v < sum.min) sum.min = v;
    if (sum.count == 0 || v > sum.max) sum.max = v;
    sum.sum += v;
    ++sum.count;
  }
  if (routes_.empty()) return;
  auto& iv = interval_for(t);
  for (std::size_t r = 0; r < routes_.size(); ++r) {
    iv.acc[r].sum += values_[routes_[r].summary];
    ++iv.acc[r].count;
  }
}

void frame_sample_builder::flush(time_ns until, std::vector<sample>& out) {
  while (!open_.empty() && open_.begin()->second.end <= until) {
    if (hot_ == &open_.begin()->second) hot_ = nullptr;
    auto node = open_.extract(open_.begin());
    auto start = node.key();
    auto& iv = node.mapped();
    for (std::size_t r = 0; r < routes_.size() && r < iv.acc.size(); ++r) {
      auto& a = iv.acc[r];
      if (a.count == 0) continue;
      double value = routes_[r].counter ? a.sum : a.sum / static_cast<double>(a.count);
      for (auto mi : routes_[r].mis)
        out.push_back(sample{mi, to_seconds(start), to_seconds(iv.end), value});
    }
    closed_until_ = std::max(closed_until_, iv.end);
  }
  // Nothing open reaches back before `until` any more: later frames stamped earlier are late.
  if (open_.empty()) closed_until_ = std::max(closed_until_, until - until % width_);
}

}  // namespace perfdm
