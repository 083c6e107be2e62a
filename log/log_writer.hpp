// The log writer: streams regions into NAME.partial, each compressed on its own (a zlib
// stream or a zstd frame) behind a frame header, then rewrites the header index and renames
// the file to NAME (finish()). Until finish() the file stays NAME.partial, and a reader can
// read every region completed so far: a crash loses at most the region being written.
// Memory: two 64 KiB buffers and the compressor's state, whatever the size of the log.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "log/log_codec.hpp"
#include "log/log_format.hpp"

namespace perfdm {

// One region as the index and frame header describe it.
struct log_region_entry {
  std::uint32_t id = 0;
  std::uint32_t version = 0;
  std::uint32_t flags = 0;
  std::string name;
  std::uint64_t offset = 0;  // of the frame header
  std::uint64_t compressed_size = 0;
  std::uint64_t uncompressed_size = 0;
  std::uint32_t crc = 0;  // CRC-32 of the compressed bytes
};

class log_writer {
 public:
  // Creates (truncates) `path`.partial with room in the index for `region_capacity` regions.
  // `level`: -1 (the compression's default: zlib 6, zstd 3), zlib 0..9, zstd 1..19.
  // Throws log_error.
  log_writer(std::string path, std::uint32_t region_capacity, int level = log_default_level,
             log_compression compression = log_compression::zlib);
  // An unfinished writer closes its file as it is, leaving NAME.partial (as a crash would).
  ~log_writer();
  log_writer(const log_writer&) = delete;
  log_writer& operator=(const log_writer&) = delete;

  // Region 0, the job record, in one call.
  void write_job(const job_record& job);

  // Starts a region: `name` is 1-16 bytes of [A-Za-z0-9_.-]; ids are unique in a log.
  void begin_region(std::uint32_t id, std::uint32_t version, std::string_view name,
                    std::uint32_t flags = 0);
  // Raw bytes of the current region's uncompressed payload.
  void write(const void* data, std::size_t size);
  // One module record: u32 length, then the payload (at most logfmt::max_record_bytes).
  void write_record(const void* payload, std::size_t size);
  // Ends the region: the frame header is written last, so a region whose frame header is
  // valid is complete. `add_flags` is or-ed into the flags given to begin_region.
  void end_region(std::uint32_t add_flags = 0);

  // Rewrites the index (state complete), syncs, and puts NAME.partial in NAME's place
  // (log/output_file.hpp: a device such as /dev/null is written into, never replaced).
  void finish();
  // Stops as a crash would: closes the file, no index, the name stays NAME.partial.
  void abandon();

  const std::string& path() const { return path_; }
  std::string partial_path() const { return partial_; }
  const std::vector<log_region_entry>& regions() const { return regions_; }
  std::uint64_t file_size() const { return file_end_; }
  log_compression compression() const { return compression_; }

 private:
  void write_at(std::uint64_t offset, const void* data, std::size_t size);
  void append(const void* data, std::size_t size);
  void compress_staged(bool end);
  std::vector<std::uint8_t> index_block(std::uint32_t state) const;
  void close_fd();

  std::string path_;
  std::string partial_;  // where it is written until finish() (log/output_file.hpp)
  int fd_ = -1;
  std::uint32_t capacity_;
  log_compression compression_;
  std::uint64_t file_end_ = 0;
  bool in_region_ = false;
  bool finished_ = false;
  log_region_entry current_;
  std::vector<log_region_entry> regions_;
  std::vector<std::uint8_t> staged_;  // uncompressed bytes waiting for the compressor
  std::unique_ptr<log_compressor> compressor_;
};

}  // namespace perfdm
