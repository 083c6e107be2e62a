// Darshan's "common values" of a record (darshan-runtime/lib/darshan-common.h): the access
// sizes or strides a file saw, each with an exact count, and the four most frequent among them
// as the record's ACCESS1..4 or STRIDE1..4 counters. A record tracks at most 32 distinct
// values; once it has 32, a new value is ignored for good (the value 0 counts among the 32).
// After each operation the value's count is placed among the four slots, kept sorted by count,
// then by value, both descending; the value 0 is never placed. Plain data: it lives in a
// shared segment and is copied with memcpy.
//
// Most files see one to four distinct sizes and strides, so the first four values live in the
// record and the other 28 in a table of their own (`more`, in the segment's common-value area,
// one per record), touched only by a record that goes past four: records stay small and a
// file's memory is paid only by the files that need it. `more` is the writing process's
// address; readers of the segment do not use it.
#pragma once

#include <cstdint>

namespace perfdm::io {

// Values 5 to 32 of a record's common values.
struct common_values_more {
  static constexpr int size = 28;
  std::int64_t values[size];
  std::int64_t counts[size];
};

struct common_values {
  static constexpr int max_tracked = 32;
  static constexpr int inline_tracked = max_tracked - common_values_more::size;
  std::int64_t values[inline_tracked];
  std::int64_t counts[inline_tracked];
  std::int32_t tracked;
  std::int32_t unused;
  common_values_more* more;

  // Counts one occurrence of `v`; returns its count so far, or 0 when it is not tracked.
  std::int64_t add(std::int64_t v) {
    const int here = tracked < inline_tracked ? tracked : inline_tracked;
    for (int i = 0; i < here; ++i)
      if (values[i] == v) return ++counts[i];
    for (int i = 0; i < tracked - inline_tracked; ++i)
      if (more->values[i] == v) return ++more->counts[i];
    if (tracked == max_tracked) return 0;
    if (tracked < inline_tracked) {
      values[tracked] = v;
      counts[tracked] = 1;
    } else {
      more->values[tracked - inline_tracked] = v;
      more->counts[tracked - inline_tracked] = 1;
    }
    ++tracked;
    return 1;
  }
};

// Places (value, count) among the four slots (values[0..3], counts[0..3], sorted by count then
// value, both descending). `add_to_slot`: a slot already holding `value` adds its count to
// `count` (merging two records' slots); otherwise `count` is the value's whole count and
// replaces the slot's. Value 0 is never placed.
void place_common_value(std::int64_t* values, std::int64_t* counts, std::int64_t value,
                        std::int64_t count, bool add_to_slot = false);

// Darshan's merge of another record's four slots into `values`/`counts` (the shared-record
// reduction): values present in both have their counts added, then both records' slots are
// placed into an empty set of four. `in_values`/`in_counts` are changed (duplicates zeroed),
// as the reduction does.
void merge_common_values(std::int64_t* values, std::int64_t* counts, std::int64_t* in_values,
                         std::int64_t* in_counts);

}  // namespace perfdm::io
