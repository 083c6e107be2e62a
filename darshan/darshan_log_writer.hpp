// Writing a Darshan log in any of the formats the reader reads (3.00 to 3.41), either byte
// order, zlib, bzip2 or stored regions: for tests, the synthetic logs of the benchmarks and
// the fuzzer's seeds. Regions are compressed as they are written (one stream each), so a
// log of any size is written in bounded memory. Order: job, names, then modules by
// ascending id, then finish() writes the header.
//
//   darshan::log_file_writer w(path, {});
//   w.write_job(job);
//   w.add_name(darshan::record_id("/tmp/x"), "/tmp/x");
//   w.begin_module(darshan::POSIX_MOD, 4);
//   auto r = w.record(); r.u64(id); r.i64(rank); ... w.add_record(r);
//   w.finish();
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "darshan/darshan_log.hpp"

namespace perfdm::darshan {

struct writer_options {
  std::string version = "3.41";      // 3.00, 3.10, 3.20, 3.21 or 3.41
  unsigned char compression = zlib;  // zlib, bzip2 or none
  bool other_byte_order = false;     // write as a machine of the other byte order would
};

// The bytes of one record, fields in the writer's byte order.
class record_bytes {
 public:
  explicit record_bytes(bool swap) : swap_(swap) {}
  record_bytes& u64(std::uint64_t v) {
    if (swap_) v = __builtin_bswap64(v);
    return raw(&v, 8);
  }
  record_bytes& i64(std::int64_t v) { return u64(static_cast<std::uint64_t>(v)); }
  record_bytes& f64(double d) {
    std::uint64_t v;
    std::memcpy(&v, &d, 8);
    return u64(v);
  }
  // `size` bytes of `text`, zero-padded (hostnames, pool names).
  record_bytes& chars(std::string_view text, std::size_t size) {
    std::size_t n = std::min(text.size(), size);
    raw(text.data(), n);
    bytes_.insert(bytes_.end(), size - n, 0);
    return *this;
  }
  record_bytes& raw(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    bytes_.insert(bytes_.end(), b, b + n);
    return *this;
  }
  const std::vector<unsigned char>& bytes() const { return bytes_; }
  void clear() { bytes_.clear(); }

 private:
  bool swap_;
  std::vector<unsigned char> bytes_;
};

class log_file_writer {
 public:
  // Creates `path`. Throws darshan_error for an unknown version or compression, or when the
  // file cannot be written.
  log_file_writer(const std::string& path, writer_options options);
  ~log_file_writer();
  log_file_writer(const log_file_writer&) = delete;
  log_file_writer& operator=(const log_file_writer&) = delete;

  // The job record, the command line and the mount table (the job region).
  void write_job(const job_info& job);
  void add_name(std::uint64_t id, std::string_view name);
  // Starts `module`'s region (ids ascending; a module the format has no slot for throws).
  void begin_module(int module, std::uint32_t version);
  void add_record(const record_bytes& r) { add_bytes(r.bytes().data(), r.bytes().size()); }
  void add_bytes(const void* data, std::size_t size);
  record_bytes record() const { return record_bytes(options_.other_byte_order); }
  // Marks a module partial (its bit in the header).
  void set_partial(int module) { partial_ |= std::uint64_t{1} << module; }
  // Ends the last region and writes the header. Returns the size of the log.
  std::uint64_t finish();

 private:
  struct compressor;
  enum class region { none, job, names, module };
  void start_region(region r, int module);
  void end_region();
  void put(const void* data, std::size_t size, bool finish = false);

  std::string path_;
  writer_options options_;
  int minor_ = 41;
  int fd_ = -1;
  std::uint64_t at_ = 0;  // file offset where the next compressed byte goes
  region current_ = region::none;
  int module_ = -1;
  std::uint64_t region_start_ = 0;
  std::uint64_t name_off_ = 0, name_len_ = 0;
  std::uint64_t mod_off_[max_modules] = {}, mod_len_[max_modules] = {};
  std::uint32_t mod_ver_[max_modules] = {};
  std::uint64_t partial_ = 0;
  std::unique_ptr<compressor> z_;
  bool finished_ = false;
};

}  // namespace perfdm::darshan
