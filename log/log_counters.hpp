// The generic "counters" record payload, for modules that need nothing of their own:
//   u64 record id, u32 count, then count x (u64 counter name id, u8 kind, 8-byte value)
// kind 0: the value is an i64, kind 1: an f64. Counter names are ids in the name table, so a
// counter name is stored once per log. print_log_counters() prints it: one row per counter;
// reduce_log_counters() folds two records of the same id into one (log_core reductions).
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "log/log_format.hpp"
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

// How counters records of the same record id reduce (log_core::set_counters_reduction), per
// counter name: sum (the default), min or max.
enum class log_reduce_op : std::uint8_t { sum, min, max };

struct log_counters_reduction {
  log_reduce_op default_op = log_reduce_op::sum;
  std::unordered_map<std::uint64_t, log_reduce_op> ops;  // counter name id -> op

  log_counters_reduction& set(std::uint64_t counter_id, log_reduce_op op) {
    ops[counter_id] = op;
    return *this;
  }
  log_counters_reduction& set(std::string_view counter_name, log_reduce_op op) {
    return set(log_name_id(counter_name), op);
  }
  log_reduce_op op(std::uint64_t counter_id) const {
    auto it = ops.find(counter_id);
    return it == ops.end() ? default_op : it->second;
  }
};

// Folds the counters record `payload` into `shared`, a counters record of the same record id:
// a counter present in both gets op(shared value, payload value); one present in `payload`
// only is appended (in payload order); one present in `shared` only stays. A counter name
// appearing k times in a record pairs its k-th occurrences. Two integers give an integer
// (a sum saturates at the i64 limits); otherwise both are taken as f64 and the result is an
// f64. A NaN counts as no value: the other side's value is kept. Throws log_error, leaving
// `shared` unchanged, when either record is malformed or the record ids differ.
void reduce_log_counters(std::vector<std::uint8_t>& shared, const std::uint8_t* payload,
                         std::size_t size, const log_counters_reduction& how);

}  // namespace perfdm
