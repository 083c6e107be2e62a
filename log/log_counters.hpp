// The generic "counters" record payload, for modules that need nothing of their own:
//   u64 record id, u32 count, then count x (u64 counter name id, u8 kind, 8-byte value)
// kind 0: the value is an i64, kind 1: an f64. Counter names are ids in the name table, so a
// counter name is stored once per log. print_log_counters() prints it: one row per counter.
#pragma once

#include <cstdint>
#include <vector>

#include "log/log_print.hpp"

namespace perfdm {

struct log_counter {
  enum kind_t : std::uint8_t { integer = 0, real = 1 } kind = integer;
  std::uint64_t counter_id = 0;  // id of the counter's name (log_name_id)
  std::int64_t i = 0;
  double f = 0;

  static log_counter of(std::uint64_t counter_id, std::int64_t v) {
    return {integer, counter_id, v, 0};
  }
  static log_counter of(std::uint64_t counter_id, double v) { return {real, counter_id, 0, v}; }
  bool operator==(const log_counter& o) const {
    return kind == o.kind && counter_id == o.counter_id &&
           (kind == integer ? i == o.i : (f == o.f || (f != f && o.f != o.f)));
  }
};

inline constexpr std::size_t log_counters_header_bytes = 12;
inline constexpr std::size_t log_counter_bytes = 17;

// Appends the payload of one record to `out`.
void encode_log_counters(std::uint64_t record_id, const std::vector<log_counter>& counters,
                         std::vector<std::uint8_t>& out);
// Decodes one payload; throws log_error when it is malformed.
void decode_log_counters(const std::uint8_t* data, std::size_t size, std::uint64_t& record_id,
                         std::vector<log_counter>& counters);

// The printer of the counters payload: counter column is the counter's name (or
// `<counter 0x...>` when the name table lacks it). Register it for any module using it:
//   default_log_printers().add(id, "NAME", version, print_log_counters);
void print_log_counters(const log_record_view& record, log_row_sink& sink);

}  // namespace perfdm
