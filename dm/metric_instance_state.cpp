#include "dm/metric_instance_state.hpp"

#include <algorithm>

namespace perfdm {

namespace {

bool contains(const std::vector<stream_handle>& xs, stream_handle s) {
  return std::find(xs.begin(), xs.end(), s) != xs.end();
}

void insert_sorted(std::vector<stream_handle>& xs, stream_handle s) {
  auto i = std::lower_bound(xs.begin(), xs.end(), s);
  if (i == xs.end() || *i != s) xs.insert(i, s);
}

bool erase(std::vector<stream_handle>& xs, stream_handle s) {
  auto i = std::find(xs.begin(), xs.end(), s);
  if (i == xs.end()) return false;
  xs.erase(i);
  return true;
}

void collect(const std::vector<completed_bucket>& buckets, mi_handle id, phase_type type,
             metric_style style, std::vector<data_value>& out) {
  for (auto& b : buckets)
    out.push_back(data_value{id, type, b.index, histogram::reading(style, b.value)});
}

}  // namespace

metric_instance_state::metric_instance_state(mi_handle id, metric_style style)
    : id_(id), style_(style) {}

void metric_instance_state::enable(stream_handle s, phase_type type, persistence flags,
                                   const time_bases& tb) {
  flags_ |= flags;  // E4: an enable only ever adds flags
  if (!global_) global_.emplace(style_, 0, tb.global_width);
  if (type == phase_type::global) {
    insert_sorted(global_users_, s);  // E2
  } else {
    insert_sorted(current_users_, s);  // E3: global and current histograms, current list only
    if (!current_) current_.emplace(style_, tb.current_start, tb.current_width);
  }
  collecting_ = true;
}

bool metric_instance_state::disable(stream_handle s, phase_type type) {
  auto& users = type == phase_type::global ? global_users_ : current_users_;
  if (!erase(users, s)) return false;  // D4
  if (flags_.collection) return true;  // D1: collection continues, nothing is deleted
  // D2: the last current-phase user takes the current histogram along unless a data flag
  // keeps it.
  if (type == phase_type::current && current_users_.empty() && !flags_.data && !flags_.phase_data)
    current_.reset();
  stop_if_unused();  // D2/D3: with no users left, collection stops and the MI may go
  return true;
}

void metric_instance_state::drop_stream(stream_handle s) {
  if (contains(current_users_, s)) disable(s, phase_type::current);
  if (!deleted_ && contains(global_users_, s)) disable(s, phase_type::global);
}

void metric_instance_state::set_flags(persistence named) {
  flags_ |= named;  // P4: no side effect until the next fold, enable, disable or new phase
}

void metric_instance_state::clear_flags(persistence named) {
  if (named.collection) flags_.collection = false;
  if (named.phase_data) flags_.phase_data = false;
  if (!named.data) return;  // P4: consequences wait for the next event
  // P5: clearing persistent_data also clears phase_persistent_data and deletes the data
  // that no user holds.
  flags_.data = false;
  flags_.phase_data = false;
  if (current_users_.empty()) {
    current_.reset();
    archive_.clear();
  }
  if (!collecting_ && global_users_.empty()) deleted_ = true;
}

void metric_instance_state::new_phase(phase_handle old_phase, const time_bases& tb) {
  current_users_.clear();  // N1
  if (current_) {
    if (flags_.data) archive_.insert_or_assign(old_phase, std::move(*current_));  // N2
    current_.reset();
  }
  flags_.phase_data = false;  // N7
  if (flags_.collection) {
    current_.emplace(style_, tb.current_start, tb.current_width);  // N4
    collecting_ = true;
  } else if (global_users_.empty()) {
    collecting_ = false;                // N3
    if (!flags_.data) deleted_ = true;  // N6
  }                                     // N5: global users keep global collection going
}

void metric_instance_state::add(time_ns t0, time_ns t1, double value, completed_values* out) {
  if (!collecting_) return;
  thread_local std::vector<completed_bucket> done;
  done.clear();
  global_->add(t0, t1, value, out ? &done : nullptr);
  if (out) collect(done, id_, phase_type::global, style_, out->global);
  if (current_) {
    done.clear();
    current_->add(t0, t1, value, out ? &done : nullptr);
    if (out) collect(done, id_, phase_type::current, style_, out->current);
  }
}

void metric_instance_state::fold(time_ns start, time_ns width) {
  for (auto* h : {global_ ? &*global_ : nullptr, current_ ? &*current_ : nullptr})
    if (h && h->start() == start)
      while (h->width() < width) h->fold();  // B4: one fold per doubling
  stop_if_unused();  // P4: a flag cleared earlier takes effect at the next fold
}

void metric_instance_state::stop_if_unused() {
  if (flags_.collection || !global_users_.empty() || !current_users_.empty()) return;
  collecting_ = false;
  if (!flags_.data && !flags_.phase_data) deleted_ = true;
}

mi_summary metric_instance_state::summary() const {
  mi_summary s;
  s.state = deleted_ ? mi_state::deleted : collecting_ ? mi_state::active : mi_state::inactive;
  s.collecting = collecting_ && !deleted_;
  s.has_current = current_.has_value() && !deleted_;
  s.global_users = static_cast<std::uint32_t>(global_users_.size());
  s.current_users = static_cast<std::uint32_t>(current_users_.size());
  s.flags = flags_;
  return s;
}

mi_status metric_instance_state::status() const {
  mi_status st;
  st.id = id_;
  st.global_users = global_users_;
  st.current_users = current_users_;
  st.flags = flags_;
  st.collecting = collecting_;
  st.has_global = global_.has_value();
  st.has_current = current_.has_value();
  for (auto& entry : archive_) st.archived.push_back(entry.first);
  return st;
}

const histogram* metric_instance_state::archived(phase_handle p) const {
  auto i = archive_.find(p);
  return i == archive_.end() ? nullptr : &i->second;
}

std::size_t metric_instance_state::memory_bytes() const {
  std::size_t n = sizeof(*this);
  n += (global_users_.capacity() + current_users_.capacity()) * sizeof(stream_handle);
  if (global_) n += global_->memory_bytes() - sizeof(histogram);
  if (current_) n += current_->memory_bytes() - sizeof(histogram);
  for (auto& entry : archive_) n += entry.second.memory_bytes() + 4 * sizeof(void*);
  return n;
}

histogram_data data_of(mi_handle id, const histogram& h) {
  histogram_data d;
  d.mi = id;
  d.start = to_seconds(h.start());
  d.width = to_seconds(h.width());
  d.nbins = static_cast<std::uint32_t>(bucket_count);
  auto last = h.last_bucket_with_data();
  for (std::ptrdiff_t i = 0; i <= last; ++i)
    d.values.push_back(h.reading(static_cast<std::size_t>(i)));
  return d;
}

}  // namespace perfdm
