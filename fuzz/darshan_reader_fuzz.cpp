// libFuzzer target: the Darshan log reader and printers (darshan/darshan_log.hpp,
// darshan_text.hpp, darshan_csv.hpp).
//
// Each input goes into one memfd, reopened through /proc/self/fd/N (the reader reads files by
// offset). It is opened, then printed as darshan-parser prints it with every option, as
// darshan-dxt-parser prints it, and as CSV tables; and printed again with a name table of a
// few hundred bytes fetching names 3 records at a time, which must print the same bytes.
// Seeds (fuzz/corpus/darshan/): test logs of every format, stored, zlib and bzip2, both byte
// orders (tests/darshan/write_test_log), and the smaller sample logs; the stored ones let
// mutations reach the record decoders without a checksum in the way.
//
// A darshan_error is the reader's answer to a log it cannot open: expected. Anything else —
// a crash, a sanitizer report, another exception escaping, a leak, a broken invariant
// (abort) — is a finding.
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <streambuf>
#include <string>

#include "darshan/darshan_csv.hpp"
#include "darshan/darshan_log.hpp"
#include "darshan/darshan_text.hpp"
#include "fuzz/memory_file.hpp"

using namespace perfdm::darshan;

namespace {

// Output goes nowhere but into a checksum (zlib's crc32), so two printings can be compared.
class hashing_buffer final : public std::streambuf {
 public:
  std::uint64_t hash = 0;
  std::uint64_t bytes = 0;

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    hash = crc32(static_cast<uLong>(hash), reinterpret_cast<const Bytef*>(s), static_cast<uInt>(n));
    bytes += static_cast<std::uint64_t>(n);
    return n;
  }
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      const char ch = traits_type::to_char_type(c);
      xsputn(&ch, 1);
    }
    return traits_type::not_eof(c);
  }
};

log_options small_reads() {
  log_options lo;
  lo.chunk_bytes = 4096;         // reads cross chunk boundaries even in small logs
  lo.max_buffered_segments = 5;  // larger DXT records take the streaming path
  return lo;
}

// Prints `path` with `o` as darshan-parser (or darshan-dxt-parser); the hash of the output.
std::uint64_t print(const std::string& path, const text_options& o, bool dxt) {
  hashing_buffer buffer;
  std::ostream out(&buffer), err(&buffer);
  log_file log(path, small_reads());
  int rc = dxt ? print_dxt_text(log, o, out, err) : print_parser_text(log, o, out, err);
  if (rc != 0 && rc != 1) std::abort();
  return buffer.hash ^ buffer.bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static memory_file file("perfdm_darshan_fuzz");
  static const std::string csv_dir =
      (std::filesystem::temp_directory_path() / ("perfdm_darshan_fuzz_" + std::to_string(::getpid())))
          .string();
  file.set(data, size);
  try {
    text_options all;
    all.total = all.perf = all.file = all.show_incomplete = true;
    const std::uint64_t whole = print(file.path(), all, false);
    // Names fetched in batches print what a whole name table prints.
    text_options tight = all;
    tight.max_name_bytes = 300;
    tight.lookahead_records = 3;
    if (print(file.path(), tight, false) != whole) {
      std::fprintf(stderr, "names fetched in batches printed other bytes\n");
      std::abort();
    }
    print(file.path(), text_options{}, false);
    print(file.path(), all, true);
    log_file log(file.path(), small_reads());
    write_csv_tables(log, csv_dir, all);
  } catch (const darshan_error&) {
  }
  return 0;
}
