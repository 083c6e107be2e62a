#include "log/log_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log/log_codec.hpp"

namespace perfdm {

namespace {

std::string hex32(std::uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

std::string hex_bytes(const std::uint8_t* p, std::size_t n) {
  std::string s;
  char b[4];
  for (std::size_t i = 0; i < n; ++i) {
    std::snprintf(b, sizeof b, "%02x", p[i]);
    s += b;
  }
  return s;
}

std::string num(std::uint64_t v) { return std::to_string(v); }

std::string label(const log_region& r) { return log_region_label(r.id, r.name); }

}  // namespace

// One region's uncompressed bytes, decompressed a chunk at a time.
class log_region_stream {
 public:
  log_region_stream(const log_reader& reader, const log_region& region)
      : reader_(reader), region_(region), what_("region " + label(region)) {
    try {
      codec_ = make_log_decompressor(log_compression{reader.compression_});
    } catch (const log_error& e) {
      throw log_error(what_ + ": " + e.what());
    }
    in_.resize(std::max<std::size_t>(reader.options_.chunk_bytes, 4096));
    out_.resize(64u << 10);
  }
  log_region_stream(const log_region_stream&) = delete;
  log_region_stream& operator=(const log_region_stream&) = delete;

  const std::string& what() const { return what_; }
  // Uncompressed bytes not yet consumed, per the frame header.
  std::uint64_t left() const { return region_.uncompressed_size - consumed_; }

  // The next bytes available (at most `max`), or 0 at the end of the region.
  std::size_t next(const std::uint8_t*& p, std::size_t max) {
    if (begin_ == end_ && !fill()) return 0;
    const std::size_t n = std::min(max, end_ - begin_);
    p = out_.data() + begin_;
    begin_ += n;
    consumed_ += n;
    return n;
  }

  void read_exact(void* dst, std::size_t n, const char* field) {
    if (left() < n) {
      throw log_error(what_ + ": " + field + " needs " + num(n) + " bytes but only " +
                      num(left()) + " of the region's " + num(region_.uncompressed_size) +
                      " uncompressed bytes are left (corrupt)");
    }
    auto* d = static_cast<std::uint8_t*>(dst);
    while (n > 0) {
      const std::uint8_t* p = nullptr;
      const std::size_t got = next(p, n);
      if (got == 0) {
        throw log_error(what_ + ": the compressed data ends after " + num(produced_) +
                        " uncompressed bytes, its frame header says " +
                        num(region_.uncompressed_size));
      }
      std::memcpy(d, p, got);
      d += got;
      n -= got;
    }
  }

  template <class T>
  T get(const char* field) {
    T v;
    read_exact(&v, sizeof v, field);
    return v;
  }

  // Every byte consumed: the compressed stream must end exactly here.
  void finish() {
    if (left() != 0 || begin_ != end_) throw log_error(what_ + ": unread bytes at its end");
    if (fill()) {
      throw log_error(what_ + ": more uncompressed data than the " +
                      num(region_.uncompressed_size) + " bytes its frame header says");
    }
    if (!ended_) {
      throw log_error(what_ + ": the compressed data ends before the " + codec_->stream_name());
    }
    if (in_begin_ != in_end_ || in_read_ != region_.compressed_size) {
      throw log_error(what_ + ": compressed bytes after the end of the " +
                      codec_->stream_name());
    }
  }

 private:
  // Decompresses more bytes into the (empty) output buffer; false at the end of the stream.
  bool fill() {
    begin_ = end_ = 0;
    while (!ended_) {
      if (in_begin_ == in_end_ && in_read_ < region_.compressed_size) {
        const std::size_t n = static_cast<std::size_t>(
            std::min<std::uint64_t>(in_.size(), region_.compressed_size - in_read_));
        reader_.pread_exact(region_.offset + logfmt::frame_header_size + in_read_, in_.data(), n);
        in_read_ += n;
        in_begin_ = 0;
        in_end_ = n;
      }
      log_decompressor::step st;
      try {
        st = codec_->decompress(in_.data() + in_begin_, in_end_ - in_begin_, out_.data(),
                                out_.size());
      } catch (const log_error& e) {
        throw log_error(what_ + ": " + e.what());
      }
      in_begin_ += st.consumed;
      end_ = st.produced;
      ended_ = st.ended;
      if (!ended_ && st.consumed == 0 && st.produced == 0) {
        // The output buffer is empty, so only missing input can stop the decompressor.
        if (in_begin_ == in_end_ && in_read_ == region_.compressed_size) {
          throw log_error(what_ + ": the compressed data is cut short (the " +
                          codec_->stream_name() + " does not end within its " +
                          num(region_.compressed_size) + " compressed bytes)");
        }
        if (in_begin_ != in_end_) {
          throw log_error(what_ + ": corrupt compressed data (the " + codec_->stream_name() +
                          " makes no progress)");
        }
      }
      produced_ += end_;
      if (produced_ > region_.uncompressed_size) {
        throw log_error(what_ + ": more uncompressed data than the " +
                        num(region_.uncompressed_size) + " bytes its frame header says");
      }
      if (end_ > 0) return true;
    }
    return false;
  }

  const log_reader& reader_;
  const log_region& region_;
  std::string what_;
  std::unique_ptr<log_decompressor> codec_;
  std::vector<std::uint8_t> in_;
  std::size_t in_begin_ = 0, in_end_ = 0;  // unconsumed part of in_
  std::vector<std::uint8_t> out_;
  std::size_t begin_ = 0, end_ = 0;  // unconsumed part of out_
  std::uint64_t in_read_ = 0;        // compressed bytes read from the file
  std::uint64_t produced_ = 0;       // uncompressed bytes decompressed
  std::uint64_t consumed_ = 0;       // uncompressed bytes handed out
  bool ended_ = false;
};

log_reader::log_reader(const std::string& path, log_reader_options options)
    : path_(path), options_(options) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw log_error("cannot open: " + std::string(std::strerror(errno)));
  try {
    struct stat st;
    if (::fstat(fd_, &st) != 0) throw log_error("cannot stat: " + std::string(std::strerror(errno)));
    if (!S_ISREG(st.st_mode)) throw log_error("not a regular file");
    size_ = static_cast<std::uint64_t>(st.st_size);
    read_header();
    check_crcs();
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    throw;
  }
}

log_reader::~log_reader() {
  if (fd_ >= 0) ::close(fd_);
}

void log_reader::pread_exact(std::uint64_t offset, void* data, std::size_t size) const {
  auto* p = static_cast<std::uint8_t*>(data);
  while (size > 0) {
    const ssize_t n = ::pread(fd_, p, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw log_error("read error at offset " + num(offset) + ": " + std::strerror(errno));
    }
    if (n == 0) {
      throw log_error("truncated: the file ends at offset " + num(offset) + " (it shrank while "
                      "being read?)");
    }
    p += n;
    offset += static_cast<std::uint64_t>(n);
    size -= static_cast<std::size_t>(n);
  }
}

const log_region* log_reader::find(std::uint32_t id) const {
  for (const auto& r : regions_) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

void log_reader::read_header() {
  std::uint8_t pre[logfmt::preamble_size];
  const std::size_t have = static_cast<std::size_t>(std::min<std::uint64_t>(size_, sizeof pre));
  if (have == 0) throw log_error("empty file: not a perfdm log");
  pread_exact(0, pre, have);
  if (have >= 8) {
    std::uint64_t magic;
    std::memcpy(&magic, pre, 8);
    if (magic == logfmt::magic_swapped) {
      throw log_error(
          "other byte order: the log was written on a machine of the other byte order "
          "(big-endian vs little-endian) and this reader does not convert byte orders; read it "
          "on a machine like the writer");
    }
    if (magic != logfmt::magic) {
      throw log_error("wrong magic: not a perfdm log (it starts with " + hex_bytes(pre, 8) +
                      "; a perfdm log starts with " + hex_bytes(reinterpret_cast<const std::uint8_t*>(
                                                             &logfmt::magic),
                                                         8) +
                      ")");
    }
  }
  if (have < 8 && std::memcmp(pre, &logfmt::magic, have) != 0) {
    throw log_error("wrong magic: not a perfdm log (it starts with " + hex_bytes(pre, have) + ")");
  }
  if (have < sizeof pre) {
    throw log_error("truncated: the file is " + num(size_) + " bytes, shorter than the " +
                    num(logfmt::preamble_size) + "-byte log header");
  }
  byte_cursor c(pre, sizeof pre, "header");
  c.u64();
  version_ = c.u32();
  compression_ = c.u32();
  capacity_ = c.u32();
  header_size_ = c.u32();
  c.u32();  // reserved
  const std::uint32_t crc = c.u32();
  if (version_ != logfmt::format_version) {
    throw log_error("unsupported format version " + num(version_) +
                    (version_ > logfmt::format_version ? " (newer than this reader, which reads "
                                                       : " (this reader reads ") +
                    "version " + num(logfmt::format_version) + ")");
  }
  if (log_crc32(0, pre, logfmt::preamble_size - 4) != crc) {
    throw log_error("header CRC mismatch: the 32-byte log header is corrupt");
  }
  if (!log_compression_known(compression_)) {
    throw log_error("unsupported compression: unknown type " + num(compression_) +
                    "; this reader reads zlib (type 1) and zstd (type 2) logs");
  }
  if (capacity_ > logfmt::max_region_capacity || header_size_ != logfmt::header_size(capacity_)) {
    throw log_error("corrupt header: header size " + num(header_size_) +
                    " does not match its index of " + num(capacity_) + " regions");
  }
  if (size_ < header_size_) {
    throw log_error("truncated: the file is " + num(size_) + " bytes, shorter than its " +
                    num(header_size_) + "-byte header and index");
  }
  std::vector<std::uint8_t> index(logfmt::index_block_size(capacity_));
  pread_exact(logfmt::preamble_size, index.data(), index.size());
  std::uint32_t index_crc;
  std::memcpy(&index_crc, index.data() + index.size() - 4, 4);
  std::uint32_t state;
  std::memcpy(&state, index.data(), 4);
  if (log_crc32(0, index.data(), index.size() - 4) != index_crc) {
    notes_.push_back("the header index fails its CRC check: ignoring it, regions were found by "
                     "walking their frames");
    walk_frames();
  } else if (state == logfmt::state_complete) {
    read_index(index);
  } else {
    notes_.push_back("log incomplete: the writer did not finish it (a .partial file left by a "
                     "crash?); regions were found by walking their frames");
    walk_frames();
  }
}

void log_reader::read_index(const std::vector<std::uint8_t>& index) {
  byte_cursor c(index.data(), index.size(), "header index");
  c.u32();  // state
  const std::uint32_t count = c.u32();
  const std::uint64_t logged_size = c.u64();
  if (count > capacity_) {
    throw log_error("corrupt header index: " + num(count) + " regions in room for " +
                    num(capacity_));
  }
  if (size_ < logged_size) {
    throw log_error("truncated: the file is " + num(size_) + " bytes, the finished log was " +
                    num(logged_size) + " bytes");
  }
  if (size_ > logged_size) {
    notes_.push_back(num(size_ - logged_size) + " bytes after the end of the log ignored");
  }
  for (std::uint32_t i = 0; i < count; ++i) {
    log_region e;
    e.id = c.u32();
    e.version = c.u32();
    e.flags = c.u32();
    c.u32();  // reserved
    e.offset = c.u64();
    e.compressed_size = c.u64();
    e.uncompressed_size = c.u64();
    const std::string which = "region " + num(i) + " (id " + num(e.id) + ")";
    if (e.offset < header_size_ || e.offset > logged_size ||
        logged_size - e.offset < logfmt::frame_header_size ||
        logged_size - e.offset - logfmt::frame_header_size < e.compressed_size) {
      throw log_error("length past the end of the file: the index puts " + which +
                      " at offset " + num(e.offset) + " with " + num(e.compressed_size) +
                      " compressed bytes, past the end of the " + num(logged_size) +
                      "-byte log");
    }
    log_region f;
    std::string why;
    if (!read_frame(e.offset, f, why)) {
      throw log_error("corrupt log: " + which + " at offset " + num(e.offset) + ": " + why);
    }
    if (f.id != e.id || f.version != e.version || f.flags != e.flags ||
        f.compressed_size != e.compressed_size || f.uncompressed_size != e.uncompressed_size) {
      throw log_error("corrupt log: the header index and the frame header of " + which +
                      " at offset " + num(e.offset) + " disagree");
    }
    if (find(f.id)) throw log_error("corrupt log: region id " + num(f.id) + " appears twice");
    regions_.push_back(f);
  }
  auto sorted = regions_;
  std::sort(sorted.begin(), sorted.end(),
            [](const log_region& a, const log_region& b) { return a.offset < b.offset; });
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    const auto& a = sorted[i - 1];
    if (a.offset + logfmt::frame_header_size + a.compressed_size > sorted[i].offset) {
      throw log_error("corrupt header index: regions " + label(a) + " and " + label(sorted[i]) +
                      " overlap");
    }
  }
  complete_ = true;
}

bool log_reader::read_frame(std::uint64_t offset, log_region& r, std::string& why) const {
  std::uint8_t h[logfmt::frame_header_size];
  pread_exact(offset, h, sizeof h);
  byte_cursor c(h, sizeof h, "frame header");
  const std::uint32_t magic = c.u32();
  r.offset = offset;
  r.id = c.u32();
  r.version = c.u32();
  r.flags = c.u32();
  const auto* name = reinterpret_cast<const char*>(c.take(logfmt::module_name_size));
  r.name.assign(name, strnlen(name, logfmt::module_name_size));
  r.compressed_size = c.u64();
  r.uncompressed_size = c.u64();
  r.crc = c.u32();
  const std::uint32_t header_crc = c.u32();
  if (magic != logfmt::frame_magic) {
    why = "no region frame there (its first 4 bytes are " + hex_bytes(h, 4) + ")";
    return false;
  }
  if (log_crc32(0, h, sizeof h - 4) != header_crc) {
    why = "the region's frame header fails its CRC check";
    return false;
  }
  return true;
}

void log_reader::walk_frames() {
  std::uint64_t off = header_size_;
  std::string stop;
  while (off < size_) {
    if (size_ - off < logfmt::frame_header_size) {
      stop = "the file ends inside the frame header of the next region, at offset " + num(off);
      break;
    }
    log_region r;
    std::string why;
    if (!read_frame(off, r, why)) {
      stop = "at offset " + num(off) + ", " + why + " (a region the writer did not finish?)";
      break;
    }
    const std::uint64_t room = size_ - off - logfmt::frame_header_size;
    if (r.compressed_size > room) {
      stop = "the file ends inside region " + label(r) + " at offset " + num(off) + " (" +
             num(room) + " of its " + num(r.compressed_size) + " compressed bytes present)";
      break;
    }
    if (find(r.id)) {
      stop = "region id " + num(r.id) + " appears twice, at offset " + num(off);
      break;
    }
    regions_.push_back(r);
    off += logfmt::frame_header_size + r.compressed_size;
  }
  if (!stop.empty()) notes_.push_back("reading stops early: " + stop);
  notes_.push_back(num(regions_.size()) + " complete region" +
                   (regions_.size() == 1 ? "" : "s") + " found");
}

void log_reader::check_crcs() {
  std::vector<std::uint8_t> buf(std::max<std::size_t>(options_.chunk_bytes, 4096) * 4);
  for (std::size_t i = 0; i < regions_.size(); ++i) {
    const auto& r = regions_[i];
    std::uint32_t crc = 0;
    std::uint64_t done = 0;
    while (done < r.compressed_size) {
      const std::size_t n =
          static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), r.compressed_size - done));
      pread_exact(r.offset + logfmt::frame_header_size + done, buf.data(), n);
      crc = log_crc32(crc, buf.data(), n);
      done += n;
    }
    if (crc != r.crc) {
      const std::string what = "CRC mismatch in region " + label(r) + " at offset " +
                               num(r.offset) + ": its frame header says " + hex32(r.crc) +
                               ", its compressed bytes give " + hex32(crc);
      if (complete_) throw log_error(what + " (the log is corrupt)");
      notes_.push_back("reading stops early: " + what);
      regions_.resize(i);
      notes_.push_back(num(regions_.size()) + " region" + (regions_.size() == 1 ? "" : "s") +
                       " usable");
      return;
    }
  }
}

job_record log_reader::read_job(const log_region& region) const {
  log_region_stream s(*this, region);
  job_record j;
  auto str = [&](const char* field) {
    const auto n = s.get<std::uint32_t>(field);
    if (n > logfmt::max_job_string_bytes) {
      throw log_error(s.what() + ": " + field + " of " + num(n) + " bytes (at most " +
                      num(logfmt::max_job_string_bytes) + "; corrupt)");
    }
    std::string v(n, '\0');
    s.read_exact(v.data(), n, field);
    return v;
  };
  auto count = [&](const char* field) {
    const auto n = s.get<std::uint32_t>(field);
    if (n > logfmt::max_job_list_items) {
      throw log_error(s.what() + ": " + num(n) + " " + field + " (at most " +
                      num(logfmt::max_job_list_items) + "; corrupt)");
    }
    return n;
  };
  j.start_ns = s.get<std::int64_t>("start time");
  j.end_ns = s.get<std::int64_t>("end time");
  j.command_line = str("command line");
  j.host = str("host");
  for (std::uint32_t i = 0, n = count("metadata entries"); i < n; ++i) {
    std::string k = str("metadata key");
    j.metadata.emplace_back(std::move(k), str("metadata value"));
  }
  for (std::uint32_t i = 0, n = count("process ids"); i < n; ++i) {
    j.pids.push_back(s.get<std::uint64_t>("process id"));
  }
  s.finish();
  return j;
}

log_name_table log_reader::read_names(const log_region& region) const {
  log_region_stream s(*this, region);
  log_name_table t;
  std::size_t used = 0;
  std::string bytes;
  while (s.left() > 0) {
    const auto id = s.get<std::uint64_t>("name id");
    const auto flags = s.get<std::uint32_t>("name flags");
    const auto n = s.get<std::uint32_t>("name length");
    if (n > logfmt::max_name_bytes) {
      throw log_error(s.what() + ": a name of " + num(n) + " bytes (at most " +
                      num(logfmt::max_name_bytes) + "; corrupt)");
    }
    bytes.resize(n);
    s.read_exact(bytes.data(), n, "name bytes");
    ++t.entries;
    if (used + n + 64 > options_.max_name_table_bytes) {
      ++t.dropped;
      continue;
    }
    if (t.names.emplace(id, log_name{flags, bytes}).second) used += n + 64;
  }
  s.finish();
  return t;
}

void log_reader::for_each_record(
    const log_region& region,
    const std::function<void(const std::uint8_t*, std::size_t)>& fn) const {
  log_region_stream s(*this, region);
  std::vector<std::uint8_t> rec;
  std::uint64_t index = 0;
  while (s.left() > 0) {
    const auto n = s.get<std::uint32_t>("record length");
    if (n > logfmt::max_record_bytes) {
      throw log_error(s.what() + ": record " + num(index) + " claims " + num(n) +
                      " bytes (at most " + num(logfmt::max_record_bytes) + "; corrupt)");
    }
    rec.resize(n);
    s.read_exact(rec.data(), n, "record");
    fn(rec.data(), n);
    ++index;
  }
  s.finish();
}

void log_reader::for_each_chunk(
    const log_region& region,
    const std::function<void(const std::uint8_t*, std::size_t)>& fn) const {
  log_region_stream s(*this, region);
  const std::uint8_t* p = nullptr;
  while (std::size_t n = s.next(p, SIZE_MAX)) fn(p, n);
  if (s.left() != 0) {
    throw log_error(s.what() + ": the compressed data ends " + num(s.left()) +
                    " bytes before the size its frame header says");
  }
  s.finish();
}

}  // namespace perfdm
