// The creator's side of a frames segment (docs/FRAMES.md §4): perfdm creates the segment
// with its header before it hands the handle to the observed program, and removes it on
// detach. The segment is not removed when this object goes away: attach and detach may be
// two runs of perfdm.
#pragma once

#include <cstdint>
#include <string>

#include "shm/layout.hpp"
#include "shm/segment_format.hpp"

namespace perfdm::shm {

// The largest segment perfdm creates (its pages are reserved at creation).
constexpr std::uint64_t max_segment_size = std::uint64_t(1) << 30;

struct segment_options {
  std::uint32_t lanes = 16;       // writer threads that can write at once
  std::uint32_t capacity = 4096;  // frames per lane, a power of two
  // The writer's clock (format::clock_kind): what its executable says (perfdm_clock_<S>),
  // the machine's native clock for executables generated before there was a choice.
  std::uint32_t clock = format::native_clock();
};

class segment {
 public:
  // Creates perfdm.<target_pid>.<handle>, sized for the layout and options, with its header
  // (writer_state waiting), its pages reserved. Throws shm_error: handle 0, options out of
  // range, an unknown clock, more than max_segment_size, a segment of that name exists, not enough
  // shared memory, or the system refuses. The segment belongs to the target's user when perfdm may
  // give it away (root attaching to another user's program).
  static segment create(int target_pid, std::uint64_t handle, const frame_layout& layout,
                        segment_options options = {});

  // A fresh non-zero handle (random, so names of successive attaches differ).
  static std::uint64_t new_handle();

  // Removes a segment by name; false when there was none.
  static bool remove(const std::string& name);

  const std::string& name() const { return name_; }
  std::uint64_t handle() const { return handle_; }
  std::uint64_t size() const { return size_; }
  void remove();  // removes the name; mappings stay valid until unmapped

  // attach_options::create_segment for segments of this geometry: creates the segment of a
  // frame type given its layout descriptor, and returns its name.
  static std::string create_for_attach(int target_pid, const std::string& descriptor,
                                       std::uint64_t handle, segment_options options = {});

 private:
  segment(std::string name, std::uint64_t handle, std::uint64_t size)
      : name_(std::move(name)), handle_(handle), size_(size) {}
  std::string name_;
  std::uint64_t handle_ = 0;
  std::uint64_t size_ = 0;
};

}  // namespace perfdm::shm
