#include "log/log_counters.hpp"

#include <cstdio>
#include <cstring>

namespace perfdm {

void encode_log_counters(std::uint64_t record_id, const std::vector<log_counter>& counters,
                         std::vector<std::uint8_t>& out) {
  out.reserve(out.size() + log_counters_header_bytes + log_counter_bytes * counters.size());
  byte_sink s(out);
  s.u64(record_id);
  s.u32(static_cast<std::uint32_t>(counters.size()));
  for (const auto& c : counters) {
    s.u64(c.counter_id);
    s.u8(c.kind);
    if (c.kind == log_counter::integer) {
      s.i64(c.i);
    } else {
      s.f64(c.f);
    }
  }
}

namespace {

// Decodes in place, calling fn(record id, counter) for each; checks the size first.
template <class F>
std::uint64_t walk_counters(const std::uint8_t* data, std::size_t size, F&& fn) {
  if (size < log_counters_header_bytes) {
    throw log_error("counters record of " + std::to_string(size) + " bytes, shorter than its " +
                    std::to_string(log_counters_header_bytes) + "-byte header");
  }
  std::uint64_t record_id;
  std::uint32_t n;
  std::memcpy(&record_id, data, 8);
  std::memcpy(&n, data + 8, 4);
  if ((size - log_counters_header_bytes) / log_counter_bytes != n ||
      (size - log_counters_header_bytes) % log_counter_bytes != 0) {
    throw log_error("counters record " + std::to_string(record_id) + " of " +
                    std::to_string(size) + " bytes does not hold the " + std::to_string(n) +
                    " counters it announces");
  }
  const std::uint8_t* p = data + log_counters_header_bytes;
  for (std::uint32_t k = 0; k < n; ++k, p += log_counter_bytes) {
    log_counter c;
    std::memcpy(&c.counter_id, p, 8);
    const std::uint8_t kind = p[8];
    if (kind == log_counter::integer) {
      c.kind = log_counter::integer;
      std::memcpy(&c.i, p + 9, 8);
    } else if (kind == log_counter::real) {
      c.kind = log_counter::real;
      std::memcpy(&c.f, p + 9, 8);
    } else {
      throw log_error("counters record " + std::to_string(record_id) + ": counter " +
                      std::to_string(k) + " has unknown value kind " + std::to_string(kind));
    }
    fn(record_id, c);
  }
  return record_id;
}

}  // namespace

void decode_log_counters(const std::uint8_t* data, std::size_t size, std::uint64_t& record_id,
                         std::vector<log_counter>& counters) {
  counters.clear();
  record_id = walk_counters(data, size, [&](std::uint64_t, const log_counter& c) {
    counters.push_back(c);
  });
}

void print_log_counters(const log_record_view& record, log_row_sink& sink) {
  char unnamed[40];
  walk_counters(record.data, record.size, [&](std::uint64_t record_id, const log_counter& c) {
    std::string_view counter;
    const log_name* n = sink.name(c.counter_id);
    if (n && n->printable()) {
      counter = n->bytes;
    } else {
      const int len = std::snprintf(unnamed, sizeof unnamed, "<counter 0x%016llx>",
                                    static_cast<unsigned long long>(c.counter_id));
      counter = std::string_view(unnamed, static_cast<std::size_t>(len));
    }
    sink.row(record_id,
             counter, c.kind == log_counter::integer ? log_value::of(c.i) : log_value::of(c.f));
  });
}

}  // namespace perfdm
