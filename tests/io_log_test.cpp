// Reading perfdm io's logs (issue part 6): `perfdm log LOG` prints the new modules,
// `--module posix|stdio` darshan-parser's layout with Darshan's counter names, `--total`,
// `--perf`, `--file` as darshan-parser computes them, and `perfdm io --darshan-log` writes a
// log in Darshan's own format that perfdm's Darshan reader reads back.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "darshan/darshan_log.hpp"
#include "log/log_listing.hpp"
#include "log/log_modules.hpp"
#include "tests/io_test_support.hpp"

using namespace perfdm;
using namespace io_test;

namespace {

struct printed {
  int rc;
  std::string out, err;
};

printed print(const std::string& file, std::vector<std::string> modules, bool total = false,
              bool perf = false, bool files = false) {
  add_log_module_printers(default_log_printers());
  log_command_options o;
  o.file = file;
  o.modules = std::move(modules);
  o.total = total;
  o.perf = perf;
  o.file_counts = files;
  std::ostringstream out, err;
  const int rc = run_log_command(o, out, err);
  return {rc, out.str(), err.str()};
}

}  // namespace

TEST_CASE("io log: perfdm log prints the I/O modules, and darshan-parser's layout", "[io]") {
  scratch_dir d("logread");
  const std::string log = d / "run.log";
  const std::string dlog = d / "run.darshan";
  const auto rr = run({PERFDM_BINARY, "io", "-q", "-o", log, "--darshan-log", dlog, "--",
                       PERFDM_IO_CALLS, "example", d.path});
  REQUIRE(rr.exit_code() == 0);
  const std::string file = d / "data.bin";
  const std::string id = std::to_string(darshan::record_id(file));

  const auto all = print(log, {});
  REQUIRE(all.rc == 0);
  CHECK(all.out.find("posix\t" + id + "\tPOSIX_WRITES\t15\t" + file) != std::string::npos);
  CHECK(all.out.find("posix\t" + id + "\tPOSIX_TRUNCATES\t0\t" + file) != std::string::npos);
  CHECK(all.out.find("heatmap\t") != std::string::npos);

  const auto posix = print(log, {"posix"});
  REQUIRE(posix.rc == 0);
  CHECK(posix.out.find("# darshan log version: 3.41") != std::string::npos);
  CHECK(posix.out.find("POSIX\t0\t" + id + "\tPOSIX_WRITES\t15\t" + file + "\t/") !=
        std::string::npos);
  CHECK(posix.out.find("POSIX_TRUNCATES") == std::string::npos);  // not a Darshan counter
  CHECK(posix.out.find("STDIO\t") == std::string::npos);

  const auto total = print(log, {}, true);
  REQUIRE(total.rc == 0);
  CHECK(total.out.find("total_POSIX_WRITES: 15") != std::string::npos);
  CHECK(total.out.find("total_POSIX_BYTES_READ: 12295") != std::string::npos);
  const auto perf = print(log, {}, false, true);
  CHECK(perf.out.find("total_bytes: 26791") != std::string::npos);
  const auto files = print(log, {"posix"}, false, false, true);
  CHECK(files.out.find("# read_write: 1 26791 20215") != std::string::npos);

  // The Darshan-format copy reads back with the same records and names.
  darshan::log_file back(dlog);
  CHECK(back.job().nprocs == 1);
  CHECK(back.job().exe.find("io_calls example") != std::string::npos);
  CHECK_FALSE(back.job().mounts.empty());
  std::int64_t writes = -1;
  for (const auto& m : back.modules()) {
    back.for_each_record(m, [&](const darshan::record& r) {
      if (m.id == darshan::POSIX_MOD && r.id == darshan::record_id(file)) {
        writes = r.counter(darshan::POSIX_WRITES);
      }
    });
  }
  CHECK(writes == 15);
  // A perfdm log without I/O modules is not read as Darshan's.
  const auto none = print(PERFDM_SOURCE_DIR "/README.md", {"posix"});
  CHECK(none.rc == 1);
}
