// The records of the I/O modules `perfdm io` writes (docs/LOG-FORMAT.md §6.5, docs/IO.md):
// Darshan's record layouts (Darshan 3.5.0's include/darshan-*-log-format.h), so that a record
// read from a perfdm log and one read from a Darshan log are the same bytes, plus perfdm's own
// POSIX counters after Darshan's. The `perfdm log` printers of each module (one row per
// counter: rank first, then Darshan's counters in record order).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "darshan/darshan_counters.hpp"
#include "log/log_print.hpp"

// perfdm's POSIX counters for calls Darshan's POSIX module does not wrap (docs/IO.md §3 says
// which call feeds which counter), stored after Darshan's record.
#define PERFDM_POSIX_EXTRA_COUNTERS(X) X(POSIX_TRUNCATES) X(POSIX_UNLINKS) X(POSIX_MKDIRS)

namespace perfdm {

enum posix_extra_counter : int {
  PERFDM_POSIX_EXTRA_COUNTERS(PERFDM_DARSHAN_ENUM) POSIX_EXTRA_NUM_INDICES
};
inline constexpr const char* posix_extra_counter_names[] = {
    PERFDM_POSIX_EXTRA_COUNTERS(PERFDM_DARSHAN_NAME)};

// Darshan's POSIX record (704 bytes) and perfdm's counters.
struct log_posix_record {
  std::uint64_t id;
  std::int64_t rank;  // -1: every process of the job had the file (reduced)
  std::int64_t counters[darshan::POSIX_NUM_INDICES];
  double fcounters[darshan::POSIX_F_NUM_INDICES];
  std::int64_t extra[POSIX_EXTRA_NUM_INDICES];
};
static_assert(sizeof(log_posix_record) == darshan::posix_record_size + 8 * POSIX_EXTRA_NUM_INDICES);

// Darshan's STDIO record (248 bytes).
struct log_stdio_record {
  std::uint64_t id;
  std::int64_t rank;
  std::int64_t counters[darshan::STDIO_NUM_INDICES];
  double fcounters[darshan::STDIO_F_NUM_INDICES];
};
static_assert(sizeof(log_stdio_record) == darshan::stdio_record_size);

// Darshan's MPI-IO record (560 bytes).
struct log_mpiio_record {
  std::uint64_t id;
  std::int64_t rank;
  std::int64_t counters[darshan::MPIIO_NUM_INDICES];
  double fcounters[darshan::MPIIO_F_NUM_INDICES];
};
static_assert(sizeof(log_mpiio_record) == darshan::mpiio_record_size);

// One process's heatmap of one API: {u64 id, i64 rank, f64 bin width (s), i64 nbins, i64
// write bins[nbins], i64 read bins[nbins]} (Darshan's record without its two pointers).
struct log_heatmap_record {
  std::uint64_t id;
  std::int64_t rank;
  double bin_width_seconds;
  std::vector<std::int64_t> write_bins;
  std::vector<std::int64_t> read_bins;
};

// One file's per-call trace of one process (Darshan's DXT record): {u64 id, i64 rank, i64
// shared_record, char hostname[64], i64 write_count, i64 read_count}, then the writes, then the
// reads, each {i64 offset, i64 length, f64 start, f64 end, u64 thread}.
struct log_trace_segment {
  std::int64_t offset;
  std::int64_t length;
  double start;
  double end;
  std::uint64_t thread;
};
struct log_trace_record {
  std::uint64_t id;
  std::int64_t rank;
  std::string hostname;
  std::vector<log_trace_segment> writes;
  std::vector<log_trace_segment> reads;
};

// Decoders: throw log_error for a payload of the wrong size.
log_posix_record decode_posix_record(const std::uint8_t* data, std::size_t size);
log_stdio_record decode_stdio_record(const std::uint8_t* data, std::size_t size);
log_mpiio_record decode_mpiio_record(const std::uint8_t* data, std::size_t size);
void encode_heatmap_record(const log_heatmap_record& r, std::vector<std::uint8_t>& out);
log_heatmap_record decode_heatmap_record(const std::uint8_t* data, std::size_t size);
void encode_trace_record(const log_trace_record& r, std::vector<std::uint8_t>& out);
log_trace_record decode_trace_record(const std::uint8_t* data, std::size_t size);

// `perfdm log` printers of the modules.
void print_io_posix(const log_record_view& record, log_row_sink& sink);
void print_io_stdio(const log_record_view& record, log_row_sink& sink);
void print_io_mpiio(const log_record_view& record, log_row_sink& sink);
void print_io_heatmap(const log_record_view& record, log_row_sink& sink);
void print_io_trace(const log_record_view& record, log_row_sink& sink);

}  // namespace perfdm
