// The perfdm log (docs/LOG-FORMAT.md): ids, the core, round trips through writer and reader,
// and `perfdm log` printing, as text and JSON.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "log/log_listing.hpp"
#include "log/log_print_text.hpp"
#include "log/log_core.hpp"
#include "log/log_counters.hpp"
#include "log/log_reader.hpp"
#include "log/log_writer.hpp"
#include "tests/log_test_files.hpp"

using namespace perfdm;

namespace {

constexpr std::uint32_t posix_id = 16;
constexpr std::uint32_t mpiio_id = 17;

log_core_options compressed_with(log_compression c) {
  log_core_options o;
  o.compression = c;
  return o;
}

std::string temp_path(const std::string& name) {
  return log_test::temp_path("log_format_test", name);
}

using log_test::removed_on_exit;

job_record sample_job() {
  job_record j;
  j.command_line = "./app -n 4 --input data.h5";
  j.host = "node17";
  j.start_ns = 1'700'000'000'000'000'000;
  j.end_ns = 1'700'000'012'500'000'000;
  j.metadata = {{"lib_ver", "3.4.4"}, {"h", "romio_no_indep_rw=true"}, {"empty", ""}};
  j.pids = {4242, 4243, 99999};
  return j;
}

// Two modules in the generic counters payload, three named records, two counter names.
void fill(log_core& core) {
  core.job() = sample_job();
  REQUIRE(core.register_module("POSIX", posix_id, 3, 1 << 20) == 1 << 20);
  REQUIRE(core.register_module("MPIIO", mpiio_id, 1, 1 << 20) == 1 << 20);
  const auto reads = core.lookup_id("POSIX_READS");
  const auto bytes = core.lookup_id("POSIX_F_READ_TIME");
  const auto a = core.lookup_id("/scratch/run1/data.h5");
  const auto b = core.lookup_id("/scratch/run1/out\\put.txt");
  const std::string object("\x01\x02obj", 5);
  const auto c = core.lookup_id(object.data(), object.size(), false);
  REQUIRE(core.add_counters(
      posix_id, a, {log_counter::of(reads, std::int64_t{10}), log_counter::of(bytes, 0.25)}));
  REQUIRE(core.add_counters(posix_id, b, {log_counter::of(reads, std::int64_t{-3})}));
  REQUIRE(core.add_counters(mpiio_id, c, {log_counter::of(reads, std::int64_t{7})}));
}

log_printer_registry test_printers() {
  log_printer_registry r;
  r.add(posix_id, "POSIX", 3, print_log_counters);
  r.add(mpiio_id, "MPIIO", 1, print_log_counters);
  return r;
}

struct run_result {
  int rc;
  std::string out, err;
};

run_result run(log_command_options o, const log_printer_registry& reg) {
  o.registry = &reg;
  std::ostringstream out, err;
  const int rc = run_log_command(o, out, err);
  return {rc, out.str(), err.str()};
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

bool has_line(const std::string& text, const std::string& line) {
  for (const auto& l : lines(text)) {
    if (l == line) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("log ids: 64-bit FNV-1a of the name bytes, golden values", "[log]") {
  CHECK(log_name_id("") == 0xcbf29ce484222325ULL);
  CHECK(log_name_id("a") == 0xaf63dc4c8601ec8cULL);
  CHECK(log_name_id("foobar") == 0x85944171f73967e8ULL);
  CHECK(log_name_id("/scratch/run1/data.h5") == 0x2ae0ddb3b3e0729fULL);
  CHECK(log_name_id("/scratch/run1/data.h5") == 3089713108262875807ULL);
  // The core hands out the same ids, whatever the order and whichever core.
  log_core one, two;
  const auto x = one.lookup_id("/scratch/run1/data.h5");
  two.lookup_id("something else first");
  CHECK(two.lookup_id("/scratch/run1/data.h5") == x);
  CHECK(x == 0x2ae0ddb3b3e0729fULL);
  // Printability does not change the id.
  CHECK(two.lookup_id("a", 1, false) == log_name_id("a"));
}

TEST_CASE("log CRC-32 is the zlib/ISO-HDLC CRC", "[log]") {
  CHECK(log_crc32(0, "123456789", 9) == 0xCBF43926u);
}

TEST_CASE("log core: grants come out of one pool", "[log]") {
  log_core_options o;
  o.module_memory_bytes = 1000;
  log_core core(o);
  CHECK(core.register_module("A", 16, 1, 600) == 600);
  CHECK(core.register_module("B", 17, 1, 600) == 400);
  CHECK(core.register_module("C", 18, 1, 10) == 0);
  CHECK(core.memory_left() == 0);
  CHECK_THROWS_AS(core.register_module("D", 3, 1, 10), std::invalid_argument);
  CHECK_THROWS_AS(core.register_module("A", 19, 1, 10), std::invalid_argument);
  CHECK_THROWS_AS(core.register_module("E", 16, 1, 10), std::invalid_argument);
  CHECK_THROWS_AS(core.register_module("no spaces", 20, 1, 10), std::invalid_argument);
  CHECK_THROWS_AS(core.add_record(99, "x", 1), std::invalid_argument);
  // Module C got nothing: its first record marks it partial.
  CHECK_FALSE(core.add_record(18, "x", 1));
  CHECK(core.partial(18));
  CHECK_FALSE(core.partial(16));
}

TEST_CASE("log core: names kept once, flagged when not printable", "[log]") {
  log_core core;
  const auto a = core.lookup_id("/a");
  CHECK(core.lookup_id("/a") == a);
  CHECK(core.name_count() == 1);
  CHECK(core.name_memory_used() == 16 + 2);
  core.lookup_id(std::string_view("bad\nname"));  // control byte: not printable anyway
  core.lookup_id("\xff\xfe", 2, false);
  CHECK(core.name_count() == 3);
  CHECK(core.id_collisions() == 0);
}

TEST_CASE("log round trip: header, job record, name table, counters records", "[log]") {
  const std::string path = temp_path("roundtrip.log");
  removed_on_exit cleanup{{path}};
  const auto compression = EACH_COMPRESSION;
  INFO(log_compression_name(compression));
  log_core core(compressed_with(compression));
  fill(core);
  core.write(path);
  CHECK(::access(path.c_str(), F_OK) == 0);
  CHECK(::access((path + ".partial").c_str(), F_OK) != 0);  // renamed when complete

  log_reader r(path);
  CHECK(r.format_version() == 1);
  CHECK(r.compression() == static_cast<std::uint32_t>(compression));
  CHECK(r.complete());
  CHECK(r.notes().empty());
  REQUIRE(r.regions().size() == 4);
  CHECK(r.regions()[0].id == 0);
  CHECK(r.regions()[0].name == "job");
  CHECK(r.regions()[1].id == 1);
  CHECK(r.regions()[1].name == "names");
  CHECK(r.regions()[2].id == posix_id);
  CHECK(r.regions()[2].name == "POSIX");
  CHECK(r.regions()[2].version == 3);
  CHECK(r.regions()[3].id == mpiio_id);
  CHECK(r.regions()[3].name == "MPIIO");
  for (const auto& reg : r.regions()) CHECK((reg.flags & logfmt::flag_partial) == 0);

  CHECK(r.read_job(*r.find(0)) == sample_job());

  std::uint64_t streamed = 0;
  r.for_each_chunk(*r.find(1), [&](const std::uint8_t*, std::size_t n) { streamed += n; });
  CHECK(streamed == r.find(1)->uncompressed_size);

  const log_name_table names = r.read_names(*r.find(1));
  CHECK(names.entries == 5);
  CHECK(names.dropped == 0);
  REQUIRE(names.find(log_name_id("/scratch/run1/data.h5")));
  CHECK(names.find(log_name_id("/scratch/run1/data.h5"))->bytes == "/scratch/run1/data.h5");
  CHECK(names.find(log_name_id("/scratch/run1/data.h5"))->printable());
  const std::string object("\x01\x02obj", 5);
  REQUIRE(names.find(log_name_id(object)));
  CHECK(names.find(log_name_id(object))->bytes == object);
  CHECK_FALSE(names.find(log_name_id(object))->printable());

  std::vector<std::pair<std::uint64_t, std::vector<log_counter>>> posix;
  r.for_each_record(*r.find(posix_id), [&](const std::uint8_t* p, std::size_t n) {
    std::uint64_t id;
    std::vector<log_counter> c;
    decode_log_counters(p, n, id, c);
    posix.emplace_back(id, c);
  });
  REQUIRE(posix.size() == 2);
  CHECK(posix[0].first == log_name_id("/scratch/run1/data.h5"));
  CHECK(posix[0].second ==
        std::vector<log_counter>{log_counter::of(log_name_id("POSIX_READS"), std::int64_t{10}),
                                 log_counter::of(log_name_id("POSIX_F_READ_TIME"), 0.25)});
  CHECK(posix[1].second ==
        std::vector<log_counter>{log_counter::of(log_name_id("POSIX_READS"), std::int64_t{-3})});
}

TEST_CASE("log writer: compression levels are checked per compression", "[log]") {
  const std::string path = temp_path("levels.log");
  removed_on_exit cleanup{{path}};
  for (int level : {-1, 0, 9}) CHECK_NOTHROW(log_writer(path, 1, level, log_compression::zlib));
  for (int level : {-1, 1, 19}) CHECK_NOTHROW(log_writer(path, 1, level, log_compression::zstd));
  std::remove((path + ".partial").c_str());
  CHECK_THROWS_WITH(log_writer(path, 1, 10, log_compression::zlib),
                    "log writer: zlib level must be -1 (default) or 0..9, not 10");
  CHECK_THROWS_WITH(log_writer(path, 1, 0, log_compression::zstd),
                    "log writer: zstd level must be -1 (default) or 1..19, not 0");
  CHECK_THROWS_WITH(log_writer(path, 1, 20, log_compression::zstd),
                    "log writer: zstd level must be -1 (default) or 1..19, not 20");
  CHECK_THROWS_WITH(log_writer(path, 1, -1, log_compression{7}),
                    "log writer: unknown compression type 7");
  CHECK(::access((path + ".partial").c_str(), F_OK) != 0);  // refused before creating it
  CHECK(parse_log_compression("ZSTD") == log_compression::zstd);
  CHECK(parse_log_compression("zlib") == log_compression::zlib);
  CHECK_THROWS_WITH(parse_log_compression("lz4"), "unknown log compression 'lz4': zlib or zstd");
}

TEST_CASE("log round trip: a region larger than every buffer, at every level", "[log]") {
  const std::string path = temp_path("levels-rt.log");
  removed_on_exit cleanup{{path}};
  const auto compression = EACH_COMPRESSION;
  // 1 MiB of records that compress a little (counters over a pseudo-random pattern), so the
  // compressor's input and output cross the 64 KiB buffers and zstd's 128 KiB blocks.
  std::vector<std::vector<std::uint8_t>> records;
  std::uint64_t x = 88172645463325252ULL;
  std::size_t bytes = 0;
  while (bytes < (1u << 20)) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::vector<std::uint8_t> rec;
    encode_log_counters(x % 1000, {log_counter::of(x % 7, static_cast<std::int64_t>(x >> 40))},
                        rec);
    bytes += 4 + rec.size();
    records.push_back(std::move(rec));
  }
  const std::vector<int> levels = compression == log_compression::zlib
                                      ? std::vector<int>{-1, 0, 1, 9}
                                      : std::vector<int>{-1, 1, 19};
  for (int level : levels) {
    INFO(log_compression_name(compression) << " level " << level);
    {
      log_writer w(path, 1, level, compression);
      w.begin_region(posix_id, 1, "POSIX");
      for (const auto& rec : records) w.write_record(rec.data(), rec.size());
      w.end_region();
      w.finish();
    }
    log_reader r(path);
    REQUIRE(r.regions().size() == 1);
    CHECK(r.regions()[0].uncompressed_size == bytes);
    std::size_t i = 0;
    bool same = true;
    r.for_each_record(r.regions()[0], [&](const std::uint8_t* p, std::size_t n) {
      same = same && i < records.size() && n == records[i].size() &&
             std::equal(p, p + n, records[i].begin());
      ++i;
    });
    CHECK(same);
    CHECK(i == records.size());
  }
}

TEST_CASE("log round trip: an empty log and an empty module", "[log]") {
  const std::string path = temp_path("empty.log");
  removed_on_exit cleanup{{path}};
  log_core core(compressed_with(EACH_COMPRESSION));
  core.register_module("EMPTY", 40, 1, 100);
  core.write(path);
  log_reader r(path);
  CHECK(r.complete());
  CHECK(r.read_job(*r.find(0)) == job_record{});
  CHECK(r.read_names(*r.find(1)).entries == 0);
  int records = 0;
  r.for_each_record(*r.find(40), [&](const std::uint8_t*, std::size_t) { ++records; });
  CHECK(records == 0);
}

TEST_CASE("log printer: # header lines and one tab-separated row per value", "[log]") {
  const std::string path = temp_path("print.log");
  removed_on_exit cleanup{{path}};
  const auto compression = EACH_COMPRESSION;
  log_core core(compressed_with(compression));
  fill(core);
  core.write(path);
  const auto reg = test_printers();
  log_command_options o;
  o.file = path;
  const auto res = run(o, reg);
  INFO(res.out << res.err);
  REQUIRE(res.rc == 0);
  CHECK(res.err.empty());
  const std::string& t = res.out;
  CHECK(has_line(t, "# format version: 1"));
  CHECK(has_line(t, "# byte order: little-endian"));
  CHECK(has_line(t, std::string("# compression: ") + log_compression_name(compression)));
  CHECK(has_line(t, "# state: complete"));
  CHECK(has_line(t, "# job command line: ./app -n 4 --input data.h5"));
  CHECK(has_line(t, "# job host: node17"));
  CHECK(has_line(t, "# job start: 1700000000.000000000 (2023-11-14T22:13:20Z)"));
  CHECK(has_line(t, "# job end: 1700000012.500000000 (2023-11-14T22:13:32Z)"));
  CHECK(has_line(t, "# job run time: 12.500000000 s"));
  CHECK(has_line(t, "# job metadata: lib_ver=3.4.4"));
  CHECK(has_line(t, "# job metadata: h=romio_no_indep_rw=true"));
  CHECK(has_line(t, "# job metadata: empty="));
  CHECK(has_line(t, "# job process ids: 4242 4243 99999"));
  CHECK(has_line(t, "# regions: 4"));
  CHECK(has_line(t, "# partial modules: none"));
  CHECK(t.find("# region POSIX (id 16): version 3, offset ") != std::string::npos);
  CHECK(t.find("# region names (id 1): version 1, offset ") != std::string::npos);
  CHECK(t.find(" bytes, 5 names\n") != std::string::npos);
  CHECK(has_line(t, "#<module>\t<record id>\t<counter>\t<value>\t<name>"));

  // The rows, in order, exactly.
  std::vector<std::string> rows;
  for (const auto& l : lines(t)) {
    if (!l.empty() && l[0] != '#') rows.push_back(l);
  }
  const std::string a = std::to_string(log_name_id("/scratch/run1/data.h5"));
  const std::string b = std::to_string(log_name_id("/scratch/run1/out\\put.txt"));
  const std::string c = std::to_string(log_name_id(std::string("\x01\x02obj", 5)));
  CHECK(rows == std::vector<std::string>{
                    "POSIX\t" + a + "\tPOSIX_READS\t10\t/scratch/run1/data.h5",
                    "POSIX\t" + a + "\tPOSIX_F_READ_TIME\t0.25\t/scratch/run1/data.h5",
                    "POSIX\t" + b + "\tPOSIX_READS\t-3\t/scratch/run1/out\\\\put.txt",
                    "MPIIO\t" + c + "\tPOSIX_READS\t7\t<hex:01026f626a>",
                });
  // Every row has exactly five fields.
  for (const auto& row : rows) CHECK(std::count(row.begin(), row.end(), '\t') == 4);
}

TEST_CASE("log printer: --module selects modules by name, any case", "[log]") {
  const std::string path = temp_path("module.log");
  removed_on_exit cleanup{{path}};
  log_core core;
  fill(core);
  core.write(path);
  const auto reg = test_printers();
  log_command_options o;
  o.file = path;
  o.modules = {"mpiio"};
  auto res = run(o, reg);
  REQUIRE(res.rc == 0);
  CHECK(res.out.find("\nMPIIO\t") != std::string::npos);
  CHECK(res.out.find("\nPOSIX\t") == std::string::npos);

  o.modules = {"HDF5"};
  res = run(o, reg);
  CHECK(res.rc == 1);
  CHECK(res.err.find("no module named 'HDF5' in this log (its modules: POSIX, MPIIO)") !=
        std::string::npos);
}

TEST_CASE("log printer: --json prints JSON Lines", "[log]") {
  const std::string path = temp_path("json.log");
  removed_on_exit cleanup{{path}};
  const auto compression = EACH_COMPRESSION;
  log_core core(compressed_with(compression));
  fill(core);
  core.job().host = "node\"17\"";
  core.write(path);
  const auto reg = test_printers();
  log_command_options o;
  o.file = path;
  o.json = true;
  const auto res = run(o, reg);
  INFO(res.out << res.err);
  REQUIRE(res.rc == 0);
  const auto ls = lines(res.out);
  REQUIRE(!ls.empty());
  for (const auto& l : ls) {
    CHECK(l.front() == '{');
    CHECK(l.back() == '}');
  }
  CHECK(ls[0].rfind("{\"type\":\"log\",\"path\":", 0) == 0);
  CHECK(ls[0].find("\"format_version\":1,\"byte_order\":\"little-endian\",\"compression\":"
                   "\"" +
                   std::string(log_compression_name(compression)) + "\",\"complete\":true}") !=
        std::string::npos);
  CHECK(has_line(res.out,
                 "{\"type\":\"job\",\"command_line\":\"./app -n 4 --input data.h5\",\"host\":"
                 "\"node\\\"17\\\"\",\"start_ns\":1700000000000000000,\"end_ns\":"
                 "1700000012500000000,\"metadata\":[{\"key\":\"lib_ver\",\"value\":\"3.4.4\"},"
                 "{\"key\":\"h\",\"value\":\"romio_no_indep_rw=true\"},{\"key\":\"empty\","
                 "\"value\":\"\"}],\"pids\":[4242,4243,99999]}"));
  const std::string a = std::to_string(log_name_id("/scratch/run1/data.h5"));
  const std::string c = std::to_string(log_name_id(std::string("\x01\x02obj", 5)));
  CHECK(has_line(res.out, "{\"type\":\"row\",\"module\":\"POSIX\",\"record_id\":\"" + a +
                              "\",\"counter\":\"POSIX_F_READ_TIME\",\"value\":0.25,\"name\":"
                              "\"/scratch/run1/data.h5\"}"));
  CHECK(has_line(res.out, "{\"type\":\"row\",\"module\":\"MPIIO\",\"record_id\":\"" + c +
                              "\",\"counter\":\"POSIX_READS\",\"value\":7,\"name\":null,"
                              "\"name_hex\":\"01026f626a\"}"));
  CHECK(res.out.find("{\"type\":\"region\",\"id\":16,\"name\":\"POSIX\",\"version\":3,"
                     "\"partial\":false,\"offset\":") != std::string::npos);
  int rows = 0;
  for (const auto& l : ls) rows += l.rfind("{\"type\":\"row\"", 0) == 0;
  CHECK(rows == 4);
}

TEST_CASE("log printer: a JSON string keeps every byte, non-UTF-8 ones read as Latin-1", "[log]") {
  auto json = [](std::string_view s) { return nlohmann::json(log_text::json_utf8(s)).dump(); };
  CHECK(json("plain /path") == "\"plain /path\"");
  CHECK(json("q\"b\\n\nt\tr\r") == "\"q\\\"b\\\\n\\nt\\tr\\r\"");
  CHECK(json(std::string("\x01", 1)) == "\"\\u0001\"");
  CHECK(json("caf\xc3\xa9") == "\"caf\xc3\xa9\"");  // valid UTF-8 as it is
  // 0xe9 alone is no UTF-8: it reads back as U+00E9, and nothing else is lost.
  const std::string odd("a\xe9\xff\x00z", 5);
  const auto back = nlohmann::json::parse(json(odd)).get<std::string>();
  CHECK(back == std::string("a\xc3\xa9\xc3\xbf\x00z", 7));
  CHECK(back.size() == 7);
}

TEST_CASE("log printer: values, unknown names and escapes", "[log]") {
  const std::string path = temp_path("values.log");
  removed_on_exit cleanup{{path}};
  log_core core;
  core.job().command_line = "a\nb\\c";
  core.register_module("X", 30, 1, 1 << 16);
  const auto v = core.lookup_id("V");
  const std::uint64_t unnamed_record = 12345;  // no name in the table
  const std::uint64_t unnamed_counter = 0xabcdef;
  core.add_counters(30, unnamed_record,
                    {log_counter::of(v, 1e300), log_counter::of(v, -0.0),
                     log_counter::of(v, std::numeric_limits<double>::infinity()),
                     log_counter::of(v, std::numeric_limits<double>::quiet_NaN()),
                     log_counter::of(v, std::numeric_limits<std::int64_t>::min()),
                     log_counter::of(unnamed_counter, std::int64_t{1})});
  // A name with a control byte is stored as not printable: shown in hex.
  core.add_counters(30, core.lookup_id("a\tb"), {log_counter::of(v, std::int64_t{2})});
  core.write(path);
  log_printer_registry reg;
  reg.add(30, "X", 1, print_log_counters);
  log_command_options o;
  o.file = path;
  auto res = run(o, reg);
  REQUIRE(res.rc == 0);
  CHECK(has_line(res.out, "# job command line: a\\nb\\\\c"));
  CHECK(has_line(res.out, "X\t12345\tV\t1e+300\t<no name>"));
  CHECK(has_line(res.out, "X\t12345\tV\t-0\t<no name>"));
  CHECK(has_line(res.out, "X\t12345\tV\tinf\t<no name>"));
  CHECK(has_line(res.out, "X\t12345\tV\tnan\t<no name>"));
  CHECK(has_line(res.out, "X\t12345\tV\t-9223372036854775808\t<no name>"));
  CHECK(has_line(res.out, "X\t12345\t<counter 0x0000000000abcdef>\t1\t<no name>"));
  CHECK(has_line(res.out, "X\t" + std::to_string(log_name_id("a\tb")) + "\tV\t2\t<hex:610962>"));
  o.json = true;
  res = run(o, reg);
  REQUIRE(res.rc == 0);
  CHECK(has_line(res.out,
                 "{\"type\":\"row\",\"module\":\"X\",\"record_id\":\"12345\","
                 "\"counter\":\"V\",\"value\":\"inf\",\"name\":null}"));
  CHECK(has_line(res.out,
                 "{\"type\":\"row\",\"module\":\"X\",\"record_id\":\"12345\","
                 "\"counter\":\"V\",\"value\":1e+300,\"name\":null}"));
}

// Found by fuzz/log_reader_fuzz: end - start overflowed an i64 (undefined behaviour).
TEST_CASE("log printer: a job run time whose end - start does not fit an i64", "[log]") {
  const std::string path = temp_path("run_time.log");
  removed_on_exit cleanup{{path}};
  log_printer_registry reg;
  log_command_options o;
  o.file = path;
  for (const bool forward : {true, false}) {
    log_core core;
    const auto lo = std::numeric_limits<std::int64_t>::min();
    const auto hi = std::numeric_limits<std::int64_t>::max();
    core.job().start_ns = forward ? lo : hi;
    core.job().end_ns = forward ? hi : lo;
    core.write(path);
    const auto res = run(o, reg);
    REQUIRE(res.rc == 0);
    CHECK(has_line(res.out, std::string("# job run time: ") + (forward ? "" : "-") +
                                "18446744073.709551615 s"));
  }
}

TEST_CASE("log printer: a module-defined payload with its own printer", "[log]") {
  // A module with its own record layout: u64 record id, u32 value, then text.
  const std::string path = temp_path("custom.log");
  removed_on_exit cleanup{{path}};
  log_core core;
  core.register_module("CUSTOM", 50, 2, 1 << 16);
  const auto id = core.lookup_id("/dev/shm/seg");
  std::vector<std::uint8_t> rec;
  byte_sink s(rec);
  s.u64(id);
  s.u32(77);
  s.bytes("hello", 5);
  core.add_record(50, rec.data(), rec.size());
  core.write(path);

  log_printer_registry reg;
  reg.add(50, "CUSTOM", 2, [](const log_record_view& v, log_row_sink& sink) {
    byte_cursor c(v.data, v.size, "CUSTOM record");
    const auto rid = c.u64();
    sink.row(rid, "SIZE", log_value::of(static_cast<std::int64_t>(c.u32())));
    const auto* text = reinterpret_cast<const char*>(c.take(c.left()));
    sink.row(rid, "LABEL", log_value::of_text(std::string_view(text, v.size - 12)));
  });
  log_command_options o;
  o.file = path;
  const auto res = run(o, reg);
  REQUIRE(res.rc == 0);
  CHECK(has_line(res.out, "CUSTOM\t" + std::to_string(id) + "\tSIZE\t77\t/dev/shm/seg"));
  CHECK(has_line(res.out, "CUSTOM\t" + std::to_string(id) + "\tLABEL\thello\t/dev/shm/seg"));
}

TEST_CASE("log command: a missing file is an error, not a crash", "[log]") {
  log_command_options o;
  o.file = temp_path("does-not-exist.log");
  std::ostringstream out, err;
  CHECK(run_log_command(o, out, err) == 1);
  CHECK(err.str().find("cannot open") != std::string::npos);
}
