// Log write and read throughput, side by side with plain zlib and plain zstd on
// the same bytes.
//
// One module in the generic counters payload, about 64 MiB of records, made like Darshan's
// POSIX module: one record per file, 69 integer and 17 real counters (operation counts,
// byte counts, access-size histograms, strides, ranks, timestamps, times), most of them
// small or zero as in real logs. Every benchmark counts the same bytes: the module's
// uncompressed records (u32 length + payload each, the bytes the writer deflates), via
// SetBytesProcessed, so MB/s figures compare directly:
//   BM_log_write/zlib   log_core::write(): job, name table, module region, index, fsync,
//                       rename; zlib at the core's default level (6)
//   BM_zlib_compress    compress2() of the records at the same level
//   BM_log_read/zlib    log_reader: open (header, index, CRC-32 of every region) and stream
//                       every record of the module (chunked inflate, one record at a time)
//   BM_zlib_uncompress  uncompress() of compress2()'s output, into a buffer allocated once
//   BM_log_write/zstd, BM_log_read/zstd  the same log written with zstd (default level 3,
//                       streamed with ZSTD_compressStream2, frame content checksum on)
//   BM_zstd_compress    ZSTD_compress() of the records at the same level (no checksum)
//   BM_zstd_decompress  ZSTD_decompress() of its output, into a buffer allocated once
//   BM_log_print        `perfdm log` into a stream that counts bytes (rows/s as a counter)
// The name table (file and counter names, 3.4 MB) is written and checked too but not
// counted, so the log's figures are, if anything, on the low side.
#include <benchmark/benchmark.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <ostream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <vector>

#include "log/log_core.hpp"
#include "log/log_counters.hpp"
#include "log/log_print.hpp"
#include "log/log_reader.hpp"

using namespace perfdm;

namespace {

constexpr std::uint32_t posix_id = 16;
constexpr std::size_t target_bytes = 64u << 20;
constexpr int level = Z_DEFAULT_COMPRESSION;     // log_core_options' default: zlib's 6
constexpr int zstd_level = ZSTD_CLEVEL_DEFAULT;  // the log's zstd default: 3

struct prng {  // xorshift64*
  std::uint64_t s = 0x9E3779B97F4A7C15ULL;
  std::uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545F4914F6CDD1DULL;
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  // Log-uniform in [1, max): counts and sizes spread over orders of magnitude.
  std::int64_t spread(double max) {
    return static_cast<std::int64_t>(std::exp(unit() * std::log(max)));
  }
};

// Darshan POSIX-like counter names: 69 integers, then 17 reals.
std::vector<std::string> integer_counters() {
  std::vector<std::string> v = {"OPENS",
                                "FILENOS",
                                "DUPS",
                                "READS",
                                "WRITES",
                                "SEEKS",
                                "STATS",
                                "MMAPS",
                                "FSYNCS",
                                "FDSYNCS",
                                "RENAME_SOURCES",
                                "RENAME_TARGETS",
                                "RENAMED_FROM",
                                "MODE",
                                "BYTES_READ",
                                "BYTES_WRITTEN",
                                "MAX_BYTE_READ",
                                "MAX_BYTE_WRITTEN",
                                "CONSEC_READS",
                                "CONSEC_WRITES",
                                "SEQ_READS",
                                "SEQ_WRITES",
                                "RW_SWITCHES",
                                "MEM_NOT_ALIGNED",
                                "MEM_ALIGNMENT",
                                "FILE_NOT_ALIGNED",
                                "FILE_ALIGNMENT",
                                "MAX_READ_TIME_SIZE",
                                "MAX_WRITE_TIME_SIZE"};
  const char* buckets[] = {"0_100", "100_1K", "1K_10K",   "10K_100K", "100K_1M",
                           "1M_4M", "4M_10M", "10M_100M", "100M_1G",  "1G_PLUS"};
  for (const char* rw : {"READ", "WRITE"}) {
    for (const char* b : buckets) v.push_back(std::string("SIZE_") + rw + "_" + b);
  }
  for (int k = 1; k <= 4; ++k) v.push_back("STRIDE" + std::to_string(k) + "_STRIDE");
  for (int k = 1; k <= 4; ++k) v.push_back("STRIDE" + std::to_string(k) + "_COUNT");
  for (int k = 1; k <= 4; ++k) v.push_back("ACCESS" + std::to_string(k) + "_ACCESS");
  for (int k = 1; k <= 4; ++k) v.push_back("ACCESS" + std::to_string(k) + "_COUNT");
  for (const char* n :
       {"FASTEST_RANK", "FASTEST_RANK_BYTES", "SLOWEST_RANK", "SLOWEST_RANK_BYTES"}) {
    v.push_back(n);
  }
  for (auto& n : v) n = "POSIX_" + n;
  return v;
}

std::vector<std::string> real_counters() {
  std::vector<std::string> v;
  for (const char* n : {"OPEN_START_TIMESTAMP", "READ_START_TIMESTAMP", "WRITE_START_TIMESTAMP",
                        "CLOSE_START_TIMESTAMP", "OPEN_END_TIMESTAMP", "READ_END_TIMESTAMP",
                        "WRITE_END_TIMESTAMP", "CLOSE_END_TIMESTAMP", "READ_TIME", "WRITE_TIME",
                        "META_TIME", "MAX_READ_TIME", "MAX_WRITE_TIME", "FASTEST_RANK_TIME",
                        "SLOWEST_RANK_TIME", "VARIANCE_RANK_TIME", "VARIANCE_RANK_BYTES"}) {
    v.push_back(std::string("POSIX_F_") + n);
  }
  return v;
}

// One file's counters: a file is read, written or both, with one transfer size mostly.
std::vector<log_counter> file_counters(prng& rng, const std::vector<std::uint64_t>& ints,
                                       const std::vector<std::uint64_t>& reals) {
  std::vector<log_counter> cs;
  cs.reserve(ints.size() + reals.size());
  const std::uint64_t kind = rng.below(3);  // read only, write only, both
  const std::int64_t reads = kind != 1 ? rng.spread(20000) : 0;
  const std::int64_t writes = kind != 0 ? rng.spread(20000) : 0;
  const std::int64_t xfer = std::int64_t{1} << (9 + rng.below(14));  // 512 B .. 4 MiB
  const std::int64_t opens = rng.spread(64);
  std::vector<std::int64_t> v(ints.size(), 0);
  v[0] = opens;
  v[3] = reads;
  v[4] = writes;
  v[5] = rng.below(4) == 0 ? rng.spread(reads + writes + 1) : 0;
  v[6] = rng.below(2) ? opens : 0;
  v[8] = writes ? rng.below(3) : 0;
  v[13] = 0644 | (rng.below(4) == 0 ? 0111 : 0);
  v[14] = reads * xfer;
  v[15] = writes * xfer;
  v[16] = reads ? reads * xfer - 1 : 0;
  v[17] = writes ? writes * xfer - 1 : 0;
  v[18] = reads - (reads > 0);
  v[19] = writes - (writes > 0);
  v[20] = v[18];
  v[21] = v[19];
  v[22] = reads && writes ? rng.spread(opens + 1) : 0;
  v[23] = rng.below(8) == 0 ? rng.spread(reads + writes + 1) : 0;
  v[24] = 8;
  v[26] = 4096;
  v[27] = reads ? xfer : 0;
  v[28] = writes ? xfer : 0;
  const int bucket = xfer < 100         ? 0
                     : xfer < 1024      ? 1
                     : xfer < 10240     ? 2
                     : xfer < 102400    ? 3
                     : xfer < (1 << 20) ? 4
                                        : 5;
  v[29 + bucket] = reads;
  v[39 + bucket] = writes;
  v[49] = xfer;  // STRIDE1_STRIDE
  v[53] = reads + writes > 1 ? reads + writes - 1 : 0;
  v[57] = xfer;  // ACCESS1_ACCESS
  v[61] = reads + writes;
  v[65] = static_cast<std::int64_t>(rng.below(1024));
  v[66] = v[14] + v[15];
  v[67] = static_cast<std::int64_t>(rng.below(1024));
  v[68] = v[66];
  for (std::size_t k = 0; k < ints.size(); ++k) cs.push_back(log_counter::of(ints[k], v[k]));
  const double start = 1.5 + rng.unit() * 30;
  const double io = (reads + writes) * (0.00001 + rng.unit() * 0.0001);
  const double f[] = {start,
                      reads ? start + 0.001 : 0,
                      writes ? start + 0.002 : 0,
                      start + io,
                      start + 0.0005,
                      reads ? start + io * 0.9 : 0,
                      writes ? start + io : 0,
                      start + io + 0.0001,
                      reads ? io * 0.6 : 0,
                      writes ? io * 0.4 : 0,
                      0.0002 + rng.unit() * 0.001,
                      reads ? rng.unit() * 0.01 : 0,
                      writes ? rng.unit() * 0.01 : 0,
                      io * 0.9,
                      io * 1.1,
                      0,
                      0};
  for (std::size_t k = 0; k < reals.size(); ++k) cs.push_back(log_counter::of(reals[k], f[k]));
  return cs;
}

// Counts what is written and keeps nothing.
class counting_buf : public std::streambuf {
 public:
  std::uint64_t bytes = 0;

 protected:
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) ++bytes;
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char*, std::streamsize n) override {
    bytes += static_cast<std::uint64_t>(n);
    return n;
  }
};

// Built once: the module's records in one core per compression, its region bytes, a written
// log per compression, zlib's and zstd's output.
struct fixture {
  log_core core;                              // zlib
  log_core zstd_core;                         // the same records, zstd
  std::vector<std::uint8_t> region;           // the module's uncompressed records, as written
  std::vector<std::uint8_t> compressed;       // compress2(region)
  std::vector<std::uint8_t> zstd_compressed;  // ZSTD_compress(region)
  std::uint64_t records = 0, rows = 0;
  std::string path, write_path, zstd_path, zstd_write_path;
  std::uint64_t file_bytes = 0, zstd_file_bytes = 0;
  std::uint64_t names_bytes = 0;  // the name table, uncompressed

  static log_core_options options(log_compression c) {
    log_core_options o;
    o.module_memory_bytes = target_bytes + (1u << 20);
    o.name_memory_bytes = 16u << 20;
    o.compression = c;
    return o;
  }

  fixture() : core(options(log_compression::zlib)), zstd_core(options(log_compression::zstd)) {
    const auto dir = std::filesystem::temp_directory_path();
    const std::string stem = "perfdm_log_bench_" + std::to_string(::getpid());
    path = (dir / (stem + ".log")).string();
    write_path = (dir / (stem + "_write.log")).string();
    zstd_path = (dir / (stem + "_zstd.log")).string();
    zstd_write_path = (dir / (stem + "_zstd_write.log")).string();
    for (auto* c : {&core, &zstd_core}) {
      c->job().command_line = "./ior -a posix -w -r -t 1m -b 64m";
      c->job().host = "node17";
      c->register_module("POSIX", posix_id, 4, target_bytes + (1u << 20));
    }
    std::vector<std::uint64_t> ints, reals;
    for (const auto& n : integer_counters()) ints.push_back(core.lookup_id(n));
    for (const auto& n : real_counters()) reals.push_back(core.lookup_id(n));
    for (const auto& n : integer_counters()) zstd_core.lookup_id(n);
    for (const auto& n : real_counters()) zstd_core.lookup_id(n);
    prng rng;
    std::vector<std::uint8_t> rec;
    while (region.size() < target_bytes) {
      const std::string name = "/lustre/scratch/project/run42/output/rank" +
                               std::to_string(records % 4096) + "/part-" + std::to_string(records) +
                               ".dat";
      const auto file = core.lookup_id(name);
      zstd_core.lookup_id(name);
      const auto cs = file_counters(rng, ints, reals);
      rec.clear();
      encode_log_counters(file, cs, rec);
      if (!core.add_record(posix_id, rec.data(), rec.size()) ||
          !zstd_core.add_record(posix_id, rec.data(), rec.size())) {
        throw std::runtime_error("grant");
      }
      const auto n = static_cast<std::uint32_t>(rec.size());
      const auto* len = reinterpret_cast<const std::uint8_t*>(&n);
      region.insert(region.end(), len, len + 4);
      region.insert(region.end(), rec.begin(), rec.end());
      ++records;
      rows += cs.size();
    }
    core.write(path);
    file_bytes = std::filesystem::file_size(path);
    names_bytes = log_reader(path).find(logfmt::region_names)->uncompressed_size;
    uLongf size = compressBound(region.size());
    compressed.resize(size);
    if (compress2(compressed.data(), &size, region.data(), region.size(), level) != Z_OK) {
      throw std::runtime_error("compress2");
    }
    compressed.resize(size);
    zstd_core.write(zstd_path);
    zstd_file_bytes = std::filesystem::file_size(zstd_path);
    zstd_compressed.resize(ZSTD_compressBound(region.size()));
    const std::size_t z = ZSTD_compress(zstd_compressed.data(), zstd_compressed.size(),
                                        region.data(), region.size(), zstd_level);
    if (ZSTD_isError(z)) throw std::runtime_error("ZSTD_compress");
    zstd_compressed.resize(z);
  }
  ~fixture() {
    for (const auto* p : {&path, &write_path, &zstd_path, &zstd_write_path}) {
      std::remove(p->c_str());
    }
  }
  log_core& core_for(log_compression c) { return c == log_compression::zstd ? zstd_core : core; }
  const std::string& path_for(log_compression c) const {
    return c == log_compression::zstd ? zstd_path : path;
  }
  const std::string& write_path_for(log_compression c) const {
    return c == log_compression::zstd ? zstd_write_path : write_path;
  }
};

fixture& data() {
  static fixture f;
  return f;
}

void describe(benchmark::State& state, const fixture& f) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * f.region.size()));
  state.counters["MiB"] = static_cast<double>(f.region.size()) / (1 << 20);
}

void BM_log_write(benchmark::State& state, log_compression c) {
  auto& f = data();
  for (auto _ : state) f.core_for(c).write(f.write_path_for(c));
  describe(state, f);
  state.counters["log_MB"] =
      static_cast<double>(std::filesystem::file_size(f.write_path_for(c))) / 1e6;
  state.counters["records"] = static_cast<double>(f.records);
  state.counters["names_MB"] = static_cast<double>(f.names_bytes) / 1e6;
}

void BM_zlib_compress(benchmark::State& state) {
  auto& f = data();
  std::vector<std::uint8_t> out(compressBound(f.region.size()));
  uLongf size = 0;
  for (auto _ : state) {
    size = out.size();
    if (compress2(out.data(), &size, f.region.data(), f.region.size(), level) != Z_OK) {
      state.SkipWithError("compress2 failed");
    }
    benchmark::DoNotOptimize(out.data());
  }
  describe(state, f);
  state.counters["ratio"] = static_cast<double>(size) / static_cast<double>(f.region.size());
}

void BM_log_read(benchmark::State& state, log_compression c) {
  auto& f = data();
  std::uint64_t bytes = 0;
  for (auto _ : state) {
    log_reader r(f.path_for(c));
    bytes = 0;
    r.for_each_record(*r.find(posix_id),
                      [&](const std::uint8_t*, std::size_t n) { bytes += 4 + n; });
    if (bytes != f.region.size()) state.SkipWithError("record bytes differ");
  }
  describe(state, f);
  state.counters["log_MB"] =
      static_cast<double>(c == log_compression::zstd ? f.zstd_file_bytes : f.file_bytes) / 1e6;
}

void BM_zlib_uncompress(benchmark::State& state) {
  auto& f = data();
  std::vector<std::uint8_t> out(f.region.size());
  for (auto _ : state) {
    uLongf size = out.size();
    if (uncompress(out.data(), &size, f.compressed.data(), f.compressed.size()) != Z_OK ||
        size != f.region.size()) {
      state.SkipWithError("uncompress failed");
    }
    benchmark::DoNotOptimize(out.data());
  }
  describe(state, f);
}

void BM_zstd_compress(benchmark::State& state) {
  auto& f = data();
  std::vector<std::uint8_t> out(ZSTD_compressBound(f.region.size()));
  ZSTD_CCtx* cctx = ZSTD_createCCtx();  // reused, as the log writer reuses its own
  std::size_t size = 0;
  for (auto _ : state) {
    size = ZSTD_compressCCtx(cctx, out.data(), out.size(), f.region.data(), f.region.size(),
                             zstd_level);
    if (ZSTD_isError(size)) state.SkipWithError("ZSTD_compress failed");
    benchmark::DoNotOptimize(out.data());
  }
  ZSTD_freeCCtx(cctx);
  describe(state, f);
  state.counters["ratio"] = static_cast<double>(size) / static_cast<double>(f.region.size());
}

void BM_zstd_decompress(benchmark::State& state) {
  auto& f = data();
  std::vector<std::uint8_t> out(f.region.size());
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  for (auto _ : state) {
    const std::size_t size = ZSTD_decompressDCtx(
        dctx, out.data(), out.size(), f.zstd_compressed.data(), f.zstd_compressed.size());
    if (ZSTD_isError(size) || size != f.region.size()) {
      state.SkipWithError("ZSTD_decompress failed");
    }
    benchmark::DoNotOptimize(out.data());
  }
  ZSTD_freeDCtx(dctx);
  describe(state, f);
}

void BM_log_print(benchmark::State& state) {
  auto& f = data();
  log_printer_registry reg;
  reg.add(posix_id, "POSIX", 4, print_log_counters);
  log_print_options o;
  o.registry = &reg;
  std::uint64_t printed = 0;
  for (auto _ : state) {
    counting_buf buf;
    std::ostream out(&buf);
    print_log(f.path, o, out);
    printed = buf.bytes;
  }
  describe(state, f);
  state.counters["rows/s"] = benchmark::Counter(static_cast<double>(f.rows),
                                                benchmark::Counter::kIsIterationInvariantRate);
  state.counters["text_MB"] = static_cast<double>(printed) / 1e6;
}

void configure(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0)->Repetitions(3);
}

}  // namespace

BENCHMARK_CAPTURE(BM_log_write, zlib, log_compression::zlib)->Apply(configure);
BENCHMARK(BM_zlib_compress)->Apply(configure);
BENCHMARK_CAPTURE(BM_log_read, zlib, log_compression::zlib)->Apply(configure);
BENCHMARK(BM_zlib_uncompress)->Apply(configure);
BENCHMARK_CAPTURE(BM_log_write, zstd, log_compression::zstd)->Apply(configure);
BENCHMARK(BM_zstd_compress)->Apply(configure);
BENCHMARK_CAPTURE(BM_log_read, zstd, log_compression::zstd)->Apply(configure);
BENCHMARK(BM_zstd_decompress)->Apply(configure);
BENCHMARK(BM_log_print)->Apply(configure);

BENCHMARK_MAIN();
