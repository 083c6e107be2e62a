#include "darshan/darshan_region_stream.hpp"

#include <bzlib.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "darshan/darshan_error.hpp"

namespace perfdm::darshan {

// The decompressor of one compression type: zlib's and bzip2's stream states.
struct region_stream::codec {
  unsigned char type;
  z_stream z{};
  bz_stream bz{};
  bool ready = false;

  explicit codec(unsigned char t) : type(t) { start(); }
  ~codec() { stop(); }
  void start() {
    if (type == zlib) ready = inflateInit(&z) == Z_OK;
    if (type == bzip2) ready = BZ2_bzDecompressInit(&bz, 0, 0) == BZ_OK;
    if (type == none) ready = true;
    if (!ready) throw darshan_error("out of memory for the decompressor");
  }
  void stop() {
    if (!ready) return;
    if (type == zlib) inflateEnd(&z);
    if (type == bzip2) BZ2_bzDecompressEnd(&bz);
    ready = false;
  }
  // Ready for the next stream of the region.
  void next_stream() {
    if (type == zlib) {
      inflateReset(&z);
    } else if (type == bzip2) {
      stop();
      start();
    }
  }
};

region_stream::region_stream(int fd, std::uint64_t file_size, std::uint64_t offset,
                             std::uint64_t length, unsigned char compression, std::string what,
                             std::size_t chunk_bytes)
    : fd_(fd),
      file_size_(file_size),
      offset_(offset),
      length_(length),
      compression_(compression),
      what_(std::move(what)),
      in_(std::max<std::size_t>(chunk_bytes, 4096)) {
  if (compression != zlib && compression != bzip2 && compression != none)
    throw darshan_error("unsupported compression type " + std::to_string(compression) +
                        " (Darshan's are 0 zlib, 1 bzip2, 2 none)");
  codec_ = std::make_unique<codec>(compression);
}

region_stream::~region_stream() = default;

// Reads the next chunk of compressed bytes; false at the end of the region's bytes in the
// file (a note when the region claims more than the file holds).
bool region_stream::refill() {
  std::uint64_t in_file = offset_ < file_size_ ? std::min(length_, file_size_ - offset_) : 0;
  if (consumed_ >= in_file) {
    if (in_file < length_ && problem_.empty())
      problem_ = what_ + " claims " + std::to_string(length_) + " bytes at offset " +
                 std::to_string(offset_) + ", but the file ends after " +
                 std::to_string(in_file) + " of them (" + std::to_string(file_size_) +
                 " bytes): the log is truncated";
    return false;
  }
  std::size_t want =
      static_cast<std::size_t>(std::min<std::uint64_t>(in_.size(), in_file - consumed_));
  std::size_t got = 0;
  while (got < want) {
    ssize_t n = ::pread(fd_, in_.data() + got, want - got,
                        static_cast<off_t>(offset_ + consumed_ + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      problem_ = what_ + ": cannot read the file at offset " +
                 std::to_string(offset_ + consumed_ + got) + ": " +
                 (n < 0 ? std::strerror(errno) : "unexpected end of file");
      return false;
    }
    got += static_cast<std::size_t>(n);
  }
  consumed_ += got;
  in_pos_ = 0;
  in_len_ = got;
  return true;
}

std::size_t region_stream::read(void* out, std::size_t size) {
  auto* dst = static_cast<unsigned char*>(out);
  std::size_t done = 0;
  while (done < size && !at_end_) {
    if (in_pos_ == in_len_ && !refill()) {
      if (in_stream_ && problem_.empty())
        problem_ = what_ + " ends inside a compressed stream: the log is truncated";
      at_end_ = true;
      break;
    }
    if (compression_ == none) {
      std::size_t n = std::min(size - done, in_len_ - in_pos_);
      std::memcpy(dst + done, in_.data() + in_pos_, n);
      in_pos_ += n;
      done += n;
      continue;
    }
    std::size_t avail_in = in_len_ - in_pos_;
    std::size_t avail_out = size - done;
    // Both libraries count in unsigned int: feed at most 1 GiB at a time.
    avail_in = std::min<std::size_t>(avail_in, 1u << 30);
    avail_out = std::min<std::size_t>(avail_out, 1u << 30);
    std::size_t produced = 0, used = 0;
    bool stream_end = false;
    std::string failure;
    if (compression_ == zlib) {
      z_stream& z = codec_->z;
      z.next_in = in_.data() + in_pos_;
      z.avail_in = static_cast<uInt>(avail_in);
      z.next_out = dst + done;
      z.avail_out = static_cast<uInt>(avail_out);
      int rc = inflate(&z, Z_NO_FLUSH);
      used = avail_in - z.avail_in;
      produced = avail_out - z.avail_out;
      if (rc == Z_STREAM_END) {
        stream_end = true;
      } else if (rc != Z_OK && !(rc == Z_BUF_ERROR && used == 0 && produced == 0)) {
        failure = std::string("zlib: ") + (z.msg ? z.msg : zError(rc));
      }
    } else {
      bz_stream& bz = codec_->bz;
      bz.next_in = reinterpret_cast<char*>(in_.data() + in_pos_);
      bz.avail_in = static_cast<unsigned>(avail_in);
      bz.next_out = reinterpret_cast<char*>(dst + done);
      bz.avail_out = static_cast<unsigned>(avail_out);
      int rc = BZ2_bzDecompress(&bz);
      used = avail_in - bz.avail_in;
      produced = avail_out - bz.avail_out;
      if (rc == BZ_STREAM_END) {
        stream_end = true;
      } else if (rc != BZ_OK) {
        failure = rc == BZ_MEM_ERROR ? "bzip2: out of memory"
                  : rc == BZ_DATA_ERROR_MAGIC ? "bzip2: not a bzip2 stream"
                                              : "bzip2: corrupt data";
      }
    }
    in_pos_ += used;
    done += produced;
    if (used > 0 || produced > 0) in_stream_ = true;
    if (!failure.empty()) {
      problem_ = what_ + " does not decompress after " + std::to_string(position_ + done) +
                 " bytes (" + failure + ")";
      at_end_ = true;
      break;
    }
    if (stream_end) {
      in_stream_ = false;
      codec_->next_stream();
    }
  }
  position_ += done;
  return done;
}

std::uint64_t region_stream::skip(std::uint64_t size) {
  unsigned char scratch[16384];
  std::uint64_t left = size;
  while (left > 0) {
    std::size_t n = read(scratch, static_cast<std::size_t>(std::min<std::uint64_t>(left, sizeof scratch)));
    if (n == 0) break;
    left -= n;
  }
  return size - left;
}

void region_stream::restart() {
  codec_->stop();
  codec_->start();
  in_pos_ = in_len_ = 0;
  consumed_ = 0;
  position_ = 0;
  at_end_ = false;
  in_stream_ = false;
  problem_.clear();
}

void region_stream::seek(std::uint64_t pos) {
  if (pos < position_) restart();
  skip(pos - position_);
}

}  // namespace perfdm::darshan
