#include "log/log_codec.hpp"

#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <vector>

namespace perfdm {

namespace {

constexpr std::size_t out_chunk = 64 * 1024;

// zlib counts in uInt: feed it at most this much at a time.
constexpr std::size_t zlib_max_step = 1u << 30;

class zlib_compressor final : public log_compressor {
 public:
  explicit zlib_compressor(int level) : out_(out_chunk) {
    std::memset(&z_, 0, sizeof z_);
    if (deflateInit(&z_, level) != Z_OK) throw log_error("log writer: zlib deflateInit failed");
  }
  ~zlib_compressor() override { deflateEnd(&z_); }

  void begin() override {
    if (deflateReset(&z_) != Z_OK) throw log_error("log writer: zlib deflateReset failed");
  }

  void compress(const std::uint8_t* data, std::size_t size, bool end, const sink& out) override {
    do {
      const std::size_t n = std::min(size, zlib_max_step);
      const bool last = n == size;
      z_.next_in = const_cast<std::uint8_t*>(data);
      z_.avail_in = static_cast<uInt>(n);
      const int flush = end && last ? Z_FINISH : Z_NO_FLUSH;
      for (;;) {
        z_.next_out = out_.data();
        z_.avail_out = static_cast<uInt>(out_.size());
        const int rc = deflate(&z_, flush);
        if (rc == Z_STREAM_ERROR) throw log_error("log writer: zlib deflate failed");
        const std::size_t produced = out_.size() - z_.avail_out;
        if (produced > 0) out(out_.data(), produced);
        if (flush == Z_FINISH ? rc == Z_STREAM_END : (z_.avail_in == 0 && z_.avail_out != 0)) {
          break;
        }
      }
      data += n;
      size -= n;
    } while (size > 0);
  }

 private:
  z_stream z_;
  std::vector<std::uint8_t> out_;
};

class zstd_compressor final : public log_compressor {
 public:
  explicit zstd_compressor(int level) : cctx_(ZSTD_createCCtx()), out_(out_chunk) {
    if (!cctx_) throw log_error("log writer: zstd cannot create its compression context");
    set(ZSTD_c_compressionLevel, level == log_default_level ? ZSTD_CLEVEL_DEFAULT : level);
    // The frame carries a checksum of its content, as a zlib stream carries its Adler-32:
    // the region CRC covers the compressed bytes, this the decompressed ones.
    set(ZSTD_c_checksumFlag, 1);
  }
  ~zstd_compressor() override { ZSTD_freeCCtx(cctx_); }

  void begin() override {
    const std::size_t rc = ZSTD_CCtx_reset(cctx_, ZSTD_reset_session_only);
    if (ZSTD_isError(rc)) fail("reset", rc);
  }

  void compress(const std::uint8_t* data, std::size_t size, bool end, const sink& out) override {
    ZSTD_inBuffer in{data, size, 0};
    const ZSTD_EndDirective mode = end ? ZSTD_e_end : ZSTD_e_continue;
    for (;;) {
      ZSTD_outBuffer o{out_.data(), out_.size(), 0};
      const std::size_t left = ZSTD_compressStream2(cctx_, &o, &in, mode);
      if (ZSTD_isError(left)) fail("compressStream2", left);
      if (o.pos > 0) out(out_.data(), o.pos);
      // ZSTD_e_end: done when nothing is left to flush; ZSTD_e_continue: when the input is
      // taken (what zstd keeps is flushed by a later call).
      if (end ? left == 0 : in.pos == in.size) break;
    }
  }

 private:
  void set(ZSTD_cParameter p, int v) {
    const std::size_t rc = ZSTD_CCtx_setParameter(cctx_, p, v);
    if (ZSTD_isError(rc)) fail("setParameter", rc);
  }
  [[noreturn]] static void fail(const char* call, std::size_t rc) {
    throw log_error(std::string("log writer: zstd ") + call + " failed: " + ZSTD_getErrorName(rc));
  }

  ZSTD_CCtx* cctx_;
  std::vector<std::uint8_t> out_;
};

class zlib_decompressor final : public log_decompressor {
 public:
  zlib_decompressor() {
    std::memset(&z_, 0, sizeof z_);
    if (inflateInit(&z_) != Z_OK) throw log_error("zlib inflateInit failed");
  }
  ~zlib_decompressor() override { inflateEnd(&z_); }

  const char* stream_name() const override { return "zlib stream"; }

  step decompress(const std::uint8_t* in, std::size_t in_size, std::uint8_t* out,
                  std::size_t out_size) override {
    z_.next_in = const_cast<std::uint8_t*>(in);
    z_.avail_in = static_cast<uInt>(std::min(in_size, zlib_max_step));
    z_.next_out = out;
    z_.avail_out = static_cast<uInt>(std::min(out_size, zlib_max_step));
    const uInt in_before = z_.avail_in, out_before = z_.avail_out;
    const int rc = inflate(&z_, Z_NO_FLUSH);
    step s;
    s.consumed = in_before - z_.avail_in;
    s.produced = out_before - z_.avail_out;
    if (rc == Z_STREAM_END) {
      s.ended = true;
    } else if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT) {
      throw log_error("corrupt compressed data (zlib: " +
                      std::string(z_.msg              ? z_.msg
                                  : rc == Z_NEED_DICT ? "needs a dictionary"
                                                      : "data error") +
                      ")");
    } else if (rc == Z_MEM_ERROR) {
      throw log_error("zlib is out of memory");
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {  // Z_BUF_ERROR: no progress possible
      throw log_error("zlib inflate failed (" + std::to_string(rc) + ")");
    }
    return s;
  }

 private:
  z_stream z_;
};

class zstd_decompressor final : public log_decompressor {
 public:
  zstd_decompressor() : dctx_(ZSTD_createDCtx()) {
    if (!dctx_) throw log_error("zstd cannot create its decompression context");
    const std::size_t rc =
        ZSTD_DCtx_setParameter(dctx_, ZSTD_d_windowLogMax, log_zstd_max_window_log);
    if (ZSTD_isError(rc)) {
      ZSTD_freeDCtx(dctx_);
      throw log_error(std::string("zstd setParameter failed: ") + ZSTD_getErrorName(rc));
    }
  }
  ~zstd_decompressor() override { ZSTD_freeDCtx(dctx_); }

  const char* stream_name() const override { return "zstd frame"; }

  step decompress(const std::uint8_t* in, std::size_t in_size, std::uint8_t* out,
                  std::size_t out_size) override {
    step s;
    if (!magic_checked_) {
      // A region is one zstd frame: a skippable frame, or a second frame behind the first,
      // would decode to something else than the format says; zstd itself accepts both.
      if (in_size < 4) return s;  // the caller gives at least 4 bytes unless cut short
      std::uint32_t magic;
      std::memcpy(&magic, in, 4);
      if (magic != ZSTD_MAGICNUMBER) {
        throw log_error(
            "corrupt compressed data (zstd: the region does not start with a zstd "
            "frame: its first bytes are not the zstd magic number)");
      }
      magic_checked_ = true;
    }
    ZSTD_inBuffer i{in, in_size, 0};
    ZSTD_outBuffer o{out, out_size, 0};
    const std::size_t rc = ZSTD_decompressStream(dctx_, &o, &i);
    if (ZSTD_isError(rc)) {
      if (ZSTD_getErrorCode(rc) == ZSTD_error_frameParameter_windowTooLarge) {
        throw log_error("the zstd frame needs a window larger than the " +
                        std::to_string((1u << log_zstd_max_window_log) >> 20) +
                        " MiB this reader accepts (corrupt, or written by zstd level 20 or "
                        "more)");
      }
      if (ZSTD_getErrorCode(rc) == ZSTD_error_memory_allocation) {
        throw log_error("zstd is out of memory");
      }
      throw log_error(std::string("corrupt compressed data (zstd: ") + ZSTD_getErrorName(rc) + ")");
    }
    s.consumed = i.pos;
    s.produced = o.pos;
    s.ended = rc == 0;  // the frame is decoded and flushed
    return s;
  }

 private:
  ZSTD_DCtx* dctx_;
  bool magic_checked_ = false;
};

}  // namespace

const char* log_compression_name(log_compression c) {
  return c == log_compression::zstd ? "zstd" : "zlib";
}

std::string log_compression_name(std::uint32_t type) {
  if (log_compression_known(type)) return log_compression_name(log_compression{type});
  return "unknown type " + std::to_string(type);
}

bool log_compression_known(std::uint32_t type) {
  return type == logfmt::compression_zlib || type == logfmt::compression_zstd;
}

log_compression parse_log_compression(std::string_view name) {
  std::string lower(name);
  for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (lower == "zlib") return log_compression::zlib;
  if (lower == "zstd") return log_compression::zstd;
  throw log_error("unknown log compression '" + std::string(name) + "': zlib or zstd");
}

void check_log_compression_level(log_compression c, int level) {
  if (level == log_default_level) return;
  if (c == log_compression::zlib && (level < 0 || level > 9)) {
    throw log_error("log writer: zlib level must be -1 (default) or 0..9, not " +
                    std::to_string(level));
  }
  if (c == log_compression::zstd && (level < 1 || level > 19)) {
    throw log_error("log writer: zstd level must be -1 (default) or 1..19, not " +
                    std::to_string(level));
  }
}

std::unique_ptr<log_compressor> make_log_compressor(log_compression c, int level) {
  if (!log_compression_known(static_cast<std::uint32_t>(c))) {
    throw log_error("log writer: unknown compression type " +
                    std::to_string(static_cast<std::uint32_t>(c)));
  }
  check_log_compression_level(c, level);
  if (c == log_compression::zstd) return std::make_unique<zstd_compressor>(level);
  return std::make_unique<zlib_compressor>(level);
}

std::unique_ptr<log_decompressor> make_log_decompressor(log_compression c) {
  if (c == log_compression::zstd) return std::make_unique<zstd_decompressor>();
  if (c == log_compression::zlib) return std::make_unique<zlib_decompressor>();
  throw log_error("unsupported compression: " +
                  log_compression_name(static_cast<std::uint32_t>(c)));
}

}  // namespace perfdm
