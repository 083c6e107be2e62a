// Damaged and unexpected perfdm logs: every problem is a clear error naming it and a non-zero
// exit (never a crash), or, for what a reader may skip, a `#` note. Every damage is tried on
// a zlib log and on a zstd log (EACH_COMPRESSION).
#include <unistd.h>
#include <zstd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "log/log_listing.hpp"
#include "log/log_core.hpp"
#include "log/log_counters.hpp"
#include "log/log_reader.hpp"
#include "log/log_writer.hpp"
#include "tests/log_test_files.hpp"

using namespace perfdm;

namespace {

constexpr std::uint32_t posix_id = 16;
constexpr std::uint32_t mpiio_id = 17;

std::string temp_path(const std::string& name) {
  return log_test::temp_path("log_corruption_test", name);
}

using log_test::removed_on_exit;

using log_test::slurp;

using log_test::spit;

template <class T>
T get(const std::string& b, std::size_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof v);
  return v;
}
template <class T>
void put(std::string& b, std::size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof v);
}

void fix_preamble_crc(std::string& b) {
  put<std::uint32_t>(b, 28, log_crc32(0, b.data(), 28));
}
void fix_index_crc(std::string& b) {
  const auto cap = get<std::uint32_t>(b, 16);
  const std::size_t n = logfmt::index_block_size(cap);
  put<std::uint32_t>(b, 32 + n - 4, log_crc32(0, b.data() + 32, n - 4));
}
void fix_frame_crc(std::string& b, std::size_t off) {
  put<std::uint32_t>(b, off + 52, log_crc32(0, b.data() + off, 52));
}
// Offset of index entry i.
std::size_t entry(std::size_t i) {
  return 32 + 16 + 40 * i;
}

void write_standard(const std::string& path, log_compression compression) {
  log_core_options o;
  o.compression = compression;
  log_core core(o);
  core.job().command_line = "./app";
  core.job().host = "h";
  core.job().pids = {1};
  core.register_module("POSIX", posix_id, 3, 1 << 20);
  core.register_module("MPIIO", mpiio_id, 1, 1 << 20);
  const auto reads = core.lookup_id("READS");
  for (int k = 0; k < 50; ++k) {
    const auto f = core.lookup_id("/file/" + std::to_string(k));
    core.add_counters(
        posix_id, f,
        {log_counter::of(reads, std::int64_t{k}), log_counter::of(reads + 1, 0.5 * k)});
    core.add_counters(mpiio_id, f, {log_counter::of(reads, std::int64_t{2 * k})});
  }
  core.write(path);
}

log_printer_registry both_printers() {
  log_printer_registry r;
  r.add(posix_id, "POSIX", 3, print_log_counters);
  r.add(mpiio_id, "MPIIO", 1, print_log_counters);
  return r;
}

struct run_result {
  int rc;
  std::string out, err;
};

run_result run(const std::string& path, const log_printer_registry& reg,
               bool show_partial = false) {
  log_command_options o;
  o.file = path;
  o.registry = &reg;
  o.show_partial = show_partial;
  std::ostringstream out, err;
  const int rc = run_log_command(o, out, err);
  return {rc, out.str(), err.str()};
}

std::size_t rows(const std::string& out) {
  std::size_t n = 0;
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);) n += !l.empty() && l[0] != '#';
  return n;
}

// The standard log, and where its regions are.
struct fixture {
  log_compression compression;
  removed_on_exit cleanup;
  std::string good = temp_path("good.log");
  std::string bad = temp_path("bad.log");
  std::string bytes;
  std::vector<log_region> regions;
  log_printer_registry reg = both_printers();

  explicit fixture(log_compression c) : compression(c) {
    cleanup.paths = {good, bad};
    write_standard(good, compression);
    bytes = slurp(good);
    log_reader r(good);
    REQUIRE(r.compression() == static_cast<std::uint32_t>(compression));
    regions = r.regions();
  }
  run_result run_bad(const std::string& b) {
    spit(bad, b);
    return run(bad, reg);
  }
  void expect_error(const std::string& b, const std::string& text) {
    const auto res = run_bad(b);
    INFO(log_compression_name(compression) << " log\nout: " << res.out << "\nerr: " << res.err);
    CHECK(res.rc == 1);
    CHECK(res.err.rfind("perfdm log: " + bad + ": ", 0) == 0);
    CHECK(res.err.find(text) != std::string::npos);
  }
};

}  // namespace

TEST_CASE("log corruption: the standard log reads", "[log]") {
  fixture f(EACH_COMPRESSION);
  const auto res = run(f.good, f.reg);
  CHECK(res.rc == 0);
  CHECK(rows(res.out) == 150);
  REQUIRE(f.regions.size() == 4);
}

TEST_CASE("log corruption: wrong magic", "[log]") {
  fixture f(EACH_COMPRESSION);
  auto b = f.bytes;
  b[0] = 'X';
  f.expect_error(b, "wrong magic: not a perfdm log (it starts with 5846444d4c4f471a");
  f.expect_error("hello, this is a text file and not a log at all\n", "wrong magic");
  f.expect_error("abc", "wrong magic");
}

TEST_CASE("log corruption: a byte-swapped magic says other byte order", "[log]") {
  fixture f(EACH_COMPRESSION);
  auto b = f.bytes;
  std::reverse(b.begin(), b.begin() + 8);
  f.expect_error(b, "other byte order");
}

TEST_CASE("log corruption: unsupported compression", "[log]") {
  fixture f(EACH_COMPRESSION);
  for (std::uint32_t type : {0u, 3u, 9u}) {
    auto b = f.bytes;
    put<std::uint32_t>(b, 12, type);
    fix_preamble_crc(b);
    f.expect_error(b, "unsupported compression: unknown type " + std::to_string(type) +
                          "; this reader reads zlib (type 1) and zstd (type 2) logs");
  }
}

TEST_CASE("log corruption: a header naming the other compression", "[log]") {
  fixture f(EACH_COMPRESSION);
  const bool zstd = f.compression == log_compression::zstd;
  auto b = f.bytes;
  put<std::uint32_t>(b, 12, zstd ? logfmt::compression_zlib : logfmt::compression_zstd);
  fix_preamble_crc(b);
  // Every CRC still matches: the payloads are decoded with the wrong decompressor.
  f.expect_error(b, "region job (id 0): corrupt compressed data (" +
                        std::string(zstd ? "zlib: "
                                         : "zstd: the region does not start with "
                                           "a zstd frame"));
}

TEST_CASE("log corruption: newer format version, header CRC", "[log]") {
  fixture f(EACH_COMPRESSION);
  auto b = f.bytes;
  put<std::uint32_t>(b, 8, 2);
  f.expect_error(b, "unsupported format version 2 (newer than this reader");
  b = f.bytes;
  b[24] ^= 1;  // the reserved field: only the CRC notices
  f.expect_error(b, "header CRC mismatch");
  b = f.bytes;
  put<std::uint32_t>(b, 20, 12345);  // header size that does not match the capacity
  fix_preamble_crc(b);
  f.expect_error(b, "corrupt header");
}

TEST_CASE("log corruption: truncated at any offset", "[log]") {
  fixture f(EACH_COMPRESSION);
  f.expect_error("", "empty file");
  const std::size_t header = logfmt::header_size(4);
  std::vector<std::size_t> cuts = {1,  4,  7,          8,      20,         31,
                                   32, 40, header - 1, header, header + 1, f.bytes.size() - 1};
  for (const auto& r : f.regions) {
    cuts.push_back(r.offset + 10);
    cuts.push_back(r.offset + logfmt::frame_header_size + r.compressed_size / 2);
  }
  for (std::size_t cut : cuts) {
    INFO("cut at " << cut);
    f.expect_error(f.bytes.substr(0, cut), "truncated");
  }
  f.expect_error(f.bytes.substr(0, f.bytes.size() - 1),
                 "truncated: the file is " + std::to_string(f.bytes.size() - 1) +
                     " bytes, the finished log was " + std::to_string(f.bytes.size()) + " bytes");
  // Every other cut too: an error, never a crash.
  for (std::size_t cut = 1; cut < f.bytes.size(); ++cut) {
    spit(f.bad, f.bytes.substr(0, cut));
    const auto res = run(f.bad, f.reg);
    if (res.rc != 1 || res.err.find("truncated") == std::string::npos) {
      FAIL("cut at " << cut << ": rc " << res.rc << " err " << res.err);
    }
  }
}

TEST_CASE("log corruption: a length past the end of the file", "[log]") {
  fixture f(EACH_COMPRESSION);
  auto b = f.bytes;
  put<std::uint64_t>(b, entry(2) + 24, std::uint64_t{1} << 40);  // POSIX compressed size
  fix_index_crc(b);
  f.expect_error(b, "length past the end of the file: the index puts region 2 (id 16) at offset");
  b = f.bytes;
  put<std::uint64_t>(b, entry(3) + 16, ~std::uint64_t{0} - 10);  // MPIIO offset: overflows
  fix_index_crc(b);
  f.expect_error(b, "length past the end of the file");
}

TEST_CASE("log corruption: CRC mismatch in a region", "[log]") {
  fixture f(EACH_COMPRESSION);
  const auto& posix = f.regions[2];
  auto b = f.bytes;
  b[posix.offset + logfmt::frame_header_size + posix.compressed_size / 2] ^= 0x40;
  f.expect_error(b,
                 "CRC mismatch in region POSIX (id 16) at offset " + std::to_string(posix.offset));
  // No row was printed before the error.
  spit(f.bad, b);
  CHECK(rows(run(f.bad, f.reg).out) == 0);
}

TEST_CASE("log corruption: frame headers and the index", "[log]") {
  fixture f(EACH_COMPRESSION);
  const auto& posix = f.regions[2];
  auto b = f.bytes;
  b[posix.offset + 20] ^= 1;  // module name byte, frame CRC not fixed
  f.expect_error(b, "frame header fails its CRC check");
  b = f.bytes;
  put<std::uint32_t>(b, posix.offset, 0);  // frame magic
  fix_frame_crc(b, posix.offset);
  f.expect_error(b, "no region frame there");
  b = f.bytes;
  put<std::uint32_t>(b, posix.offset + 8, 4);  // version in the frame only
  fix_frame_crc(b, posix.offset);
  f.expect_error(b, "the header index and the frame header of region 2 (id 16)");
  b = f.bytes;
  put<std::uint32_t>(b, entry(3), posix_id);  // the same id twice
  put<std::uint32_t>(b, f.regions[3].offset + 4, posix_id);
  fix_frame_crc(b, f.regions[3].offset);
  fix_index_crc(b);
  f.expect_error(b, "appears twice");
}

TEST_CASE("log corruption: uncompressed sizes that lie, corrupt compressed data", "[log]") {
  fixture f(EACH_COMPRESSION);
  const auto& posix = f.regions[2];
  for (std::int64_t delta : {+10, -10}) {
    auto b = f.bytes;
    const auto u = posix.uncompressed_size + static_cast<std::uint64_t>(delta);
    put<std::uint64_t>(b, posix.offset + 40, u);
    fix_frame_crc(b, posix.offset);
    put<std::uint64_t>(b, entry(2) + 32, u);
    fix_index_crc(b);
    INFO("delta " << delta);
    f.expect_error(b, "region POSIX (id 16): ");
    spit(f.bad, b);
    const auto res = run(f.bad, f.reg);
    CHECK((res.err.find("compressed data ends after") != std::string::npos ||
           res.err.find("more uncompressed data than") != std::string::npos));
  }
  // Corrupt compressed data behind a CRC that matches it (a writer bug, say); the first 8
  // bytes (zlib header, zstd magic and frame header) are left alone, so the decoder itself
  // finds the damage.
  auto b = f.bytes;
  const std::size_t data = posix.offset + logfmt::frame_header_size;
  for (std::size_t i = 8; i < posix.compressed_size; i += 3) b[data + i] ^= 0x5a;
  put<std::uint32_t>(b, posix.offset + 48, log_crc32(0, b.data() + data, posix.compressed_size));
  fix_frame_crc(b, posix.offset);
  f.expect_error(b, "region POSIX (id 16): ");
  {
    // Damaged block sizes may also make the stream look cut short (zstd, say).
    const auto res = f.run_bad(b);
    INFO(res.err);
    CHECK((res.err.find("corrupt compressed data (" +
                        std::string(log_compression_name(f.compression)) + ": ") !=
               std::string::npos ||
           res.err.find("the compressed data is cut short") != std::string::npos));
  }
  // One byte of the content flipped at the end: the stream's own checksum (zlib's Adler-32,
  // the zstd frame's content checksum) finds it.
  b = f.bytes;
  b[data + posix.compressed_size - 1] ^= 0x01;
  put<std::uint32_t>(b, posix.offset + 48, log_crc32(0, b.data() + data, posix.compressed_size));
  fix_frame_crc(b, posix.offset);
  f.expect_error(b, "region POSIX (id 16): corrupt compressed data (" +
                        std::string(log_compression_name(f.compression)) + ": ");
}

TEST_CASE("log corruption: a malformed record payload", "[log]") {
  removed_on_exit cleanup;
  const std::string path = temp_path("payload.log");
  cleanup.paths = {path};
  log_core_options o;
  o.compression = EACH_COMPRESSION;
  log_core core(o);
  core.register_module("POSIX", posix_id, 3, 1 << 20);
  core.add_counters(posix_id, 1, {log_counter::of(2, std::int64_t{3})});
  core.add_record(posix_id, "garbage", 7);
  core.write(path);
  const auto reg = both_printers();
  const auto res = run(path, reg);
  CHECK(res.rc == 1);
  CHECK(rows(res.out) == 1);  // the good record before it was printed
  CHECK(res.err.find("region POSIX (id 16): counters record of 7 bytes, shorter than its "
                     "12-byte header") != std::string::npos);
}

TEST_CASE("log corruption: an unknown module is skipped with a note", "[log]") {
  fixture f(EACH_COMPRESSION);
  log_printer_registry only_posix;
  only_posix.add(posix_id, "POSIX", 3, print_log_counters);
  const auto res = run(f.good, only_posix);
  INFO(res.out);
  CHECK(res.rc == 0);
  CHECK(res.out.find("# note: module MPIIO (id 17) is unknown to this reader: skipped\n") !=
        std::string::npos);
  CHECK(rows(res.out) == 100);
}

TEST_CASE("log corruption: a newer module version is skipped with a note", "[log]") {
  fixture f(EACH_COMPRESSION);
  log_printer_registry old;
  old.add(posix_id, "POSIX", 2, print_log_counters);
  old.add(mpiio_id, "MPIIO", 1, print_log_counters);
  const auto res = run(f.good, old);
  CHECK(res.rc == 0);
  CHECK(res.out.find("# note: module POSIX (id 16) version 3 is newer than this reader reads "
                     "(up to version 2): skipped\n") != std::string::npos);
  CHECK(rows(res.out) == 50);
}

TEST_CASE("log corruption: reserved region ids and newer core regions are notes", "[log]") {
  removed_on_exit cleanup;
  const std::string path = temp_path("reserved.log");
  cleanup.paths = {path};
  {
    log_writer w(path, 4, log_default_level, EACH_COMPRESSION);
    w.write_job(job_record{});
    w.begin_region(logfmt::region_names, 2, "names");  // a newer name table
    w.write("whatever", 8);
    w.end_region();
    w.begin_region(5, 1, "future");
    w.end_region();
    w.begin_region(posix_id, 3, "POSIX");
    std::vector<std::uint8_t> rec;
    encode_log_counters(77, {log_counter::of(1, std::int64_t{1})}, rec);
    w.write_record(rec.data(), rec.size());
    w.end_region();
    w.finish();
  }
  const auto reg = both_printers();
  const auto res = run(path, reg);
  INFO(res.out << res.err);
  CHECK(res.rc == 0);
  CHECK(res.out.find("# note: name table version 2 is newer than this reader reads (1): "
                     "records are printed without names") != std::string::npos);
  CHECK(res.out.find("# note: region future (id 5) has a reserved id this reader does not "
                     "know: skipped") != std::string::npos);
  CHECK(res.out.find("POSIX\t77\t<counter 0x0000000000000001>\t1\t<no name>\n") !=
        std::string::npos);
}

TEST_CASE("log corruption: a damaged index is ignored, regions are walked", "[log]") {
  fixture f(EACH_COMPRESSION);
  auto b = f.bytes;
  b[entry(1) + 12] ^= 1;  // a reserved index byte: the index CRC fails
  const auto res = f.run_bad(b);
  CHECK(res.rc == 0);
  CHECK(res.out.find("# note: the header index fails its CRC check: ignoring it, regions were "
                     "found by walking their frames\n") != std::string::npos);
  CHECK(rows(res.out) == 150);
}

TEST_CASE("log corruption: every single-byte flip and random damage, never a crash", "[log]") {
  fixture f(EACH_COMPRESSION);
  std::size_t errors = 0;
  for (std::size_t i = 0; i < f.bytes.size(); ++i) {
    auto b = f.bytes;
    b[i] = static_cast<char>(b[i] ^ 0xff);
    const auto res = f.run_bad(b);
    if (!(res.rc == 0 || (res.rc == 1 && !res.err.empty()))) FAIL("flip at " << i);
    errors += res.rc == 1;
  }
  // Flips of the index (walked instead) and of unused name bytes may read; nearly all fail.
  CHECK(errors > f.bytes.size() * 9 / 10);
  std::mt19937 rng(12345);
  for (int k = 0; k < 300; ++k) {
    auto b = f.bytes;
    const int n = 1 + static_cast<int>(rng() % 16);
    for (int j = 0; j < n; ++j) b[rng() % b.size()] = static_cast<char>(rng());
    if (rng() % 3 == 0) b.resize(rng() % b.size());
    const auto res = f.run_bad(b);
    if (!(res.rc == 0 || (res.rc == 1 && !res.err.empty()))) FAIL("random damage " << k);
  }
}

namespace {

// Replaces the payload of the log's last region with `payload` (CRCs, sizes and the index
// fixed to match): a region holding what a writer never writes, behind valid checks.
std::string with_last_payload(std::string b, const log_region& last, const std::string& payload,
                              std::uint64_t uncompressed_size) {
  const std::size_t data = last.offset + logfmt::frame_header_size;
  REQUIRE(data + last.compressed_size == b.size());
  b.resize(data);
  b += payload;
  put<std::uint64_t>(b, last.offset + 32, payload.size());
  put<std::uint64_t>(b, last.offset + 40, uncompressed_size);
  put<std::uint32_t>(b, last.offset + 48, log_crc32(0, payload.data(), payload.size()));
  fix_frame_crc(b, last.offset);
  const auto count = get<std::uint32_t>(b, 36);
  for (std::uint32_t i = 0; i < count; ++i) {
    if (get<std::uint64_t>(b, entry(i) + 16) == last.offset) {
      put<std::uint64_t>(b, entry(i) + 24, payload.size());
      put<std::uint64_t>(b, entry(i) + 32, uncompressed_size);
    }
  }
  put<std::uint64_t>(b, 40, b.size());
  fix_index_crc(b);
  return b;
}

std::string zstd_frame(const std::string& content, int window_log = 0) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  if (window_log) ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, window_log);
  std::string out(ZSTD_compressBound(content.size()) + 64, '\0');
  ZSTD_inBuffer in{content.data(), content.size(), 0};
  ZSTD_outBuffer o{out.data(), out.size(), 0};
  // Streamed (size unknown to zstd), so the frame keeps the window it was given.
  ZSTD_compressStream2(c, &o, &in, ZSTD_e_continue);
  const std::size_t left = ZSTD_compressStream2(c, &o, &in, ZSTD_e_end);
  ZSTD_freeCCtx(c);
  REQUIRE(left == 0);
  out.resize(o.pos);
  return out;
}

}  // namespace

TEST_CASE("log corruption: a zstd region that is not exactly one zstd frame", "[log][zstd]") {
  removed_on_exit cleanup;
  const std::string path = temp_path("frames.log");
  const std::string bad = temp_path("frames-bad.log");
  cleanup.paths = {path, bad};
  std::vector<std::uint8_t> rec;
  encode_log_counters(77, {log_counter::of(1, std::int64_t{1})}, rec);
  // One module record as the region holds it: u32 length, then the payload.
  std::string content(4, '\0');
  const auto n = static_cast<std::uint32_t>(rec.size());
  std::memcpy(content.data(), &n, 4);
  content.append(rec.begin(), rec.end());
  {
    log_writer w(path, 2, log_default_level, log_compression::zstd);
    w.write_job(job_record{});
    w.begin_region(posix_id, 3, "POSIX");
    w.write(content.data(), content.size());
    w.end_region();
    w.finish();
  }
  const auto reg = both_printers();
  REQUIRE(run(path, reg).rc == 0);
  const std::string good = slurp(path);
  const log_region last = log_reader(path).regions().back();
  auto expect = [&](const std::string& payload, std::uint64_t size, const std::string& text) {
    spit(bad, with_last_payload(good, last, payload, size));
    const auto res = run(bad, reg);
    INFO(res.out << res.err);
    CHECK(res.rc == 1);
    CHECK(res.err.find("perfdm log: " + bad + ": region POSIX (id 16): " + text) !=
          std::string::npos);
  };
  // The same region, rebuilt by hand: it reads (the helper is right).
  spit(bad, with_last_payload(good, last, zstd_frame(content), content.size()));
  REQUIRE(run(bad, reg).rc == 0);
  // A second frame behind the first.
  expect(zstd_frame(content) + zstd_frame(content), content.size(),
         "compressed bytes after the end of the zstd frame");
  // A skippable frame (magic 0x184D2A50, 4-byte length, no content) before the frame.
  std::string skippable("\x50\x2a\x4d\x18\x00\x00\x00\x00", 8);
  expect(skippable + zstd_frame(content), content.size(),
         "corrupt compressed data (zstd: the region does not start with a zstd frame");
  // An empty payload, and a frame cut short.
  expect("", content.size(), "the compressed data is cut short (the zstd frame does not end");
  const std::string frame = zstd_frame(content);
  expect(frame.substr(0, frame.size() - 5), content.size(), "the compressed data is cut short");
  // A frame asking for a 128 MiB window: refused, not allocated.
  expect(zstd_frame(content, 27), content.size(),
         "the zstd frame needs a window larger than the 8 MiB this reader accepts");
}
