// Reduction: records of the same id from several processes or daemons kept as one shared
// record, reduced by the module's function (log_core::set_reduction, the counters reduction),
// and merging cores or logs read back from files (log_core::merge).
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "log/log_listing.hpp"
#include "log/log_core.hpp"
#include "log/log_counters.hpp"
#include "log/log_reader.hpp"
#include "tests/log_test_files.hpp"

using namespace perfdm;

namespace {

constexpr std::uint32_t posix_id = 16;

std::string temp_path(const std::string& name) {
  return log_test::temp_path("log_reduce_test", name);
}

using log_test::removed_on_exit;

std::vector<std::uint8_t> counters_record(std::uint64_t id, const std::vector<log_counter>& cs) {
  std::vector<std::uint8_t> r;
  encode_log_counters(id, cs, r);
  return r;
}

std::vector<log_counter> decoded(const std::vector<std::uint8_t>& r, std::uint64_t* id = nullptr) {
  std::uint64_t record_id;
  std::vector<log_counter> cs;
  decode_log_counters(r.data(), r.size(), record_id, cs);
  if (id) *id = record_id;
  return cs;
}

log_counter integer(std::uint64_t c, std::int64_t v) {
  return log_counter::of(c, v);
}
log_counter real(std::uint64_t c, double v) {
  return log_counter::of(c, v);
}

// The printed rows of a log: (record name, counter) -> value text, and the row count.
struct printed {
  int rc = -1;
  std::string out, err;
  std::vector<std::string> rows;
  std::map<std::pair<std::string, std::string>, std::string> values;
};

printed print(const std::string& path, bool show_partial = false) {
  log_printer_registry reg;
  reg.add(posix_id, "POSIX", 3, print_log_counters);
  log_command_options o;
  o.file = path;
  o.registry = &reg;
  o.show_partial = show_partial;
  std::ostringstream out, err;
  printed p;
  p.rc = run_log_command(o, out, err);
  p.out = out.str();
  p.err = err.str();
  std::istringstream in(p.out);
  for (std::string l; std::getline(in, l);) {
    if (l.empty() || l[0] == '#') continue;
    p.rows.push_back(l);
    std::vector<std::string> f;
    std::size_t at = 0;
    for (std::size_t tab; (tab = l.find('\t', at)) != std::string::npos; at = tab + 1) {
      f.push_back(l.substr(at, tab - at));
    }
    f.push_back(l.substr(at));
    REQUIRE(f.size() == 5);
    CHECK(f[0] == "POSIX");
    p.values.emplace(std::make_pair(f[4], f[2]), f[3]);
  }
  return p;
}

// How a POSIX-like module reduces its counters: summed unless said otherwise.
log_counters_reduction posix_reduction() {
  log_counters_reduction how;
  how.set("POSIX_MAX_BYTE_READ", log_reduce_op::max)
      .set("POSIX_F_OPEN_START_TIMESTAMP", log_reduce_op::min);
  return how;
}

std::string file_name(int f) {
  return "/scratch/run1/file" + std::to_string(f) + ".dat";
}

// One process (rank 0 or 1) of a run: rank 0 opened files 0-9, rank 1 files 5-14, so files
// 5-9 were opened by both. Rank 1 also counts seeks (a counter rank 0 never has), lists its
// counters in another order, and records file 12 in two records (two opens, say).
log_core process_core(int rank, log_compression compression = log_compression::zlib) {
  log_core_options o;
  o.compression = compression;
  log_core core(o);
  core.job().command_line = "./ior -r";
  core.job().host = "node" + std::to_string(rank);
  core.job().start_ns = 1'700'000'000'000'000'000 + rank * 1'000'000;
  core.job().end_ns = 1'700'000'010'000'000'000 + rank * 5'000'000;
  core.job().pids = {static_cast<std::uint64_t>(4000 + rank)};
  REQUIRE(core.register_module("POSIX", posix_id, 3, 1 << 20) == 1 << 20);
  core.set_counters_reduction(posix_id, posix_reduction());
  const auto opens = core.lookup_id("POSIX_OPENS");
  const auto bytes = core.lookup_id("POSIX_BYTES_READ");
  const auto max_byte = core.lookup_id("POSIX_MAX_BYTE_READ");
  const auto start = core.lookup_id("POSIX_F_OPEN_START_TIMESTAMP");
  const auto time = core.lookup_id("POSIX_F_READ_TIME");
  const auto seeks = core.lookup_id("POSIX_SEEKS");
  for (int f = rank * 5; f < rank * 5 + 10; ++f) {
    const auto id = core.lookup_id(file_name(f));
    std::vector<log_counter> cs = {integer(opens, 1 + rank), integer(bytes, 1000 * f + rank),
                                   integer(max_byte, 100 * f + 10 * rank),
                                   real(start, 10.0 + rank + f / 100.0),
                                   real(time, 0.5 * (rank + 1))};
    if (rank == 1) {
      std::reverse(cs.begin(), cs.end());
      if (f == 12) {
        REQUIRE(core.add_counters(posix_id, id, cs));
        cs = {integer(seeks, f)};
      } else {
        cs.push_back(integer(seeks, f));
      }
    }
    REQUIRE(core.add_counters(posix_id, id, cs));
  }
  CHECK(core.records(posix_id) == 10);
  return core;
}

// The merged core: registers the module and its reduction, nothing else.
log_core merging_core() {
  log_core core;
  core.register_module("POSIX", posix_id, 3, 1 << 20);
  core.set_counters_reduction(posix_id, posix_reduction());
  return core;
}

// What the merged log must print for rank 0 and rank 1 together.
void check_merged_rows(const printed& p) {
  INFO(p.out << p.err);
  REQUIRE(p.rc == 0);
  // 15 files, 5 counters each, and seeks for the 10 files rank 1 opened.
  CHECK(p.rows.size() == 15 * 5 + 10);
  CHECK(p.values.size() == p.rows.size());  // one row per (record, counter)
  auto value = [&](int f, const char* counter) {
    auto it = p.values.find({file_name(f), counter});
    return it == p.values.end() ? std::string("<missing>") : it->second;
  };
  for (int f = 0; f < 15; ++f) {
    INFO("file " << f);
    const bool r0 = f < 10, r1 = f >= 5;
    CHECK(value(f, "POSIX_OPENS") == std::to_string((r0 ? 1 : 0) + (r1 ? 2 : 0)));
    CHECK(value(f, "POSIX_BYTES_READ") ==
          std::to_string((r0 ? 1000 * f : 0) + (r1 ? 1000 * f + 1 : 0)));
    CHECK(value(f, "POSIX_MAX_BYTE_READ") == std::to_string(100 * f + (r1 ? 10 : 0)));
    CHECK(std::stod(value(f, "POSIX_F_OPEN_START_TIMESTAMP")) == 10.0 + (r0 ? 0 : 1) + f / 100.0);
    CHECK(std::stod(value(f, "POSIX_F_READ_TIME")) == (r0 ? 0.5 : 0) + (r1 ? 1.0 : 0));
    CHECK(value(f, "POSIX_SEEKS") == (r1 ? std::to_string(f) : "<missing>"));
  }
}

// A module whose payload is a u64 record id and then bytes, to watch records grow and shrink.
std::vector<std::uint8_t> blob(std::uint64_t id, std::size_t extra, std::uint8_t fill) {
  std::vector<std::uint8_t> r(8 + extra, fill);
  std::memcpy(r.data(), &id, 8);
  return r;
}

std::vector<std::vector<std::uint8_t>> records_of(const std::string& path, std::uint32_t module) {
  log_reader r(path);
  std::vector<std::vector<std::uint8_t>> v;
  r.for_each_record(*r.find(module),
                    [&](const std::uint8_t* p, std::size_t n) { v.emplace_back(p, p + n); });
  return v;
}

}  // namespace

TEST_CASE("log reduce: counters records of one id reduce by sum, min, max", "[log]") {
  const std::uint64_t a = 1, b = 2, c = 3, d = 4;
  log_counters_reduction how;
  how.set(b, log_reduce_op::min).set(c, log_reduce_op::max);
  CHECK(how.op(a) == log_reduce_op::sum);
  CHECK(how.op(b) == log_reduce_op::min);
  CHECK(log_counters_reduction().set("X", log_reduce_op::max).op(log_name_id("X")) ==
        log_reduce_op::max);

  SECTION("the same counters in the same order") {
    auto shared = counters_record(77, {integer(a, 5), integer(b, 5), integer(c, 5), real(d, 1.5)});
    const auto in = counters_record(77, {integer(a, 3), integer(b, 3), integer(c, 3), real(d, 2)});
    reduce_log_counters(shared, in.data(), in.size(), how);
    std::uint64_t id = 0;
    CHECK(decoded(shared, &id) ==
          std::vector<log_counter>{integer(a, 8), integer(b, 3), integer(c, 5), real(d, 3.5)});
    CHECK(id == 77);
  }
  SECTION("counters missing on one side are kept; any order") {
    auto shared = counters_record(77, {integer(a, 1), integer(b, 2)});
    const auto in = counters_record(77, {integer(d, 9), integer(c, 4), integer(a, 10)});
    reduce_log_counters(shared, in.data(), in.size(), how);
    CHECK(decoded(shared) ==
          std::vector<log_counter>{integer(a, 11), integer(b, 2), integer(d, 9), integer(c, 4)});
    CHECK(shared.size() == log_counters_header_bytes + 4 * log_counter_bytes);
    // A record with fewer counters: the ones it lacks stay as they are.
    const auto few = counters_record(77, {integer(c, 40)});
    reduce_log_counters(shared, few.data(), few.size(), how);
    CHECK(decoded(shared) ==
          std::vector<log_counter>{integer(a, 11), integer(b, 2), integer(d, 9), integer(c, 40)});
  }
  SECTION("a counter named twice pairs its first and second occurrences") {
    auto shared = counters_record(77, {integer(a, 1), integer(b, 2), integer(a, 100)});
    const auto in = counters_record(77, {integer(a, 1000), integer(a, 2000), integer(a, 3)});
    reduce_log_counters(shared, in.data(), in.size(), how);
    CHECK(decoded(shared) == std::vector<log_counter>{integer(a, 1001), integer(b, 2),
                                                      integer(a, 2100), integer(a, 3)});
  }
  SECTION("integer and real give a real; NaN is no value; integer sums saturate") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto max = std::numeric_limits<std::int64_t>::max();
    const auto min = std::numeric_limits<std::int64_t>::min();
    auto shared = counters_record(77, {integer(a, 2), real(b, nan), real(c, 4), integer(d, max)});
    const auto in = counters_record(77, {real(a, 0.5), real(b, 7), real(c, nan), integer(d, 1)});
    reduce_log_counters(shared, in.data(), in.size(), how);
    CHECK(decoded(shared) ==
          std::vector<log_counter>{real(a, 2.5), real(b, 7), real(c, 4), integer(d, max)});
    auto low = counters_record(77, {integer(a, min + 1)});
    const auto more = counters_record(77, {integer(a, -5)});
    reduce_log_counters(low, more.data(), more.size(), how);
    CHECK(decoded(low) == std::vector<log_counter>{integer(a, min)});
  }
  SECTION("other ids and malformed records are refused, the shared record unchanged") {
    auto shared = counters_record(77, {integer(a, 1)});
    const auto before = shared;
    const auto other = counters_record(78, {integer(a, 1)});
    CHECK_THROWS_WITH(reduce_log_counters(shared, other.data(), other.size(), how),
                      Catch::Contains("different record ids"));
    auto bad = counters_record(77, {integer(a, 1), integer(b, 1)});
    bad[log_counters_header_bytes + log_counter_bytes + 8] = 9;  // second counter's kind
    CHECK_THROWS_WITH(reduce_log_counters(shared, bad.data(), bad.size(), how),
                      Catch::Contains("unknown value kind 9"));
    CHECK_THROWS_AS(reduce_log_counters(shared, bad.data(), 20, how), log_error);
    CHECK(shared == before);
  }
}

TEST_CASE("log reduce: a core keeps one record per id, reduced, and writes it", "[log]") {
  const std::string path = temp_path("one.log");
  removed_on_exit cleanup{{path}};
  log_core core;
  core.register_module("POSIX", posix_id, 3, 1 << 20);
  core.set_counters_reduction(posix_id, posix_reduction());
  const auto opens = core.lookup_id("POSIX_OPENS");
  const auto max_byte = core.lookup_id("POSIX_MAX_BYTE_READ");
  const auto start = core.lookup_id("POSIX_F_OPEN_START_TIMESTAMP");
  const auto f = core.lookup_id(file_name(0));
  const auto g = core.lookup_id(file_name(1));
  // Four "daemons" report the same file; one of them the other file too.
  for (int rank = 0; rank < 4; ++rank) {
    REQUIRE(core.add_counters(
        posix_id, f, {integer(opens, 1), integer(max_byte, 10 * rank), real(start, 100.0 - rank)}));
  }
  REQUIRE(core.add_counters(posix_id, g, {integer(opens, 7)}));
  CHECK(core.records(posix_id) == 2);
  CHECK(core.used(posix_id) == (4 + 12 + 3 * 17) + (4 + 12 + 17));
  core.write(path);

  const auto p = print(path);
  INFO(p.out << p.err);
  REQUIRE(p.rc == 0);
  CHECK(p.rows ==
        std::vector<std::string>{
            "POSIX\t" + std::to_string(f) + "\tPOSIX_OPENS\t4\t" + file_name(0),
            "POSIX\t" + std::to_string(f) + "\tPOSIX_MAX_BYTE_READ\t30\t" + file_name(0),
            "POSIX\t" + std::to_string(f) + "\tPOSIX_F_OPEN_START_TIMESTAMP\t97\t" + file_name(0),
            "POSIX\t" + std::to_string(g) + "\tPOSIX_OPENS\t7\t" + file_name(1)});
}

TEST_CASE("log reduce: two processes' cores merged into one, written, read back", "[log]") {
  const std::string path = temp_path("merged.log");
  removed_on_exit cleanup{{path}};
  const log_core rank0 = process_core(0);
  const log_core rank1 = process_core(1);
  log_core merged = merging_core();
  CHECK(merged.merge(rank0));
  CHECK(merged.merge(rank1));
  CHECK(merged.records(posix_id) == 15);
  // Files 0-4: 5 counters; 5-14: 6 (seeks).
  CHECK(merged.used(posix_id) == 5 * (4 + 12 + 5 * 17) + 10 * (4 + 12 + 6 * 17));
  CHECK_FALSE(merged.partial(posix_id));
  CHECK(merged.name_count() == 6 + 15);  // counters, files: each once
  CHECK(merged.id_collisions() == 0);
  CHECK(merged.job().pids == std::vector<std::uint64_t>{4000, 4001});
  CHECK(merged.job().start_ns == rank0.job().start_ns);
  CHECK(merged.job().end_ns == rank1.job().end_ns);
  CHECK(merged.job().host == "node0");  // empty here: taken from the first core merged
  merged.write(path);
  check_merged_rows(print(path));
  // The merged core's log reads back with the job merged.
  log_reader r(path);
  const auto job = r.read_job(*r.find(logfmt::region_job));
  CHECK(job.pids == std::vector<std::uint64_t>{4000, 4001});
}

TEST_CASE("log reduce: logs of two processes read from their files and merged", "[log]") {
  const std::string p0 = temp_path("rank0.log"), p1 = temp_path("rank1.log");
  const std::string from_files = temp_path("from_files.log"), from_cores = temp_path("cores.log");
  removed_on_exit cleanup{{p0, p1, from_files, from_cores}};
  // Each process chooses its compression: the merger reads both kinds.
  const auto c0 = EACH_COMPRESSION;
  const auto c1 = c0 == log_compression::zlib ? log_compression::zstd : log_compression::zlib;
  process_core(0, c0).write(p0);
  process_core(1, c1).write(p1);
  log_core merged = merging_core();
  {
    log_reader r0(p0), r1(p1);
    CHECK(merged.merge(r0));
    CHECK(merged.merge(r1));
  }
  CHECK(merged.records(posix_id) == 15);
  CHECK(merged.job().pids == std::vector<std::uint64_t>{4000, 4001});
  merged.write(from_files);
  const auto p = print(from_files);
  check_merged_rows(p);

  // The same rows, in the same order, as merging the cores themselves.
  log_core direct = merging_core();
  direct.merge(process_core(0));
  direct.merge(process_core(1));
  direct.write(from_cores);
  CHECK(print(from_cores).rows == p.rows);

  // Merging a log into a core that already holds records of the same ids reduces them too.
  log_reader again(p1);
  CHECK(merged.merge(again));
  CHECK(merged.records(posix_id) == 15);
}

TEST_CASE("log reduce: a reduction growing or shrinking a record is charged to the grant",
          "[log]") {
  const std::string path = temp_path("grow.log");
  removed_on_exit cleanup{{path}};
  log_core core;
  REQUIRE(core.register_module("GROW", 20, 1, 100) == 100);
  REQUIRE(core.register_module("LAST", 21, 1, 60) == 60);
  // GROW appends the bytes after the id; LAST keeps the newest record (which may be smaller).
  core.set_reduction(20, [](std::vector<std::uint8_t>& shared, const std::uint8_t* p,
                            std::size_t n) { shared.insert(shared.end(), p + 8, p + n); });
  core.set_reduction(21, [](std::vector<std::uint8_t>& shared, const std::uint8_t* p,
                            std::size_t n) { shared.assign(p, p + n); });

  auto add = [&](std::uint32_t module, const std::vector<std::uint8_t>& r) {
    return core.add_record(module, r.data(), r.size());
  };
  CHECK(add(20, blob(1, 10, 'a')));
  CHECK(core.used(20) == 4 + 18);
  CHECK(add(20, blob(1, 30, 'b')));
  CHECK(core.used(20) == 4 + 48);
  CHECK(add(20, blob(2, 8, 'c')));
  CHECK(core.used(20) == 4 + 48 + 4 + 16);
  CHECK(core.records(20) == 2);
  // Growing record 1 to 88 bytes would use 112 bytes of 100: refused, record 1 unchanged.
  CHECK_FALSE(add(20, blob(1, 40, 'd')));
  CHECK(core.partial(20));
  CHECK(core.used(20) == 72);

  CHECK(add(21, blob(1, 40, 'x')));
  CHECK(core.used(21) == 52);
  CHECK(core.used(21) + 4 + 16 > core.granted(21));  // record 2 would not fit now...
  CHECK(add(21, blob(1, 0, 'y')));                   // ...but record 1 shrinks to 8 bytes
  CHECK(core.used(21) == 12);
  CHECK(add(21, blob(2, 8, 'z')));
  CHECK(core.used(21) == 32);
  CHECK_FALSE(core.partial(21));
  core.write(path);

  auto grown = blob(1, 10, 'a');
  const auto more = blob(1, 30, 'b');
  grown.insert(grown.end(), more.begin() + 8, more.end());
  CHECK(records_of(path, 20) == std::vector<std::vector<std::uint8_t>>{grown, blob(2, 8, 'c')});
  CHECK(records_of(path, 21) ==
        std::vector<std::vector<std::uint8_t>>{blob(1, 0, 'y'), blob(2, 8, 'z')});
  log_reader r(path);
  CHECK((r.find(20)->flags & logfmt::flag_partial) != 0);
  CHECK((r.find(21)->flags & logfmt::flag_partial) == 0);
}

TEST_CASE("log reduce: misuse is refused and leaves the core as it was", "[log]") {
  log_core core;
  core.register_module("A", 16, 1, 1000);
  core.register_module("B", 17, 1, 1000);
  CHECK_THROWS_AS(core.set_reduction(16, nullptr), std::invalid_argument);
  CHECK_THROWS_AS(core.set_reduction(99, [](auto&, auto, auto) {}), std::invalid_argument);
  REQUIRE(core.add_counters(17, 5, {integer(1, 1)}));
  CHECK_THROWS_WITH(core.set_counters_reduction(17), Catch::Contains("has records already"));

  int calls = 0;
  core.set_reduction(16,
                     [&](std::vector<std::uint8_t>& shared, const std::uint8_t*, std::size_t n) {
                       ++calls;
                       if (n == 9) throw log_error("bad record");
                       if (n == 10) shared[0] ^= 1;  // changes the record id: a bug
                       if (n == 11) shared.resize(4);
                       if (n == 12) shared.resize(logfmt::max_record_bytes + 1);
                       if (n == 13) shared.push_back(0);
                     });
  CHECK_THROWS_AS(core.add_record(16, "1234567", 7), std::invalid_argument);  // no id
  const auto first = blob(1, 0, 0);
  REQUIRE(core.add_record(16, first.data(), first.size()));
  for (std::size_t n = 9; n <= 12; ++n) {
    const auto r = blob(1, n - 8, 0);
    if (n == 9) {
      CHECK_THROWS_AS(core.add_record(16, r.data(), r.size()), log_error);
    } else {
      CHECK_THROWS_AS(core.add_record(16, r.data(), r.size()), std::logic_error);
    }
    CHECK(core.used(16) == 12);
    CHECK(core.records(16) == 1);
  }
  const auto ok = blob(1, 5, 0);
  CHECK(core.add_record(16, ok.data(), ok.size()));
  CHECK(core.used(16) == 13);
  CHECK(calls == 5);
  CHECK_FALSE(core.partial(16));

  // Merging: itself, unknown modules, other versions: refused before anything is added.
  CHECK_THROWS_AS(core.merge(core), std::invalid_argument);
  log_core other;
  other.register_module("A", 16, 1, 1000);
  other.register_module("C", 18, 1, 1000);
  other.lookup_id("a name");
  other.add_counters(16, 1, {integer(1, 1)});
  CHECK_THROWS_WITH(core.merge(other), Catch::Contains("log module id 18 is not registered"));
  log_core newer;
  newer.register_module("A", 16, 2, 1000);
  CHECK_THROWS_WITH(core.merge(newer), Catch::Contains("is version 2 there, version 1 here"));
  CHECK(core.used(16) == 13);
  CHECK(core.name_count() == 0);
}

TEST_CASE("log reduce: merging without a reduction appends, partial flags carry over", "[log]") {
  const std::string path = temp_path("append.log");
  removed_on_exit cleanup{{path}};
  log_core_options small;
  small.module_memory_bytes = 40;
  log_core a(small), b;
  a.register_module("POSIX", posix_id, 3, 40);
  b.register_module("POSIX", posix_id, 3, 1000);
  const auto c = log_name_id("POSIX_OPENS");
  CHECK(a.add_counters(posix_id, 7, {integer(c, 1)}));        // 33 bytes
  CHECK_FALSE(a.add_counters(posix_id, 8, {integer(c, 1)}));  // does not fit: partial
  CHECK(b.add_counters(posix_id, 7, {integer(c, 2)}));
  CHECK(b.merge(a));
  CHECK(b.records(posix_id) == 2);  // no reduction: both records of id 7 kept
  CHECK(b.partial(posix_id));       // a's module was partial: so is the merge
  CHECK(b.add_counters(posix_id, 9, {integer(c, 3)}));
  b.write(path);
  const auto p = print(path, true);
  CHECK(p.rows.size() == 3);
  CHECK(std::count_if(p.rows.begin(), p.rows.end(), [](const std::string& r) {
          return r.rfind("POSIX\t7\t", 0) == 0;
        }) == 2);  // two records of id 7

  // A merge that runs out of memory says so and marks the module partial.
  log_core full(small);
  full.register_module("POSIX", posix_id, 3, 40);
  full.set_counters_reduction(posix_id);
  CHECK_FALSE(full.merge(b));  // the two records of id 7 reduce into one; 9 does not fit
  CHECK(full.records(posix_id) == 1);
  CHECK(full.partial(posix_id));
}
