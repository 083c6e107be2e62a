// The streaming log reader. Opening checks the header, finds the regions (from the header
// index when the log is complete and the index valid, else by walking the frame headers,
// stopping at the first incomplete region), and checks every region's CRC-32; problems are
// log_errors naming them. Regions are then read one at a time with chunked decompression
// (zlib or zstd, log_codec.hpp): memory is a few 64 KiB buffers, the decompressor's state
// (zstd: its window, at most 8 MiB) and one record (at most 1 MiB), whatever the size of the
// log; only the name table, when asked for, is held (up to a limit).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "log/log_format.hpp"
#include "log/log_writer.hpp"

namespace perfdm {

using log_region = log_region_entry;

// One entry of the name table.
struct log_name {
  std::uint32_t flags = 0;
  std::string bytes;
  bool printable() const { return (flags & logfmt::name_not_printable) == 0; }
};

struct log_name_table {
  std::unordered_map<std::uint64_t, log_name> names;
  std::uint64_t entries = 0;  // entries in the region
  std::uint64_t dropped = 0;  // entries not kept: over the reader's limit
  const log_name* find(std::uint64_t id) const {
    auto it = names.find(id);
    return it == names.end() ? nullptr : &it->second;
  }
};

struct log_reader_options {
  // Name bytes (plus a 64-byte allowance per name) the reader keeps from the name table.
  std::size_t max_name_table_bytes = 32u << 20;
  // Compressed bytes read from the file at a time.
  std::size_t chunk_bytes = 64u << 10;
};

class log_reader {
 public:
  // Opens and checks `path`. Throws log_error: wrong magic, other byte order, newer format
  // version, unsupported compression, corrupt header, truncation, lengths past the end of the
  // file, CRC mismatch (complete logs). An incomplete log (the writer did not finish) opens
  // with the regions completed before the first incomplete one, and says so in notes().
  explicit log_reader(const std::string& path, log_reader_options options = {});
  ~log_reader();
  log_reader(const log_reader&) = delete;
  log_reader& operator=(const log_reader&) = delete;

  const std::string& path() const { return path_; }
  std::uint32_t format_version() const { return version_; }
  // logfmt::compression_zlib or logfmt::compression_zstd (others are refused on opening).
  std::uint32_t compression() const { return compression_; }
  std::uint64_t file_size() const { return size_; }
  // True when the writer finished the log and its index was valid and used.
  bool complete() const { return complete_; }
  // Why the log was read without its index, where reading stopped, trailing bytes...
  const std::vector<std::string>& notes() const { return notes_; }
  // Usable regions, in file order.
  const std::vector<log_region>& regions() const { return regions_; }
  const log_region* find(std::uint32_t id) const;

  // Decodes region 0 (version 1). Throws log_error when it is corrupt.
  job_record read_job(const log_region& region) const;
  // Streams region 1 (version 1) into a table, keeping names up to the limit.
  log_name_table read_names(const log_region& region) const;
  // Streams a module region, calling `fn(payload, size)` once per record, in order. The
  // payload pointer is valid during the call only.
  void for_each_record(const log_region& region,
                       const std::function<void(const std::uint8_t*, std::size_t)>& fn) const;
  // Streams the uncompressed bytes of any region in chunks.
  void for_each_chunk(const log_region& region,
                      const std::function<void(const std::uint8_t*, std::size_t)>& fn) const;

 private:
  void read_header();
  void read_index(const std::vector<std::uint8_t>& index);
  void walk_frames();
  bool read_frame(std::uint64_t offset, log_region& r, std::string& why) const;
  void check_crcs();
  void pread_exact(std::uint64_t offset, void* data, std::size_t size) const;

  std::string path_;
  log_reader_options options_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::uint32_t version_ = 0;
  std::uint32_t compression_ = 0;
  std::uint32_t capacity_ = 0;
  std::uint64_t header_size_ = 0;
  bool complete_ = false;
  std::vector<std::string> notes_;
  std::vector<log_region> regions_;

  friend class log_region_stream;
};

}  // namespace perfdm
