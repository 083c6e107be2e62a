// libFuzzer target: the log reader and printers (log/log_reader.hpp, log/log_print.hpp).
//
// The reader reads files only (it preads by offset; it has no memory or stream API), so each
// input goes into one memfd, reopened through /proc/self/fd/N: no disk traffic per run.
// Each input is read these ways:
//   1. as given, printed as text (print_log), when its checksums are not right already;
//   2. with its checksums made right (below): printed as text, modules marked partial
//      skipped; printed as JSON Lines with --show-partial; and through
//      log_reader::for_each_chunk for every region, which must hand out exactly the
//      uncompressed size its frame header says, or throw.
// Why 2: the reader checks a CRC-32 over the header, the index, every frame header and every
// region's compressed bytes, and zlib checks an Adler-32 over the uncompressed bytes, so
// nearly every mutation of a valid log is refused before any region is decoded. Fixing the
// checksums lets mutations reach the job record, name table and record decoders. A zstd
// region's content checksum (XXH64, at the frame's end) is not fixed: it is checked only
// when the frame ends, after the decoders have seen the mutated bytes.
//
// A log_error is the reader's answer to a bad log: expected. Anything else — a crash, a
// sanitizer report, another exception escaping, a leak, a broken invariant (abort) — is a
// finding.
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "log/log_counters.hpp"
#include "log/log_format.hpp"
#include "log/log_modules.hpp"
#include "log/log_print.hpp"
#include "log/log_reader.hpp"
#include "fuzz/memory_file.hpp"

using namespace perfdm;

namespace {

// Output goes nowhere: the printers still format every row.
class null_buffer final : public std::streambuf {
 protected:
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
  int_type overflow(int_type c) override { return traits_type::not_eof(c); }
};

// The printers `perfdm log` uses (log/log_modules.hpp): ids 16-19, version 1, so the seed
// logs' modules (fuzz/make_log_corpus.cpp) 16, 17 and 19 are printed, 18 (written as version
// 2) is newer than its printer, and 99 stays unknown.
const log_printer_registry& registry() {
  static const log_printer_registry r = [] {
    log_printer_registry x;
    add_log_module_printers(x);
    return x;
  }();
  return r;
}

std::uint32_t get32(const std::vector<std::uint8_t>& b, std::size_t at) {
  std::uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}
std::uint64_t get64(const std::vector<std::uint8_t>& b, std::size_t at) {
  std::uint64_t v;
  std::memcpy(&v, b.data() + at, 8);
  return v;
}
void put32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
  std::memcpy(b.data() + at, &v, 4);
}

// A region's zlib stream (2-byte header, deflate data, big-endian Adler-32): when the deflate
// data ends exactly 4 bytes before the end, the Adler-32 is set to that of what it inflates to.
void fix_adler(std::uint8_t* p, std::size_t n) {
  if (n < 6) return;
  z_stream z;
  std::memset(&z, 0, sizeof z);
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return;
  std::vector<std::uint8_t> out(1u << 16);
  uLong adler = adler32(0, nullptr, 0);
  std::size_t total = 0;
  z.next_in = p + 2;
  z.avail_in = static_cast<uInt>(n - 6);
  int rc = Z_OK;
  while (rc == Z_OK && total < (8u << 20)) {
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    rc = inflate(&z, Z_NO_FLUSH);
    const std::size_t got = out.size() - z.avail_out;
    adler = adler32(adler, out.data(), static_cast<uInt>(got));
    total += got;
    if (rc == Z_BUF_ERROR || (rc == Z_OK && got == 0)) break;
  }
  const bool ended = rc == Z_STREAM_END && z.avail_in == 0;
  inflateEnd(&z);
  if (!ended) return;
  p[n - 4] = static_cast<std::uint8_t>(adler >> 24);
  p[n - 3] = static_cast<std::uint8_t>(adler >> 16);
  p[n - 2] = static_cast<std::uint8_t>(adler >> 8);
  p[n - 1] = static_cast<std::uint8_t>(adler);
}

// Makes the checksums of a log right, following the format as the reader does
// (docs/LOG-FORMAT.md): header CRC, index CRC, then region by region from the end of the
// header, as walking the frames finds them: Adler-32, CRC of the compressed bytes, frame
// header CRC. Regions are found by walking, so index entries that point elsewhere stay wrong.
void fix_checksums(std::vector<std::uint8_t>& b) {
  using namespace logfmt;
  if (b.size() < preamble_size || get64(b, 0) != magic) return;
  put32(b, preamble_size - 4, log_crc32(0, b.data(), preamble_size - 4));
  const std::uint32_t capacity = get32(b, 16);
  const std::uint32_t header = get32(b, 20);
  if (capacity > max_region_capacity || header != header_size(capacity) || b.size() < header) return;
  put32(b, header - 4, log_crc32(0, b.data() + preamble_size, index_block_size(capacity) - 4));
  for (std::uint64_t off = header; b.size() - off >= frame_header_size;) {
    if (get32(b, off) != frame_magic) break;
    const std::uint64_t compressed = get64(b, off + 32);
    if (compressed > b.size() - off - frame_header_size) break;
    std::uint8_t* data = b.data() + off + frame_header_size;
    fix_adler(data, compressed);
    put32(b, off + 48, log_crc32(0, data, compressed));
    put32(b, off + 52, log_crc32(0, b.data() + off, frame_header_size - 4));
    off += frame_header_size + compressed;
  }
}

log_reader_options reader_options() {
  log_reader_options o;
  o.chunk_bytes = 4096;  // the smallest: reads cross chunk boundaries even in small logs
  o.max_name_table_bytes = 1u << 20;
  return o;
}

void print(const std::string& path, bool json) {
  static null_buffer buffer;
  static std::ostream out(&buffer);
  log_print_options o;
  o.json = json;
  o.show_partial = json;
  o.registry = &registry();
  o.reader = reader_options();
  try {
    print_log(path, o, out);
  } catch (const log_error&) {
  }
}

// Every region either streams exactly its uncompressed size or throws log_error.
void walk_chunks(const std::string& path) {
  try {
    log_reader reader(path, reader_options());
    for (const auto& r : reader.regions()) {
      std::uint64_t total = 0;
      try {
        reader.for_each_chunk(r, [&](const std::uint8_t* p, std::size_t n) {
          if (n == 0 || p == nullptr) std::abort();
          total += n;
        });
      } catch (const log_error&) {
        continue;
      }
      if (total != r.uncompressed_size) {
        std::fprintf(stderr, "region %u: for_each_chunk gave %llu bytes, its frame says %llu\n",
                     r.id, static_cast<unsigned long long>(total),
                     static_cast<unsigned long long>(r.uncompressed_size));
        std::abort();
      }
    }
  } catch (const log_error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static memory_file file("perfdm_log_fuzz");
  std::vector<std::uint8_t> fixed(data, data + size);
  fix_checksums(fixed);
  if (!std::equal(fixed.begin(), fixed.end(), data)) {
    file.set(data, size);
    print(file.path(), false);
  }
  file.set(fixed.data(), fixed.size());
  print(file.path(), false);
  print(file.path(), true);
  walk_chunks(file.path());
  return 0;
}
