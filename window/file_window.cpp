#include "window/file_window.hpp"

#include <algorithm>

#include "native/data_io.hpp"
#include "native/pc_resources.hpp"

namespace perfdm::window {

namespace {

// The bytes one held entry costs, roughly: what the bound counts. A file's name and totals
// stay while the process runs (they are what later readings are differences of).
constexpr std::size_t reading_bytes = sizeof(std::int64_t) + sizeof(std::uint32_t);
constexpr std::size_t entry_bytes = sizeof(std::uint32_t) + 3 * sizeof(double);
constexpr std::size_t file_bytes = 96 + 6 * sizeof(double);

}  // namespace

file_window::file_window(window_limits limits) : limits_(limits) {}

std::uint32_t file_window::intern(const std::string& file) {
  if (auto i = ids_.find(file); i != ids_.end()) return i->second;
  auto id = static_cast<std::uint32_t>(names_.size());
  names_.push_back(file);
  data_.push_back(!native::pseudo_file(file));
  ids_.emplace(file, id);
  latest_.emplace_back();
  floor_.emplace_back();
  bytes_ += 2 * file.size() + file_bytes;
  return id;
}

void file_window::add(std::int64_t t_ns, std::int64_t realtime_offset_ns,
                      const iolive::live_reading& reading) {
  if (!readings_.empty() && t_ns < readings_.back().t_ns) return;  // out of order
  auto& segment = segments_[reading.segment];
  segment.clear();
  for (auto& [file, c] : reading.files)
    segment[file] = {c.read_ops + c.write_ops, c.read_bytes + c.write_bytes,
                     c.read_time + c.write_time + c.meta_time};
  if (reading.start_realtime_ns != 0) {
    auto start = reading.start_realtime_ns - realtime_offset_ns;
    if (!start_known_ || start < start_ns_) start_ns_ = start;
    start_known_ = true;
  }
  // Each file's totals over every segment the process counted into.
  std::vector<totals> now(names_.size());
  for (auto& [path, files] : segments_)
    for (auto& [file, at] : files) {
      auto id = intern(file);
      if (id >= now.size()) now.resize(names_.size());
      now[id].ops += at.ops;
      now[id].bytes += at.bytes;
      now[id].time += at.time;
    }
  std::uint32_t changed = 0;
  for (std::uint32_t id = 0; id < now.size(); ++id) {
    if (now[id] == latest_[id]) continue;
    latest_[id] = now[id];
    entries_.push_back({id, now[id]});
    ++changed;
  }
  readings_.push_back({t_ns, changed});
  bytes_ += reading_bytes + changed * entry_bytes;
  enforce(t_ns);
}

void file_window::evict_front() {
  auto& r = readings_.front();
  for (std::uint32_t i = 0; i < r.entries; ++i) {
    floor_[entries_.front().file] = entries_.front().at;
    entries_.pop_front();
  }
  floor_t_ns_ = r.t_ns;
  std::size_t b = reading_bytes + r.entries * entry_bytes;
  bytes_ -= b;
  evicted_.evicted_bytes += b;
  evicted_.evicted_entries += r.entries;
  ++evicted_.evicted_readings;
  readings_.pop_front();
}

void file_window::enforce(std::int64_t now_ns) {
  auto oldest_kept = now_ns - static_cast<std::int64_t>(limits_.span_s * 1e9);
  while (readings_.size() > 1 &&
         (readings_.front().t_ns < oldest_kept || bytes_ > limits_.max_bytes))
    evict_front();
}

bool file_window::at_focus(std::uint32_t id, const native::pc_focus& focus) const {
  if (!data_[id]) return false;
  native::pc_focus files_only;
  files_only.file = focus.file;
  native::sampled_thread where;  // the process as a whole: no thread, stack or wait
  where.file = names_[id];
  return native::focus_matches(files_only, {}, where);
}

std::optional<library_io> file_window::count(const native::pc_focus& focus,
                                             const native::sampled_process& process,
                                             double since) const {
  if (readings_.empty() || focus.matches_nothing || !focus.sync.empty()) return std::nullopt;
  bool whole = focus.code.empty();
  for (auto& m : focus.machine) {
    if (m.host != process.host) return std::nullopt;
    if (m.pid != 0 ? m.pid != process.pid
                   : !m.process.empty() && m.process != native::resource_part(process.name))
      return std::nullopt;
    if (m.tid != 0 || !m.thread.empty()) whole = false;
  }
  if (!whole && focus.file.empty()) return std::nullopt;
  std::vector<std::uint32_t> ids;
  for (std::uint32_t id = 0; id < names_.size(); ++id)
    if (at_focus(id, focus)) ids.push_back(id);
  if (ids.empty()) return std::nullopt;

  // The totals at the latest reading at or before `since`: what came before is not the focus's.
  auto since_ns = static_cast<std::int64_t>(since * 1e9);
  auto after = std::upper_bound(readings_.begin(), readings_.end(), since_ns,
                                [](std::int64_t x, const reading& r) { return x < r.t_ns; });
  const bool evicted = evicted_.evicted_readings > 0;
  std::vector<totals> base = evicted ? floor_ : std::vector<totals>(names_.size());
  std::int64_t from_ns = evicted ? floor_t_ns_ : since_ns;
  auto apply = [&](std::size_t readings) {  // the first `readings` held readings' entries
    std::size_t e = 0;
    for (std::size_t r = 0; r < readings; ++r)
      for (std::uint32_t i = 0; i < readings_[r].entries; ++i, ++e)
        base[entries_[e].file] = entries_[e].at;
    from_ns = readings_[readings - 1].t_ns;
  };
  if (after != readings_.begin()) {
    apply(static_cast<std::size_t>(after - readings_.begin()));
  } else if (!evicted && !(start_known_ && start_ns_ >= since_ns)) {
    // The process counted before `since` and no reading is that old (the engine began
    // watching it later): its first reading is where the focus's counts start.
    apply(1);
  } else if (!evicted) {
    from_ns = std::max(since_ns, start_ns_);
  }
  // Else: evicted, the counts start at the oldest reading held, as the stack samples do; or
  // the process started at or after `since`: everything it counted is the focus's.

  library_io io;
  for (auto id : ids) {
    io.ops += std::max(0.0, latest_[id].ops - base[id].ops);
    io.bytes += std::max(0.0, latest_[id].bytes - base[id].bytes);
    io.time += std::max(0.0, latest_[id].time - base[id].time);
  }
  io.from = static_cast<double>(from_ns) / 1e9;
  io.to = static_cast<double>(readings_.back().t_ns) / 1e9;
  io.files = ids.size();
  io.whole = whole;
  return io;
}

file_window_stats file_window::stats() const {
  auto s = evicted_;
  s.readings = readings_.size();
  s.entries = entries_.size();
  s.files = names_.size();
  s.bytes = bytes_;
  s.oldest = readings_.empty() ? 0 : static_cast<double>(readings_.front().t_ns) / 1e9;
  return s;
}

}  // namespace perfdm::window
