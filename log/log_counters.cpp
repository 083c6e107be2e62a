#include "log/log_counters.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>

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

// Checks a record's size against the count it announces; returns the count.
std::uint32_t counters_header(const std::uint8_t* data, std::size_t size,
                              std::uint64_t& record_id) {
  if (size < log_counters_header_bytes) {
    throw log_error("counters record of " + std::to_string(size) + " bytes, shorter than its " +
                    std::to_string(log_counters_header_bytes) + "-byte header");
  }
  std::uint32_t n;
  std::memcpy(&record_id, data, 8);
  std::memcpy(&n, data + 8, 4);
  if ((size - log_counters_header_bytes) / log_counter_bytes != n ||
      (size - log_counters_header_bytes) % log_counter_bytes != 0) {
    throw log_error("counters record " + std::to_string(record_id) + " of " +
                    std::to_string(size) + " bytes does not hold the " + std::to_string(n) +
                    " counters it announces");
  }
  return n;
}

[[noreturn]] void bad_kind(std::uint64_t record_id, std::uint32_t k, std::uint8_t kind) {
  throw log_error("counters record " + std::to_string(record_id) + ": counter " +
                  std::to_string(k) + " has unknown value kind " + std::to_string(kind));
}

// Decodes in place, calling fn(record id, counter) for each; checks the size first.
template <class F>
std::uint64_t walk_counters(const std::uint8_t* data, std::size_t size, F&& fn) {
  std::uint64_t record_id;
  const std::uint32_t n = counters_header(data, size, record_id);
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
      bad_kind(record_id, k, kind);
    }
    fn(record_id, c);
  }
  return record_id;
}

// Checks a whole record (size and every kind) without decoding it; returns the count.
std::uint32_t check_counters(const std::uint8_t* data, std::size_t size, std::uint64_t& record_id) {
  const std::uint32_t n = counters_header(data, size, record_id);
  const std::uint8_t* p = data + log_counters_header_bytes;
  for (std::uint32_t k = 0; k < n; ++k, p += log_counter_bytes) {
    if (p[8] != log_counter::integer && p[8] != log_counter::real) bad_kind(record_id, k, p[8]);
  }
  return n;
}

std::uint64_t counter_id_at(const std::uint8_t* counters, std::uint32_t k) {
  std::uint64_t id;
  std::memcpy(&id, counters + std::size_t{k} * log_counter_bytes, 8);
  return id;
}

// Reduces the counter at `in` into the one at `s` (both point at a counter's 17 bytes).
void reduce_counter(log_reduce_op op, std::uint8_t* s, const std::uint8_t* in) {
  constexpr std::size_t kind = 8, value = 9;
  if (s[kind] == log_counter::integer && in[kind] == log_counter::integer) {
    std::int64_t a, b, r;
    std::memcpy(&a, s + value, 8);
    std::memcpy(&b, in + value, 8);
    if (op == log_reduce_op::min) {
      r = std::min(a, b);
    } else if (op == log_reduce_op::max) {
      r = std::max(a, b);
    } else if (__builtin_add_overflow(a, b, &r)) {  // sum, saturating
      r = b > 0 ? std::numeric_limits<std::int64_t>::max()
                : std::numeric_limits<std::int64_t>::min();
    }
    std::memcpy(s + value, &r, 8);
    return;
  }
  auto as_real = [](const std::uint8_t* c) {
    if (c[kind] == log_counter::real) {
      double d;
      std::memcpy(&d, c + value, 8);
      return d;
    }
    std::int64_t i;
    std::memcpy(&i, c + value, 8);
    return static_cast<double>(i);
  };
  const double a = as_real(s);
  const double b = as_real(in);
  double r;
  if (std::isnan(a) || std::isnan(b)) {  // NaN: no value
    r = std::isnan(a) ? b : a;
  } else if (op == log_reduce_op::min) {
    r = std::min(a, b);
  } else if (op == log_reduce_op::max) {
    r = std::max(a, b);
  } else {
    r = a + b;
  }
  s[kind] = log_counter::real;
  std::memcpy(s + value, &r, 8);
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

void reduce_log_counters(std::vector<std::uint8_t>& shared, const std::uint8_t* payload,
                         std::size_t size, const log_counters_reduction& how) {
  std::uint64_t shared_id, payload_id;
  const std::uint32_t ns = check_counters(shared.data(), shared.size(), shared_id);
  const std::uint32_t ni = check_counters(payload, size, payload_id);
  if (shared_id != payload_id) {
    throw log_error("counters records " + std::to_string(shared_id) + " and " +
                    std::to_string(payload_id) + " have different record ids: not reduced");
  }
  std::uint8_t* s = shared.data() + log_counters_header_bytes;
  const std::uint8_t* in = payload + log_counters_header_bytes;
  auto at = [](auto* counters, std::uint32_t k) {
    return counters + std::size_t{k} * log_counter_bytes;
  };

  // Counters of `payload` that `shared` lacks, by index in `payload`, in order.
  std::vector<std::uint32_t> extra;
  const std::uint32_t common = std::min(ns, ni);
  std::uint32_t same = 0;
  while (same < common && counter_id_at(s, same) == counter_id_at(in, same)) ++same;
  if (same == common) {
    // The usual case: the same counters in the same order (one module, several processes).
    for (std::uint32_t k = 0; k < common; ++k) {
      reduce_counter(how.op(counter_id_at(s, k)), at(s, k), at(in, k));
    }
    for (std::uint32_t k = common; k < ni; ++k) extra.push_back(k);
  } else {
    // Pair the k-th occurrences of each counter id: sort (id, index) on both sides and join.
    using ref = std::pair<std::uint64_t, std::uint32_t>;
    std::vector<ref> a(ns), b(ni);
    for (std::uint32_t k = 0; k < ns; ++k) a[k] = {counter_id_at(s, k), k};
    for (std::uint32_t k = 0; k < ni; ++k) b[k] = {counter_id_at(in, k), k};
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    std::size_t i = 0;
    for (const auto& [id, k] : b) {
      while (i < a.size() && a[i].first < id) ++i;
      if (i < a.size() && a[i].first == id) {
        reduce_counter(how.op(id), at(s, a[i].second), at(in, k));
        ++i;
      } else {
        extra.push_back(k);
      }
    }
    std::sort(extra.begin(), extra.end());
  }
  if (extra.empty()) return;
  const auto n = static_cast<std::uint32_t>(ns + extra.size());
  shared.reserve(shared.size() + extra.size() * log_counter_bytes);
  for (const std::uint32_t k : extra) {
    const std::uint8_t* c = at(in, k);
    shared.insert(shared.end(), c, c + log_counter_bytes);
  }
  std::memcpy(shared.data() + 8, &n, 4);
}

}  // namespace perfdm
