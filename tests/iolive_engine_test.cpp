// The I/O library's counts live in the engine (docs/IO.md §8): a real `dd`, started held with
// the library preloaded as `perfdm search -- CMD` starts it, watched by a live engine; the
// file.* metrics at the file's /File resource and at the process give dd's exact bytes and
// operations once it ends. Bounded: dd writes 1.2 MB; the waits are at most 20 s each.
#include <catch2/catch.hpp>

#include <cmath>
#include <regex>

#include "cli/io_preload.hpp"
#include "native/pc_resources.hpp"
#include "proc/program_launcher.hpp"
#include "tests/io_test_support.hpp"
#include "tests/live_engine_test_support.hpp"

using namespace perfdm;

namespace {

struct engine : test::live_engine {
  std::string dm(const std::string& command, const std::string& arg = "") {
    return reply("<DYPER PID='DM' COMMAND='" + command + "'>" + arg + "</DYPER>");
  }
  int enable(const std::string& metric, const std::string& focus) {
    auto r = dm("ENABLE", "<ENABLE STREAM='0' METRIC='" + metric + "' FOCUS='" + focus + "'/>");
    std::smatch m;
    INFO(r);
    REQUIRE(std::regex_search(r, m, std::regex("MI ID='([0-9]+)'")));
    return std::stoi(m[1].str());
  }
  // The sum of an MI's buckets (the filling one included), to the whole count: a sample
  // over several buckets is split between them, and the parts add up to within rounding.
  double total(int mi) {
    double sum = 0;
    for (double v : test::buckets(dm("DATA", "<DATA MI='" + std::to_string(mi) + "'/>")))
      if (!std::isnan(v)) sum += v;
    return std::round(sum);
  }
};

}  // namespace

TEST_CASE("iolive: a watched dd's bytes reach the engine at its /File focus, exactly",
          "[iolive][live]") {
  io_test::scratch_dir dir("iolive_engine");
  const std::string out = dir / "out.bin";
  io_preload io(true);
  REQUIRE(io.why_not().empty());
  REQUIRE(io.environment().size() == 2);
  launched_program dd({"dd", "if=/dev/zero", "of=" + out, "bs=4096", "count=300", "status=none"},
                      false, io.environment());
  engine e;
  REQUIRE_THAT(e.dm("WATCH", "<PROCESS PID='" + std::to_string(dd.pid()) + "'/>"),
               Catch::Contains("WATCHED='true'"));
  REQUIRE_THAT(e.dm("STREAM"), Catch::Contains("STREAM ID='0'"));
  REQUIRE_THAT(e.dm("METRICS"), Catch::Contains("NAME='file.write_bytes'"));
  // The file's resource before dd makes the file (the source would define it when it sees it).
  const std::string file = native::file_resource(out);
  REQUIRE_THAT(e.dm("DEFINE", "<RESOURCE NAME='" + file + "'/>"), Catch::Contains(file));
  const std::string process = native::process_resource(native::host_part(), "dd", dd.pid());
  const int written = e.enable("file.write_bytes", file);
  const int writes = e.enable("file.write_ops", file + "," + process);
  const int read = e.enable("file.read_bytes", process);  // /dev/zero is not counted (/dev/)
  const int opens = e.enable("file.meta_ops", process);
  dd.release();
  REQUIRE(test::eventually([&] { return dd.wait_status().has_value(); }));
  CHECK(launched_program::exit_code(*dd.wait_status()) == 0);
  // The source's last reading, made as it sees dd gone, carries the rest.
  CHECK(test::eventually([&] { return e.total(written) == 300 * 4096; }));
  CHECK(e.total(written) == 300 * 4096);
  CHECK(e.total(writes) == 300);
  CHECK(e.total(read) == 0);
  CHECK(e.total(opens) >= 1);  // dd's open of out.bin (and its lseek, if any)
  CHECK_THAT(e.dm("RESOURCES"), Catch::Contains("NAME='" + file + "'"));
}
