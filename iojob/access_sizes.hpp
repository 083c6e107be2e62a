// The most frequent access sizes of a file: Darshan's top four of each record (the
// ACCESS1..4_ACCESS counters with their _COUNT), counts summed over the records, for the
// summary's access pattern in words.
#pragma once

#include <cstdint>
#include <map>

namespace perfdm::io {

struct access_sizes {
  std::map<std::int64_t, std::int64_t> counts;  // size -> accesses

  // A record's four sizes and their four counts (Darshan keeps each four in a row).
  void add(const std::int64_t* size, const std::int64_t* count) {
    for (int i = 0; i < 4; ++i) {
      if (count[i] > 0) counts[size[i]] += count[i];
    }
  }
  // The size with the most accesses; `otherwise` without any.
  std::int64_t most_frequent(std::int64_t otherwise) const {
    std::int64_t best = 0;
    for (const auto& [s, n] : counts) {
      if (n > best) {
        best = n;
        otherwise = s;
      }
    }
    return otherwise;
  }
  bool empty() const { return counts.empty(); }
};

}  // namespace perfdm::io
