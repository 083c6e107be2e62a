#include "iocounters/common_values.hpp"

namespace perfdm::io {

void place_common_value(std::int64_t* values, std::int64_t* counts, std::int64_t value,
                        std::int64_t count, bool add_to_slot) {
  if (value == 0) return;
  if (add_to_slot) {
    for (int i = 0; i < 4; ++i)
      if (values[i] == value) {
        count += counts[i];
        break;
      }
  }
  std::int64_t v[4], c[4];
  int n = 0, i = 0;
  // Slots that rank above (value, count) stay first, in order.
  for (; i < 4; ++i) {
    if (counts[i] > count || (counts[i] == count && values[i] > value)) {
      v[n] = values[i];
      c[n] = counts[i];
      ++n;
    } else {
      break;
    }
  }
  if (n == 4) return;
  v[n] = value;
  c[n] = count;
  ++n;
  // Then the others, without the slot that held `value` before.
  for (; n < 4 && i < 4; ++i) {
    if (values[i] == value) continue;
    v[n] = values[i];
    c[n] = counts[i];
    ++n;
  }
  for (; n < 4; ++n) v[n] = c[n] = 0;
  for (int k = 0; k < 4; ++k) {
    values[k] = v[k];
    counts[k] = c[k];
  }
}

void merge_common_values(std::int64_t* values, std::int64_t* counts, std::int64_t* in_values,
                         std::int64_t* in_counts) {
  std::int64_t mine_v[4], mine_c[4];
  for (int k = 0; k < 4; ++k) {
    mine_v[k] = values[k];
    mine_c[k] = counts[k];
  }
  // A value both records list keeps one entry with both counts.
  for (int j = 0; j < 4; ++j)
    for (int k = 0; k < 4; ++k)
      if (in_values[j] == mine_v[k]) {
        in_counts[j] += mine_c[k];
        mine_v[k] = 0;
        mine_c[k] = 0;
      }
  for (int k = 0; k < 4; ++k) values[k] = counts[k] = 0;
  for (int j = 0; j < 4; ++j) place_common_value(values, counts, in_values[j], in_counts[j], true);
  for (int k = 0; k < 4; ++k) place_common_value(values, counts, mine_v[k], mine_c[k], true);
}

}  // namespace perfdm::io
