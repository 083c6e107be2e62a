// Writes the seed logs of fuzz/corpus/log/ into the folder given as its argument:
//   build-fuzz/fuzz/make_log_corpus fuzz/corpus/log
// Small valid logs (each well under 20 KB) that between them reach every part of the reader
// and the printers: job record, name table (text, escapes, UTF-8, binary names), counters
// records (integers, reals, nan, inf), several modules (known, unknown, newer version, a
// record its printer refuses), partial modules and name table, an uncompressed (zlib level 0)
// log whose payload bytes the fuzzer can mutate directly, an incomplete log (no index), the
// same Data Manager, modules and incomplete logs compressed with zstd (zstd_*.log), and the
// regression inputs of bugs the fuzzer found (regress_*.log).
// The module ids and versions match the printer registry of log_reader_fuzz.cpp.
// Same program, same bytes: the logs hold no time, host or process id of the run.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include "log/log_core.hpp"
#include "log/log_counters.hpp"
#include "log/log_writer.hpp"

using namespace perfdm;

namespace {

constexpr std::uint32_t dm_id = 16;      // "dm": the Data Manager's module (print_log_counters)
constexpr std::uint32_t posix_id = 17;   // "posix": another counters module
constexpr std::uint32_t newer_id = 18;   // "newer": written as version 2, the fuzzer reads 1
constexpr std::uint32_t raw_id = 19;     // "raw": counters printer, records that are not counters
constexpr std::uint32_t unknown_id = 99; // no printer

void fill_job(job_record& j, const std::string& name) {
  j.command_line = "perfdm replay examples/demo.replay --log " + name;
  j.host = "fuzz-host";
  j.start_ns = 1700000000123456789LL;
  j.end_ns = j.start_ns + 2'500'000'000LL;
  j.metadata = {{"version", "0.1.0"}, {"clock", "virtual"}};
  j.pids = {4242, 4243};
}

// A few Data Manager records, as log/modules/dm_log_module.cpp writes them.
void add_dm_records(log_core& core, std::uint32_t module_id, int histograms) {
  auto rec = [&](const std::string& name, std::vector<log_counter> counters) {
    core.add_counters(module_id, core.lookup_id(name), counters);
  };
  auto c = [&](const std::string& counter, auto v) { return log_counter::of(core.lookup_id(counter), v); };
  rec("metric cpu_time [s]", {c("id", std::int64_t{0}), c("sampled", std::int64_t{0})});
  rec("metric queue_depth [items]", {c("id", std::int64_t{1}), c("sampled", std::int64_t{1})});
  rec("resource /Process/app", {c("id", std::int64_t{1})});
  rec("phase 0 ", {c("id", std::int64_t{0}), c("start", 0.0), c("end", 0.8), c("width", 0.2)});
  rec("engine", {c("now", 240.0), c("sampling_interval", 0.4), c("current_phase", std::int64_t{1})});
  for (int h = 0; h < histograms; ++h) {
    std::vector<log_counter> v = {c("mi", std::int64_t{h}), c("start", 0.0), c("width", 0.2),
                                  c("last", std::int64_t{7})};
    for (int i = 0; i < 8; ++i) v.push_back(c("bucket." + std::to_string(i), 0.25 * i + h));
    rec("histogram " + std::to_string(h) + " GLOBAL", v);
  }
}

log_core_options compressed_with(log_compression c) {
  log_core_options o;
  o.compression = c;
  return o;
}

// "dm.log", or "zstd_dm.log" for a zstd log.
std::string log_name(const std::string& name, log_compression c) {
  return c == log_compression::zlib ? name : log_compression_name(c) + ("_" + name);
}

void dm_log(const std::string& dir, log_compression c) {
  log_core core(compressed_with(c));
  fill_job(core.job(), log_name("dm.log", c));
  core.register_module("dm", dm_id, 1, 64 << 10);
  add_dm_records(core, dm_id, 3);
  core.write(dir + "/" + log_name("dm.log", c));
}

// Names the printers must escape or show as hex, counters and records without a name, and
// values that are not finite.
void names_log(const std::string& dir) {
  log_core core;
  fill_job(core.job(), "names.log");
  core.job().command_line = "perfdm\tlog \"quoted\" back\\slash\nnext line";
  core.job().metadata.push_back({"utf8", "caf\xc3\xa9 \xe2\x82\xac"});
  core.job().metadata.push_back({"latin1", "caf\xe9"});
  core.register_module("dm", dm_id, 1, 64 << 10);
  const std::uint64_t tab = core.lookup_id("name\twith tab");
  const std::uint64_t utf8 = core.lookup_id("r\xc3\xa9sum\xc3\xa9 \xf0\x9f\x93\x88");
  const unsigned char binary[] = {0x00, 0x01, 0xfe, 0xff, 0x7f};
  const std::uint64_t bin = core.lookup_id(binary, sizeof binary, false);
  const std::uint64_t hexname = core.lookup_id("plain but flagged", 17, false);
  const std::uint64_t missing = log_name_id("never in the name table");
  const std::uint64_t quote = core.lookup_id("quote \" and backslash \\");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  core.add_counters(dm_id, tab, {log_counter::of(utf8, std::int64_t{-1}), log_counter::of(bin, nan)});
  core.add_counters(dm_id, bin, {log_counter::of(hexname, inf), log_counter::of(missing, -inf)});
  core.add_counters(dm_id, missing,
                    {log_counter::of(quote, std::numeric_limits<std::int64_t>::min()),
                     log_counter::of(tab, std::numeric_limits<double>::denorm_min())});
  core.add_counters(dm_id, utf8, {});
  core.write(dir + "/names.log");
}

// Modules with a printer, without one, of a newer version, and with a record the counters
// printer refuses (it is last, as its error ends the printing).
void modules_log(const std::string& dir, log_compression c) {
  log_core core(compressed_with(c));
  fill_job(core.job(), log_name("modules.log", c));
  core.register_module("dm", dm_id, 1, 16 << 10);
  core.register_module("posix", posix_id, 1, 16 << 10);
  core.register_module("newer", newer_id, 2, 16 << 10);
  core.register_module("raw", raw_id, 1, 16 << 10);
  core.register_module("mystery", unknown_id, 1, 16 << 10);
  add_dm_records(core, dm_id, 1);
  const std::uint64_t file = core.lookup_id("/etc/passwd");
  core.add_counters(posix_id, file, {log_counter::of(core.lookup_id("POSIX_OPENS"), std::int64_t{3}),
                                     log_counter::of(core.lookup_id("POSIX_READS"), std::int64_t{12}),
                                     log_counter::of(core.lookup_id("POSIX_F_READ_TIME"), 0.125)});
  core.add_counters(newer_id, file, {log_counter::of(core.lookup_id("NEW_COUNTER"), std::int64_t{1})});
  core.add_counters(unknown_id, file, {log_counter::of(core.lookup_id("WHO_KNOWS"), std::int64_t{2})});
  const char raw[] = "not a counters record";
  core.add_record(raw_id, raw, sizeof raw - 1);
  core.write(dir + "/" + log_name("modules.log", c));
}

// A module that ran out of its grant and a name table that ran out of memory.
void partial_log(const std::string& dir) {
  log_core_options o;
  o.module_memory_bytes = 300;
  o.name_memory_bytes = 120;
  log_core core(o);
  fill_job(core.job(), "partial.log");
  core.register_module("dm", dm_id, 1, 200);
  core.register_module("posix", posix_id, 1, 1000);  // granted the 100 bytes left
  add_dm_records(core, dm_id, 2);
  core.add_counters(posix_id, core.lookup_id("/tmp/x"),
                    {log_counter::of(core.lookup_id("POSIX_WRITES"), std::int64_t{5})});
  core.write(dir + "/partial.log");
}

// zlib level 0: the payload is stored, so mutations land in records and names directly.
void stored_log(const std::string& dir) {
  log_core_options o;
  o.compression_level = 0;
  log_core core(o);
  fill_job(core.job(), "stored.log");
  core.register_module("dm", dm_id, 1, 16 << 10);
  add_dm_records(core, dm_id, 1);
  core.write(dir + "/stored.log");
}

// No modules, an empty job record.
void empty_log(const std::string& dir) {
  log_core core;
  core.write(dir + "/empty.log");
}

// Regression (found by log_reader_fuzz): a job whose end - start does not fit an i64; the
// printer computed the run time with a signed overflow.
void regress_run_time_log(const std::string& dir) {
  log_core_options o;
  o.compression_level = 0;
  log_core core(o);
  fill_job(core.job(), "regress_run_time.log");
  core.job().start_ns = std::numeric_limits<std::int64_t>::min();
  core.job().end_ns = std::numeric_limits<std::int64_t>::max();
  core.write(dir + "/regress_run_time.log");
}

// What a crash leaves: complete regions, then a region whose frame header was never
// written, and no index. (Renamed: the writer names it NAME.partial.)
void incomplete_log(const std::string& dir, log_compression c) {
  const std::string path = dir + "/" + log_name("incomplete.log", c);
  {
    log_writer w(path, 4, log_default_level, c);
    job_record j;
    fill_job(j, log_name("incomplete.log", c));
    w.write_job(j);
    w.begin_region(logfmt::region_names, logfmt::names_version, "names");
    std::vector<std::uint8_t> entry;
    byte_sink s(entry);
    const std::string name = "record one";
    s.u64(log_name_id(name));
    s.u32(0);
    s.str(name);
    w.write(entry.data(), entry.size());
    w.end_region();
    w.begin_region(dm_id, 1, "dm");
    std::vector<std::uint8_t> rec;
    encode_log_counters(log_name_id(name), {log_counter::of(log_name_id(name), std::int64_t{7})}, rec);
    w.write_record(rec.data(), rec.size());
    w.end_region();
    w.begin_region(posix_id, 1, "posix");
    w.write_record(rec.data(), rec.size());
    w.abandon();  // as a crash would: no frame header for posix, no index
  }
  if (std::rename((path + ".partial").c_str(), path.c_str()) != 0) {
    throw log_error("cannot rename " + path + ".partial");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_log_corpus DIR\n";
    return 2;
  }
  const std::string dir = argv[1];
  try {
    for (auto c : {log_compression::zlib, log_compression::zstd}) {
      dm_log(dir, c);
      modules_log(dir, c);
      incomplete_log(dir, c);
    }
    names_log(dir);
    partial_log(dir);
    stored_log(dir);
    empty_log(dir);
    regress_run_time_log(dir);
  } catch (const std::exception& e) {
    std::cerr << "make_log_corpus: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
