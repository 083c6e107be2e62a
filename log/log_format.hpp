// The perfdm log format (docs/LOG-FORMAT.md): its constants, the job record, stable ids for
// names, the byte codecs every region uses, and the error readers and writers throw.
// Plain C++: no actors, no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfdm {

namespace logfmt {

// First 8 bytes of a log: this u64 in the writer's byte order. On a little-endian writer the
// bytes read "PFDMLOG\x1a"; a reader that sees the value byte-swapped knows the log came
// from a machine of the other byte order.
inline constexpr std::uint64_t magic = 0x1A474F4C4D444650ULL;
inline constexpr std::uint64_t magic_swapped = 0x5046444D4C4F471AULL;
static_assert(__builtin_bswap64(magic) == magic_swapped);
inline constexpr std::uint32_t format_version = 1;

inline constexpr std::uint32_t compression_zlib = 1;
inline constexpr std::uint32_t compression_zstd = 2;  // log_codec.hpp

// The 32-byte preamble (written once) and the index block after it (rewritten on finish).
inline constexpr std::size_t preamble_size = 32;
inline constexpr std::size_t index_fixed_size = 16;  // state, count, file size
inline constexpr std::size_t index_entry_size = 40;
inline constexpr std::size_t index_crc_size = 4;
inline constexpr std::uint32_t max_region_capacity = 65536;
inline constexpr std::uint32_t state_writing = 0;
inline constexpr std::uint32_t state_complete = 1;

// Every region starts with a 56-byte frame header, so regions can be walked without the index.
inline constexpr std::uint32_t frame_magic = 0x47524650;  // bytes "PFRG" on little-endian
inline constexpr std::size_t frame_header_size = 56;
inline constexpr std::size_t module_name_size = 16;

// Region (module) ids: 0 and 1 are the core's, 2-15 reserved, modules use 16 and above.
inline constexpr std::uint32_t region_job = 0;
inline constexpr std::uint32_t region_names = 1;
inline constexpr std::uint32_t first_module_id = 16;
inline constexpr std::uint32_t job_version = 1;
inline constexpr std::uint32_t names_version = 1;

// Region flags (frame header and index entry).
inline constexpr std::uint32_t flag_partial = 1;  // the module (or name pool) ran out of memory

// Name table entry flags.
inline constexpr std::uint32_t name_not_printable = 1;

// Largest module record payload and largest name, in bytes (writer refuses, reader rejects).
inline constexpr std::uint32_t max_record_bytes = 1u << 20;
inline constexpr std::uint32_t max_name_bytes = 1u << 20;
// Largest string or list the reader accepts inside the job record.
inline constexpr std::uint32_t max_job_string_bytes = 16u << 20;
inline constexpr std::uint32_t max_job_list_items = 1u << 20;

inline constexpr std::size_t index_block_size(std::uint32_t capacity) {
  return index_fixed_size + index_entry_size * capacity + index_crc_size;
}
inline constexpr std::size_t header_size(std::uint32_t capacity) {
  return preamble_size + index_block_size(capacity);
}

}  // namespace logfmt

// Every problem a log reader or writer reports: the message names the problem.
struct log_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// 64-bit FNV-1a of the bytes: the stable id of a name (same bytes, same id, in any process).
std::uint64_t log_name_id(const void* bytes, std::size_t size);
inline std::uint64_t log_name_id(std::string_view s) { return log_name_id(s.data(), s.size()); }

// A module or region name: 1-16 characters of [A-Za-z0-9_.-] (it is stored in 16 bytes).
bool log_valid_region_name(std::string_view name);

// True when no byte is a control character (< 0x20 or 0x7f): such a name prints as text.
bool log_bytes_printable(std::string_view bytes);

// CRC-32 (zlib's crc32: reflected polynomial 0xEDB88320, init and final xor 0xFFFFFFFF).
std::uint32_t log_crc32(std::uint32_t crc, const void* data, std::size_t size);

// The job record: region 0.
struct job_record {
  std::string command_line;
  std::string host;
  std::int64_t start_ns = 0;  // nanoseconds since the Unix epoch
  std::int64_t end_ns = 0;
  std::vector<std::pair<std::string, std::string>> metadata;  // key=value, in order
  std::vector<std::uint64_t> pids;                            // process ids observed

  bool operator==(const job_record& o) const {
    return command_line == o.command_line && host == o.host && start_ns == o.start_ns &&
           end_ns == o.end_ns && metadata == o.metadata && pids == o.pids;
  }
};

// Appends fields in this machine's byte order (the log's byte order).
class byte_sink {
 public:
  explicit byte_sink(std::vector<std::uint8_t>& out) : out_(out) {}
  void bytes(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    out_.insert(out_.end(), b, b + n);
  }
  void u8(std::uint8_t v) { out_.push_back(v); }
  void u32(std::uint32_t v) { bytes(&v, sizeof v); }
  void u64(std::uint64_t v) { bytes(&v, sizeof v); }
  void i64(std::int64_t v) { bytes(&v, sizeof v); }
  void f64(double v) { bytes(&v, sizeof v); }
  // u32 length, then the bytes.
  void str(std::string_view s) {
    u32(static_cast<std::uint32_t>(s.size()));
    bytes(s.data(), s.size());
  }

 private:
  std::vector<std::uint8_t>& out_;
};

// Reads fields from a byte range; every read past the end throws log_error naming `what`.
class byte_cursor {
 public:
  byte_cursor(const std::uint8_t* p, std::size_t n, std::string what)
      : p_(p), end_(p + n), what_(std::move(what)) {}
  std::size_t left() const { return static_cast<std::size_t>(end_ - p_); }
  const std::uint8_t* take(std::size_t n) {
    if (left() < n) {
      throw log_error(what_ + ": " + std::to_string(n) + " bytes needed, " +
                      std::to_string(left()) + " left");
    }
    const std::uint8_t* r = p_;
    p_ += n;
    return r;
  }
  template <class T>
  T get() {
    T v;
    std::memcpy(&v, take(sizeof v), sizeof v);
    return v;
  }
  std::uint8_t u8() { return get<std::uint8_t>(); }
  std::uint32_t u32() { return get<std::uint32_t>(); }
  std::uint64_t u64() { return get<std::uint64_t>(); }
  std::int64_t i64() { return get<std::int64_t>(); }
  double f64() { return get<double>(); }

 private:
  const std::uint8_t* p_;
  const std::uint8_t* end_;
  std::string what_;
};

// "POSIX (id 16)", "job (id 0)": how messages name a region.
std::string log_region_label(std::uint32_t id, std::string_view name);

}  // namespace perfdm
