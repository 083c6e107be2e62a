// The values the frames test writers put in frame i of thread t, and the check of a frame
// read back against them (tests/frames/writer.cpp, writer_c.c, tests/frames_*_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>

#include "test_frames.h"

namespace frames_test {

inline std::string label_of(int thread, std::uint64_t i) {
  char label[64];
  std::snprintf(label, sizeof label, "t%d-i%llu-long-tail", thread,
                static_cast<unsigned long long>(i));
  return std::string(label).substr(0, 12);  // char label[13]: 12 characters and a NUL
}

inline void fill(perfdm_sample_frame& f, int thread, std::uint64_t i) {
  PERFDM_sample_SET_small(&f, i & 0xff);
  PERFDM_sample_SET_thread(&f, thread);
  PERFDM_sample_SET_index(&f, i);
  PERFDM_sample_SET_odd(&f, i % 2);
  PERFDM_sample_SET_negative(&f, -static_cast<int>(i % 1000));
  char label[64];
  std::snprintf(label, sizeof label, "t%d-i%llu-long-tail", thread,
                static_cast<unsigned long long>(i));
  PERFDM_sample_SET_label(&f, label);
  PERFDM_sample_SET_quarter(&f, static_cast<double>(i) * 0.25);
  PERFDM_sample_SET_half(&f, static_cast<float>(i % 1000) * 0.5f);
  PERFDM_sample_SET_tiny(&f, -static_cast<int>(i % 100));
  PERFDM_sample_SET_medium(&f, i & 0xffff);
  PERFDM_sample_SET_big(&f, static_cast<std::uint32_t>(i * 3));
  PERFDM_sample_SET_wide(&f, -static_cast<std::int64_t>(i) * 1000);
}

// True when every field of a frame read back is what fill wrote for its thread and index.
inline bool consistent(const perfdm_sample_frame& f) {
  const std::uint64_t i = f.index;
  perfdm_sample_frame expected;
  std::memset(&expected, 0, sizeof expected);
  fill(expected, f.thread, i);
  return f.small == expected.small && f.odd == expected.odd && f.negative == expected.negative &&
         std::memcmp(f.label, expected.label, 13) == 0 && f.quarter == expected.quarter &&
         f.half == expected.half && f.tiny == expected.tiny && f.medium == expected.medium &&
         f.big == expected.big && f.wide == expected.wide &&
         std::string(f.label) == label_of(f.thread, i);
}

inline perfdm_sample_frame as_sample(const std::byte* p) {
  perfdm_sample_frame f;
  std::memcpy(&f, p, sizeof f);
  return f;
}

// Takes the sample frames a reader polls: whether each is what its writer wrote, which
// (thread, index) pairs arrived, and how many arrived twice. Pass by reference to poll.
struct frame_check {
  std::map<int, std::set<std::uint64_t>> seen;
  bool consistent = true;
  std::uint64_t duplicates = 0;

  void operator()(const std::byte* p, std::int64_t) {
    const auto f = as_sample(p);
    consistent = consistent && frames_test::consistent(f);
    if (!seen[f.thread].insert(f.index).second) ++duplicates;
  }
  std::uint64_t total() const {
    std::uint64_t n = 0;
    for (const auto& [thread, indices] : seen) n += indices.size();
    return n;
  }
};

}  // namespace frames_test
