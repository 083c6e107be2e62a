// Incomplete logs (NAME.partial after a crash) and partial modules (out of memory); the
// crash and cut tests run on a zlib log and on a zstd log (EACH_COMPRESSION).
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
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

std::string temp_path(const std::string& name) {
  return log_test::temp_path("log_partial_test", name);
}

using log_test::removed_on_exit;

using log_test::slurp;

using log_test::spit;

bool exists(const std::string& path) {
  return ::access(path.c_str(), F_OK) == 0;
}

struct run_result {
  int rc;
  std::string out, err;
};

run_result run(const std::string& path, const log_printer_registry& reg, bool show_partial = false,
               bool json = false) {
  log_command_options o;
  o.file = path;
  o.registry = &reg;
  o.show_partial = show_partial;
  o.json = json;
  std::ostringstream out, err;
  const int rc = run_log_command(o, out, err);
  return {rc, out.str(), err.str()};
}

std::vector<std::string> rows_of(const std::string& out) {
  std::vector<std::string> v;
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);) {
    if (!l.empty() && l[0] != '#') v.push_back(l);
  }
  return v;
}

// Module k (id 16 + k) holds `records` counters records, record ids 1000 k + i.
void write_module(log_writer& w, int k, int records) {
  w.begin_region(16 + k, 1, "M" + std::to_string(k));
  std::vector<std::uint8_t> rec;
  for (int i = 0; i < records; ++i) {
    rec.clear();
    encode_log_counters(1000 * k + i, {log_counter::of(7, std::int64_t{i})}, rec);
    w.write_record(rec.data(), rec.size());
  }
  w.end_region();
}

log_printer_registry printers(int modules) {
  log_printer_registry r;
  for (int k = 0; k < modules; ++k) r.add(16 + k, "M" + std::to_string(k), 1, print_log_counters);
  return r;
}

}  // namespace

TEST_CASE("log partial: the writer writes NAME.partial and renames it when complete", "[log]") {
  const std::string path = temp_path("rename.log");
  removed_on_exit cleanup{{path}};
  const auto compression = EACH_COMPRESSION;
  log_writer w(path, 3, log_default_level, compression);
  CHECK(exists(path + ".partial"));
  CHECK_FALSE(exists(path));
  w.write_job(job_record{});
  write_module(w, 0, 10);
  CHECK(exists(path + ".partial"));
  CHECK_FALSE(exists(path));
  w.finish();
  CHECK(exists(path));
  CHECK_FALSE(exists(path + ".partial"));
  log_reader r(path);
  CHECK(r.complete());
  CHECK(r.compression() == static_cast<std::uint32_t>(compression));
  CHECK(r.regions().size() == 2);  // room for 3, 2 used
}

TEST_CASE(
    "log partial: a crash mid-region leaves a .partial readable up to its last complete "
    "region",
    "[log]") {
  const std::string path = temp_path("crash.log");
  removed_on_exit cleanup{{path}};
  const auto compression = EACH_COMPRESSION;
  INFO(log_compression_name(compression));
  {
    log_writer w(path, 6, log_default_level, compression);
    job_record job;
    job.command_line = "./crashes";
    w.write_job(job);
    w.begin_region(logfmt::region_names, 1, "names");
    w.end_region();
    for (int k = 0; k < 3; ++k) write_module(w, k, 100);
    // The fourth module is being written when the process dies.
    w.begin_region(19, 1, "M3");
    std::vector<std::uint8_t> rec;
    encode_log_counters(3000, {log_counter::of(7, std::int64_t{1})}, rec);
    for (int i = 0; i < 20000; ++i) w.write_record(rec.data(), rec.size());
    w.abandon();
  }
  CHECK_FALSE(exists(path));
  const std::string partial = path + ".partial";
  REQUIRE(exists(partial));

  log_reader r(partial);
  CHECK_FALSE(r.complete());
  REQUIRE(r.regions().size() == 5);
  CHECK(r.regions().back().name == "M2");
  CHECK(r.read_job(*r.find(0)).command_line == "./crashes");

  const auto res = run(partial, printers(4));
  INFO(res.out << res.err);
  CHECK(res.rc == 0);
  CHECK(res.out.find("# state: incomplete: read up to its last complete region\n") !=
        std::string::npos);
  CHECK(res.out.find("# note: log incomplete: the writer did not finish it (a .partial file "
                     "left by a crash?); regions were found by walking their frames\n") !=
        std::string::npos);
  CHECK(res.out.find("# note: reading stops early: at offset " +
                     std::to_string(r.regions().back().offset + logfmt::frame_header_size +
                                    r.regions().back().compressed_size) +
                     ", no region frame there") != std::string::npos);
  CHECK(res.out.find("# note: 5 complete regions found\n") != std::string::npos);
  CHECK(rows_of(res.out).size() == 300);
}

TEST_CASE("log partial: a .partial cut after N complete regions reads those N", "[log]") {
  const std::string path = temp_path("cut.log");
  const std::string cut_path = temp_path("cut-copy.log.partial");
  removed_on_exit cleanup{{path, cut_path}};
  std::vector<log_region_entry> regions;
  const auto compression = EACH_COMPRESSION;
  INFO(log_compression_name(compression));
  {
    log_writer w(path, 8, log_default_level, compression);
    w.write_job(job_record{});
    for (int k = 0; k < 6; ++k) write_module(w, k, 40 + 10 * k);
    regions = w.regions();
    w.abandon();  // every region complete, the index never written
  }
  const std::string bytes = slurp(path + ".partial");
  const auto reg = printers(6);
  const std::size_t header = logfmt::header_size(8);

  // All seven regions there, but not finished.
  spit(cut_path, bytes);
  {
    log_reader r(cut_path);
    CHECK_FALSE(r.complete());
    CHECK(r.regions().size() == 7);
  }

  for (std::size_t n = 0; n <= regions.size(); ++n) {
    // Cuts inside region n (or right at its start), after n complete regions.
    const std::uint64_t start = n < regions.size() ? regions[n].offset : bytes.size();
    std::vector<std::uint64_t> cuts = {start};
    if (n < regions.size()) {
      const auto& r = regions[n];
      cuts.push_back(start + 1);
      cuts.push_back(start + logfmt::frame_header_size - 1);
      cuts.push_back(start + logfmt::frame_header_size);
      cuts.push_back(start + logfmt::frame_header_size + r.compressed_size / 2);
      cuts.push_back(start + logfmt::frame_header_size + r.compressed_size - 1);
    }
    for (auto cut : cuts) {
      INFO("cut at " << cut << " after " << n << " regions");
      spit(cut_path, bytes.substr(0, cut));
      log_reader r(cut_path);
      CHECK(r.regions().size() == n);
      const auto res = run(cut_path, reg);
      CHECK(res.rc == 0);
      // Module k has 40 + 10 k records; regions 1..n-1 are modules 0..n-2.
      std::size_t expected = 0;
      for (std::size_t k = 0; k + 1 < n; ++k) expected += 40 + 10 * k;
      CHECK(rows_of(res.out).size() == expected);
      if (n == 0) CHECK(res.out.find("# note: the log has no job record\n") != std::string::npos);
    }
  }
  // Shorter than the header: an error, even for a .partial.
  spit(cut_path, bytes.substr(0, header - 1));
  const auto res = run(cut_path, reg);
  CHECK(res.rc == 1);
  CHECK(res.err.find("truncated") != std::string::npos);
}

TEST_CASE("log partial: a CRC mismatch in an incomplete log stops reading there", "[log]") {
  const std::string path = temp_path("crcpartial.log");
  removed_on_exit cleanup{{path}};
  std::vector<log_region_entry> regions;
  const auto compression = EACH_COMPRESSION;
  INFO(log_compression_name(compression));
  {
    log_writer w(path, 4, log_default_level, compression);
    w.write_job(job_record{});
    for (int k = 0; k < 3; ++k) write_module(w, k, 30);
    regions = w.regions();
    w.abandon();
  }
  std::string bytes = slurp(path + ".partial");
  bytes[regions[2].offset + logfmt::frame_header_size + 5] ^= 1;
  spit(path + ".partial", bytes);
  const auto res = run(path + ".partial", printers(3));
  CHECK(res.rc == 0);
  CHECK(res.out.find("# note: reading stops early: CRC mismatch in region M1 (id 17)") !=
        std::string::npos);
  CHECK(rows_of(res.out).size() == 30);
}

TEST_CASE("log partial: a module out of memory is marked partial, shown only when asked", "[log]") {
  const std::string path = temp_path("oom.log");
  removed_on_exit cleanup{{path}};
  log_core_options o;
  o.module_memory_bytes = 3000;
  o.name_memory_bytes = 200;
  log_core core(o);
  const std::size_t record_cost = 4 + log_counters_header_bytes + log_counter_bytes;  // 33
  CHECK(core.register_module("SMALL", 16, 1, 1000) == 1000);
  CHECK(core.register_module("BIG", 17, 1, 100000) == 2000);  // what was left
  const auto c = core.lookup_id("C");
  int kept = 0;
  for (int i = 0; i < 100; ++i) {
    if (core.add_counters(16, core.lookup_id("/f" + std::to_string(i)),
                          {log_counter::of(c, std::int64_t{i})})) {
      ++kept;
    }
  }
  CHECK(kept == static_cast<int>(1000 / record_cost));  // 30 records fit
  CHECK(core.partial(16));
  CHECK(core.used(16) <= core.granted(16));
  CHECK(core.records(16) == 30);
  for (int i = 0; i < 5; ++i) CHECK(core.add_counters(17, 5000 + i, {log_counter::of(c, 1.5)}));
  CHECK_FALSE(core.partial(17));
  // 200 bytes of name pool: the 18-byte entries of "C" and "/fN" ran out.
  CHECK(core.names_partial());
  CHECK(core.name_memory_used() <= 200);
  core.write(path);

  {
    log_reader r(path);
    CHECK((r.find(16)->flags & logfmt::flag_partial) != 0);
    CHECK((r.find(17)->flags & logfmt::flag_partial) == 0);
    CHECK((r.find(1)->flags & logfmt::flag_partial) != 0);
  }
  log_printer_registry reg;
  reg.add(16, "SMALL", 1, print_log_counters);
  reg.add(17, "BIG", 1, print_log_counters);

  auto res = run(path, reg);
  INFO(res.out);
  CHECK(res.rc == 0);
  CHECK(res.out.find("# partial modules: SMALL (id 16)\n") != std::string::npos);
  CHECK(res.out.find("# region SMALL (id 16): version 1, offset ") != std::string::npos);
  CHECK(res.out.find(", partial\n") != std::string::npos);
  CHECK(res.out.find("# partial module refused: module SMALL (id 16) is partial (it ran out of "
                     "memory while recording, so its records are incomplete): not shown; "
                     "--show-partial shows it\n") != std::string::npos);
  CHECK(res.out.find("# note: the name table is partial") != std::string::npos);
  auto rows = rows_of(res.out);
  CHECK(rows.size() == 5);
  for (const auto& r : rows) CHECK(r.rfind("BIG\t", 0) == 0);

  res = run(path, reg, true);
  CHECK(res.rc == 0);
  CHECK(res.out.find("# note: module SMALL (id 16) is partial (it ran out of memory while "
                     "recording): the rows shown are incomplete\n") != std::string::npos);
  rows = rows_of(res.out);
  CHECK(rows.size() == 35);
  CHECK(rows.front().rfind("SMALL\t", 0) == 0);

  res = run(path, reg, false, true);
  CHECK(res.rc == 0);
  CHECK(res.out.find("{\"type\":\"note\",\"text\":\"module SMALL (id 16) is partial (it ran out "
                     "of memory while recording, so its records are incomplete): not shown; "
                     "--show-partial shows it\",\"module\":\"SMALL\",\"module_id\":16,"
                     "\"reason\":\"partial\"}\n") != std::string::npos);
  CHECK(res.out.find("\"name\":\"SMALL\",\"version\":1,\"partial\":true") != std::string::npos);
}

TEST_CASE("log partial: a module may mark itself partial", "[log]") {
  const std::string path = temp_path("self.log");
  removed_on_exit cleanup{{path}};
  log_core core;
  core.register_module("SELF", 20, 1, 1000);
  core.add_counters(20, 1, {log_counter::of(1, std::int64_t{1})});
  core.mark_partial(20);
  core.write(path);
  log_printer_registry reg;
  reg.add(20, "SELF", 1, print_log_counters);
  CHECK(rows_of(run(path, reg).out).empty());
  CHECK(rows_of(run(path, reg, true).out).size() == 1);
}
