#include "log/log_writer.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include "log/output_file.hpp"

namespace perfdm {

namespace {

constexpr std::size_t chunk = 64 * 1024;

std::string errno_text() { return std::strerror(errno); }

std::vector<std::uint8_t> frame_header(const log_region_entry& r) {
  std::vector<std::uint8_t> h;
  h.reserve(logfmt::frame_header_size);
  byte_sink s(h);
  s.u32(logfmt::frame_magic);
  s.u32(r.id);
  s.u32(r.version);
  s.u32(r.flags);
  char name[logfmt::module_name_size] = {};
  std::memcpy(name, r.name.data(), r.name.size());
  s.bytes(name, sizeof name);
  s.u64(r.compressed_size);
  s.u64(r.uncompressed_size);
  s.u32(r.crc);
  s.u32(log_crc32(0, h.data(), h.size()));
  return h;
}

}  // namespace

log_writer::log_writer(std::string path, std::uint32_t region_capacity, int level,
                       log_compression compression)
    : path_(std::move(path)),
      partial_(partial_path_for(path_)),
      capacity_(region_capacity), compression_(compression) {
  if (capacity_ > logfmt::max_region_capacity) {
    throw log_error("log writer: " + std::to_string(capacity_) + " regions asked, at most " +
                    std::to_string(logfmt::max_region_capacity));
  }
  // Checked before the file is created: a bad choice leaves nothing behind.
  compressor_ = make_log_compressor(compression_, level);
  const std::string p = partial_path();
  fd_ = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw log_error("cannot create " + p + ": " + errno_text());
  staged_.reserve(chunk);

  std::vector<std::uint8_t> pre;
  byte_sink s(pre);
  s.u64(logfmt::magic);
  s.u32(logfmt::format_version);
  s.u32(static_cast<std::uint32_t>(compression_));
  s.u32(capacity_);
  s.u32(static_cast<std::uint32_t>(logfmt::header_size(capacity_)));
  s.u32(0);  // reserved
  s.u32(log_crc32(0, pre.data(), pre.size()));
  write_at(0, pre.data(), pre.size());
  const auto index = index_block(logfmt::state_writing);
  write_at(logfmt::preamble_size, index.data(), index.size());
  file_end_ = logfmt::header_size(capacity_);
}

log_writer::~log_writer() { close_fd(); }

void log_writer::close_fd() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void log_writer::write_at(std::uint64_t offset, const void* data, std::size_t size) {
  if (fd_ < 0) throw log_error("log writer: " + partial_path() + " is closed");
  const auto* p = static_cast<const std::uint8_t*>(data);
  while (size > 0) {
    const ssize_t n = ::pwrite(fd_, p, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw log_error("cannot write " + partial_path() + ": " + errno_text());
    }
    p += n;
    offset += static_cast<std::uint64_t>(n);
    size -= static_cast<std::size_t>(n);
  }
}

void log_writer::append(const void* data, std::size_t size) {
  write_at(file_end_, data, size);
  file_end_ += size;
}

std::vector<std::uint8_t> log_writer::index_block(std::uint32_t state) const {
  std::vector<std::uint8_t> b;
  b.reserve(logfmt::index_block_size(capacity_));
  byte_sink s(b);
  s.u32(state);
  s.u32(state == logfmt::state_complete ? static_cast<std::uint32_t>(regions_.size()) : 0);
  s.u64(state == logfmt::state_complete ? file_end_ : 0);
  for (std::uint32_t i = 0; i < capacity_; ++i) {
    if (state == logfmt::state_complete && i < regions_.size()) {
      const auto& r = regions_[i];
      s.u32(r.id);
      s.u32(r.version);
      s.u32(r.flags);
      s.u32(0);  // reserved
      s.u64(r.offset);
      s.u64(r.compressed_size);
      s.u64(r.uncompressed_size);
    } else {
      static const std::uint8_t zeros[logfmt::index_entry_size] = {};
      s.bytes(zeros, sizeof zeros);
    }
  }
  s.u32(log_crc32(0, b.data(), b.size()));
  return b;
}

void log_writer::write_job(const job_record& job) {
  std::vector<std::uint8_t> b;
  byte_sink s(b);
  s.i64(job.start_ns);
  s.i64(job.end_ns);
  s.str(job.command_line);
  s.str(job.host);
  s.u32(static_cast<std::uint32_t>(job.metadata.size()));
  for (const auto& [k, v] : job.metadata) {
    s.str(k);
    s.str(v);
  }
  s.u32(static_cast<std::uint32_t>(job.pids.size()));
  for (auto pid : job.pids) s.u64(pid);
  begin_region(logfmt::region_job, logfmt::job_version, "job");
  write(b.data(), b.size());
  end_region();
}

void log_writer::begin_region(std::uint32_t id, std::uint32_t version, std::string_view name,
                              std::uint32_t flags) {
  if (finished_ || fd_ < 0) throw log_error("log writer: the log is closed");
  if (in_region_) throw log_error("log writer: region " + current_.name + " is still open");
  if (!log_valid_region_name(name)) {
    throw log_error("log writer: region name '" + std::string(name) +
                    "' must be 1-16 characters of A-Z a-z 0-9 _ . -");
  }
  for (const auto& r : regions_) {
    if (r.id == id) throw log_error("log writer: region id " + std::to_string(id) + " twice");
  }
  if (regions_.size() >= capacity_) {
    throw log_error("log writer: more than " + std::to_string(capacity_) + " regions");
  }
  compressor_->begin();
  current_ = log_region_entry{};
  current_.id = id;
  current_.version = version;
  current_.flags = flags;
  current_.name = std::string(name);
  current_.offset = file_end_;
  // Room for the frame header, written by end_region once the sizes and CRC are known.
  static const std::uint8_t zeros[logfmt::frame_header_size] = {};
  append(zeros, sizeof zeros);
  in_region_ = true;
}

void log_writer::write(const void* data, std::size_t size) {
  if (!in_region_) throw log_error("log writer: write outside a region");
  const auto* p = static_cast<const std::uint8_t*>(data);
  current_.uncompressed_size += size;
  while (size > 0) {
    const std::size_t n = std::min(size, chunk - staged_.size());
    staged_.insert(staged_.end(), p, p + n);
    p += n;
    size -= n;
    if (staged_.size() == chunk) compress_staged(false);
  }
}

void log_writer::write_record(const void* payload, std::size_t size) {
  if (size > logfmt::max_record_bytes) {
    throw log_error("log writer: a record of " + std::to_string(size) + " bytes (at most " +
                    std::to_string(logfmt::max_record_bytes) + ")");
  }
  const auto n = static_cast<std::uint32_t>(size);
  write(&n, sizeof n);
  write(payload, size);
}

void log_writer::compress_staged(bool end) {
  compressor_->compress(staged_.data(), staged_.size(), end,
                        [this](const std::uint8_t* p, std::size_t n) {
                          current_.crc = log_crc32(current_.crc, p, n);
                          current_.compressed_size += n;
                          append(p, n);
                        });
  staged_.clear();
}

void log_writer::end_region(std::uint32_t add_flags) {
  if (!in_region_) throw log_error("log writer: end_region without begin_region");
  compress_staged(true);
  current_.flags |= add_flags;
  const auto h = frame_header(current_);
  write_at(current_.offset, h.data(), h.size());
  regions_.push_back(current_);
  in_region_ = false;
}

void log_writer::finish() {
  if (finished_) return;
  if (in_region_) throw log_error("log writer: finish with region " + current_.name + " open");
  const auto index = index_block(logfmt::state_complete);
  write_at(logfmt::preamble_size, index.data(), index.size());
  if (::fsync(fd_) != 0) throw log_error("cannot sync " + partial_path() + ": " + errno_text());
  if (::close(fd_) != 0) {
    fd_ = -1;
    throw log_error("cannot close " + partial_path() + ": " + errno_text());
  }
  fd_ = -1;
  try {
    put_in_place(partial_, path_);
  } catch (const std::runtime_error& e) {
    throw log_error(e.what());
  }
  // Make the rename durable too (best effort).
  const auto slash = path_.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path_.substr(0, slash + 1);
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  finished_ = true;
}

void log_writer::abandon() {
  in_region_ = false;
  close_fd();
}

}  // namespace perfdm
