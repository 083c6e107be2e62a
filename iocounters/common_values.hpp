// Darshan's "common values" of a record (darshan-runtime/lib/darshan-common.h): the access
// sizes or strides a file saw, each with an exact count, and the four most frequent among them
// as the record's ACCESS1..4 or STRIDE1..4 counters. A record tracks at most 32 distinct
// values; once it has 32, a new value is ignored for good (the value 0 counts among the 32).
// After each operation the value's count is placed among the four slots, kept sorted by count,
// then by value, both descending; the value 0 is never placed. Plain data: it lives in a
// shared segment and is copied with memcpy.
#pragma once

#include <cstdint>

namespace perfdm::io {

struct common_values {
  static constexpr int max_tracked = 32;
  std::int64_t values[max_tracked];
  std::int64_t counts[max_tracked];
  std::int32_t tracked;
  std::int32_t unused;

  // Counts one occurrence of `v`; returns its count so far, or 0 when it is not tracked.
  std::int64_t add(std::int64_t v) {
    for (int i = 0; i < tracked; ++i)
      if (values[i] == v) return ++counts[i];
    if (tracked == max_tracked) return 0;
    values[tracked] = v;
    counts[tracked] = 1;
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
