// perfdm's reader of a frames segment (docs/FRAMES.md §4, §6). It maps the segment read-only,
// checks its header, and takes every frame committed since the last poll, lane by lane,
// counting exactly what it could not read: frames overwritten before it came (lost) and,
// once the writer is gone, frames begun but never committed (torn). It never reports a
// frame twice or a torn frame as data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "shm/frame_clock.hpp"
#include "shm/layout.hpp"
#include "shm/segment_format.hpp"

namespace perfdm::shm {

class frame_reader {
 public:
  // Opens perfdm.<pid>.<handle> by name. Throws shm_error when there is no such segment or
  // its header is not a valid frames header (magic, version, sizes against the mapping,
  // descriptor and hash); the message says which.
  explicit frame_reader(const std::string& segment_name);
  ~frame_reader();
  frame_reader(const frame_reader&) = delete;
  frame_reader& operator=(const frame_reader&) = delete;
  frame_reader(frame_reader&& other) noexcept;  // `other` is left empty: destroy or assign only
  frame_reader& operator=(frame_reader&& other) noexcept;

  const frame_layout& layout() const { return layout_; }
  const std::string& name() const { return name_; }
  std::uint32_t lane_count() const { return lanes_; }
  std::uint32_t lane_capacity() const { return capacity_; }

  // Calls f(const std::byte* frame, std::int64_t monotonic_ns) for every frame committed
  // since the last poll (lane by lane, in order within a lane); returns how many. `frame`
  // is a private copy, valid during the call.
  template <class F>
  std::size_t poll(F&& f);

  // Same, and also tells f the lane: f(frame, monotonic_ns, lane).
  template <class F>
  std::size_t poll_lanes(F&& f);

  // The writer process exited, or released the segment (writer_state released): counts
  // the lanes whose next slot holds a frame begun but not committed (torn). Only the first
  // call counts; poll until it returns 0 before calling this.
  void writer_gone();

  struct counts {
    std::uint64_t read = 0, lost = 0, torn = 0;
    std::uint64_t no_lane_drops = 0;     // the writer found every lane taken
    std::uint64_t transition_drops = 0;  // the writer was opening or releasing the segment
  };
  counts counters() const;
  int writer_state() const;  // format::writer_state
  int writer_pid() const;
  int target_pid() const;

  // Σ head over the lanes: frames committed so far (read + lost once drained).
  std::uint64_t committed() const;

  std::uint32_t clock() const { return clock_kind_; }  // format::clock_kind of the segment
  // With clock_reader the writer stamps frames with the header's reader_clock_ns, which
  // every poll sets to CLOCK_MONOTONIC now (never backwards, whichever reader is faster):
  // a frame is stamped with the time of the last poll before it was written. The reader
  // must therefore poll at least as often as stamps need to be accurate, even when idle.
  bool uses_reader_clock() const { return reader_clock_ != nullptr; }
  // Sets reader_clock_ns to now (clock_reader segments only; poll does it first).
  void advance_reader_clock();
  // The header's reader_clock_ns (0 for other clocks).
  std::int64_t reader_clock_ns() const;

 private:
  void map_reader_clock();
  const std::byte* lane(std::uint32_t i) const { return lanes_base_ + std::size_t(i) * stride_; }
  static std::uint64_t load_acquire(const std::byte* p) {
    return __atomic_load_n(reinterpret_cast<const std::uint64_t*>(p), __ATOMIC_ACQUIRE);
  }

  std::string name_;
  void* map_ = nullptr;
  std::size_t map_size_ = 0;
  const format::header* header_ = nullptr;
  const std::byte* lanes_base_ = nullptr;
  frame_layout layout_;
  std::uint32_t frame_size_ = 0, lanes_ = 0, capacity_ = 0;
  std::size_t stride_ = 0;
  std::vector<std::uint64_t> next_;  // per lane: frames taken (read or lost)
  std::vector<std::byte> buffer_;
  counts counts_;
  bool gone_ = false;
  frame_clock clock_;
  std::uint32_t clock_kind_ = format::clock_monotonic;
  void* clock_map_ = nullptr;              // the header page mapped writable (clock_reader)
  std::uint64_t* reader_clock_ = nullptr;  // header::reader_clock_ns in clock_map_
};

template <class F>
std::size_t frame_reader::poll(F&& f) {
  return poll_lanes([&](const std::byte* frame, std::int64_t ns, std::uint32_t) { f(frame, ns); });
}

template <class F>
std::size_t frame_reader::poll_lanes(F&& f) {
  if (reader_clock_) advance_reader_clock();
  clock_.refine();
  std::size_t n = 0;
  std::byte* copy = buffer_.data();
  const std::uint64_t mask = capacity_ - 1;
  for (std::uint32_t l = 0; l < lanes_; ++l) {
    const std::byte* base = lane(l);
    const std::uint64_t head = load_acquire(base + format::lane_head);
    std::uint64_t r = next_[l];
    if (head <= r) continue;  // nothing new (a head going back is never believed)
    if (head - r > capacity_) {
      counts_.lost += head - capacity_ - r;
      r = head - capacity_;
    }
    const std::byte* slots = base + format::lane_slots;
    for (; r < head; ++r) {
      const std::byte* slot = slots + (r & mask) * frame_size_;
      const std::uint64_t expected = r + 1;
      if (load_acquire(slot) != expected) {  // already overwritten by a later frame
        ++counts_.lost;
        continue;
      }
      std::memcpy(copy, slot, frame_size_);
      __atomic_thread_fence(__ATOMIC_ACQUIRE);
      if (__atomic_load_n(reinterpret_cast<const std::uint64_t*>(slot), __ATOMIC_RELAXED) !=
          expected) {  // overwritten while copying
        ++counts_.lost;
        continue;
      }
      std::uint64_t stamp;
      std::memcpy(&stamp, copy + 8, sizeof stamp);
      f(static_cast<const std::byte*>(copy), clock_.to_monotonic_ns(stamp), l);
      ++counts_.read;
      ++n;
    }
    next_[l] = r;
  }
  return n;
}

}  // namespace perfdm::shm
