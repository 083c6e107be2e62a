#include "log/log_io_records.hpp"

#include <cstdio>
#include <cstring>

#include "log/log_format.hpp"

namespace perfdm {

namespace {

template <class Record>
Record decode_fixed(const std::uint8_t* data, std::size_t size, std::size_t least,
                    const char* what) {
  if (size < least || size > sizeof(Record)) {
    throw log_error(std::string(what) + " record of " + std::to_string(size) + " bytes (expected " +
                    std::to_string(least) +
                    (least == sizeof(Record) ? "" : " to " + std::to_string(sizeof(Record))) + ")");
  }
  Record r{};
  std::memcpy(&r, data, size);
  return r;
}

}  // namespace

log_posix_record decode_posix_record(const std::uint8_t* data, std::size_t size) {
  return decode_fixed<log_posix_record>(data, size, darshan::posix_record_size, "POSIX");
}

log_stdio_record decode_stdio_record(const std::uint8_t* data, std::size_t size) {
  return decode_fixed<log_stdio_record>(data, size, sizeof(log_stdio_record), "STDIO");
}

log_mpiio_record decode_mpiio_record(const std::uint8_t* data, std::size_t size) {
  return decode_fixed<log_mpiio_record>(data, size, sizeof(log_mpiio_record), "MPI-IO");
}

void encode_heatmap_record(const log_heatmap_record& r, std::vector<std::uint8_t>& out) {
  byte_sink s(out);
  s.u64(r.id);
  s.i64(r.rank);
  s.f64(r.bin_width_seconds);
  s.i64(std::int64_t(r.write_bins.size()));
  for (const auto b : r.write_bins) s.i64(b);
  for (const auto b : r.read_bins) s.i64(b);
}

log_heatmap_record decode_heatmap_record(const std::uint8_t* data, std::size_t size) {
  byte_cursor c(data, size, "HEATMAP record");
  log_heatmap_record r;
  r.id = c.u64();
  r.rank = c.i64();
  r.bin_width_seconds = c.f64();
  const std::int64_t n = c.i64();
  if (n < 0 || std::uint64_t(n) * 16 != c.left()) {
    throw log_error("HEATMAP record announces " + std::to_string(n) + " bins in " +
                    std::to_string(c.left()) + " bytes");
  }
  r.write_bins.resize(std::size_t(n));
  r.read_bins.resize(std::size_t(n));
  for (auto& b : r.write_bins) b = c.i64();
  for (auto& b : r.read_bins) b = c.i64();
  return r;
}

void encode_trace_record(const log_trace_record& r, std::vector<std::uint8_t>& out) {
  byte_sink s(out);
  s.u64(r.id);
  s.i64(r.rank);
  s.i64(0);  // shared_record: traces are never reduced
  char host[64] = {};
  std::memcpy(host, r.hostname.data(), std::min<std::size_t>(r.hostname.size(), 63));
  s.bytes(host, sizeof host);
  s.i64(std::int64_t(r.writes.size()));
  s.i64(std::int64_t(r.reads.size()));
  for (const auto* list : {&r.writes, &r.reads}) {
    for (const auto& seg : *list) {
      s.i64(seg.offset);
      s.i64(seg.length);
      s.f64(seg.start);
      s.f64(seg.end);
      s.u64(seg.thread);
    }
  }
}

log_trace_record decode_trace_record(const std::uint8_t* data, std::size_t size) {
  byte_cursor c(data, size, "DXT record");
  log_trace_record r;
  r.id = c.u64();
  r.rank = c.i64();
  c.i64();
  const auto* host = reinterpret_cast<const char*>(c.take(64));
  r.hostname.assign(host, strnlen(host, 64));
  const std::int64_t writes = c.i64();
  const std::int64_t reads = c.i64();
  if (writes < 0 || reads < 0 || std::uint64_t(writes + reads) * 40 != c.left()) {
    throw log_error("DXT record announces " + std::to_string(writes) + " writes and " +
                    std::to_string(reads) + " reads in " + std::to_string(c.left()) + " bytes");
  }
  for (auto* list : {&r.writes, &r.reads}) {
    list->resize(std::size_t(list == &r.writes ? writes : reads));
    for (auto& seg : *list) {
      seg.offset = c.i64();
      seg.length = c.i64();
      seg.start = c.f64();
      seg.end = c.f64();
      seg.thread = c.u64();
    }
  }
  return r;
}

void print_io_posix(const log_record_view& record, log_row_sink& sink) {
  const log_posix_record r = decode_posix_record(record.data, record.size);
  sink.row(r.id, "rank", log_value::of(r.rank));
  for (int i = 0; i < darshan::POSIX_NUM_INDICES; ++i) {
    sink.row(r.id, darshan::posix_counter_names[i], log_value::of(r.counters[i]));
  }
  for (int i = 0; i < darshan::POSIX_F_NUM_INDICES; ++i) {
    sink.row(r.id, darshan::posix_f_counter_names[i], log_value::of(r.fcounters[i]));
  }
  const std::size_t extra = (record.size - darshan::posix_record_size) / 8;
  for (std::size_t i = 0; i < extra; ++i) {
    sink.row(r.id, posix_extra_counter_names[i], log_value::of(r.extra[i]));
  }
}

void print_io_stdio(const log_record_view& record, log_row_sink& sink) {
  const log_stdio_record r = decode_stdio_record(record.data, record.size);
  sink.row(r.id, "rank", log_value::of(r.rank));
  for (int i = 0; i < darshan::STDIO_NUM_INDICES; ++i) {
    sink.row(r.id, darshan::stdio_counter_names[i], log_value::of(r.counters[i]));
  }
  for (int i = 0; i < darshan::STDIO_F_NUM_INDICES; ++i) {
    sink.row(r.id, darshan::stdio_f_counter_names[i], log_value::of(r.fcounters[i]));
  }
}

void print_io_mpiio(const log_record_view& record, log_row_sink& sink) {
  const log_mpiio_record r = decode_mpiio_record(record.data, record.size);
  sink.row(r.id, "rank", log_value::of(r.rank));
  for (int i = 0; i < darshan::MPIIO_NUM_INDICES; ++i) {
    sink.row(r.id, darshan::mpiio_counter_names[i], log_value::of(r.counters[i]));
  }
  for (int i = 0; i < darshan::MPIIO_F_NUM_INDICES; ++i) {
    sink.row(r.id, darshan::mpiio_f_counter_names[i], log_value::of(r.fcounters[i]));
  }
}

void print_io_heatmap(const log_record_view& record, log_row_sink& sink) {
  const log_heatmap_record r = decode_heatmap_record(record.data, record.size);
  sink.row(r.id, "rank", log_value::of(r.rank));
  sink.row(r.id, "HEATMAP_F_BIN_WIDTH_SECONDS", log_value::of(r.bin_width_seconds));
  char name[48];
  for (std::size_t i = 0; i < r.read_bins.size(); ++i) {
    std::snprintf(name, sizeof name, "HEATMAP_READ_BIN_%zu", i);
    sink.row(r.id, name, log_value::of(r.read_bins[i]));
  }
  for (std::size_t i = 0; i < r.write_bins.size(); ++i) {
    std::snprintf(name, sizeof name, "HEATMAP_WRITE_BIN_%zu", i);
    sink.row(r.id, name, log_value::of(r.write_bins[i]));
  }
}

void print_io_trace(const log_record_view& record, log_row_sink& sink) {
  const log_trace_record r = decode_trace_record(record.data, record.size);
  sink.row(r.id, "rank", log_value::of(r.rank));
  sink.row(r.id, "hostname", log_value::of_text(r.hostname));
  char name[48], value[160];
  for (const auto* list : {&r.writes, &r.reads}) {
    const char* kind = list == &r.writes ? "write" : "read";
    for (std::size_t i = 0; i < list->size(); ++i) {
      const auto& s = (*list)[i];
      std::snprintf(name, sizeof name, "%s_%zu", kind, i);
      std::snprintf(value, sizeof value, "offset %lld length %lld start %.6f end %.6f thread %llu",
                    static_cast<long long>(s.offset), static_cast<long long>(s.length), s.start,
                    s.end, static_cast<unsigned long long>(s.thread));
      sink.row(r.id, name, log_value::of_text(value));
    }
  }
}

}  // namespace perfdm
