// The log's compressions (docs/LOG-FORMAT.md section 1): zlib (type 1) and zstd (type 2)
// behind one streaming interface, so the writer and the reader treat every region alike.
// A region's payload is one self-contained stream: a zlib stream, or one zstd frame. Both
// sides stream in bounded memory: fixed buffers and the library's state, whatever the size
// of a region. Plain C++: no actors, no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "log/log_format.hpp"

namespace perfdm {

enum class log_compression : std::uint32_t {
  zlib = logfmt::compression_zlib,
  zstd = logfmt::compression_zstd,
};

// "zlib", "zstd".
const char* log_compression_name(log_compression c);
// The name of the type in a log's header: "zlib", "zstd", or "unknown type N".
std::string log_compression_name(std::uint32_t type);
// "zlib" or "zstd" (any case); throws log_error naming the choices for anything else.
log_compression parse_log_compression(std::string_view name);
// True for the types this code reads and writes.
bool log_compression_known(std::uint32_t type);

// The compression level that means "the compression's own default" (zlib 6, zstd 3).
inline constexpr int log_default_level = -1;
// Checks `level` for `c`: -1 (default); zlib 0..9; zstd 1..19 (levels 20-22 need a window
// larger than readers accept, section 10). Throws log_error naming the range.
void check_log_compression_level(log_compression c, int level);

// Compresses regions one after another, each into one self-contained stream.
class log_compressor {
 public:
  // Receives compressed bytes as they are produced; the pointer is valid during the call.
  using sink = std::function<void(const std::uint8_t*, std::size_t)>;

  virtual ~log_compressor() = default;
  // Starts the stream of a new region (the state of the previous one is dropped).
  virtual void begin() = 0;
  // Compresses `size` bytes into the current stream; `end` true ends the stream (what is
  // buffered is flushed and the stream's trailer written). Throws log_error.
  virtual void compress(const std::uint8_t* data, std::size_t size, bool end, const sink& out) = 0;
};

// `level` as check_log_compression_level accepts it. Throws log_error.
std::unique_ptr<log_compressor> make_log_compressor(log_compression c,
                                                    int level = log_default_level);

// Decompresses one region's stream, a step at a time.
class log_decompressor {
 public:
  struct step {
    std::size_t consumed = 0;  // compressed bytes taken from the input
    std::size_t produced = 0;  // uncompressed bytes written to the output
    bool ended = false;        // the stream ended (and every byte of it was output)
  };

  virtual ~log_decompressor() = default;
  // What a region's payload is, for messages: "zlib stream", "zstd frame".
  virtual const char* stream_name() const = 0;
  // Decompresses from `in` into `out` until one of them runs out or the stream ends; a step
  // with no input and room for output that makes no progress means the stream was cut
  // short. Throws log_error naming the problem ("corrupt compressed data (zstd: ...)").
  virtual step decompress(const std::uint8_t* in, std::size_t in_size, std::uint8_t* out,
                          std::size_t out_size) = 0;
};

// A decompressor at the start of a stream. Throws log_error for an unknown type.
std::unique_ptr<log_decompressor> make_log_decompressor(log_compression c);

// The largest zstd window a reader accepts: 2^23 = 8 MiB (what level 19 uses at most). A frame
// asking for more is refused instead of making the reader allocate it.
inline constexpr int log_zstd_max_window_log = 23;

}  // namespace perfdm
