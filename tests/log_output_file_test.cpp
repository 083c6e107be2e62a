// Where a log is written while incomplete (log/output_file.hpp): beside its name and renamed
// over it, or, when the name holds a FIFO or a device, written elsewhere and copied in, the
// name left as it was. A FIFO stands in for /dev/null, which a test must not risk.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <future>
#include <iterator>
#include <string>

#include "log/log_format.hpp"
#include "log/log_reader.hpp"
#include "log/log_writer.hpp"
#include "log/output_file.hpp"
#include "tests/log_test_files.hpp"

using namespace perfdm;

namespace {

void write_small_log(const std::string& path) {
  log_writer w(path, 2, -1, log_compression::zlib);
  w.begin_region(40, 1, "counters");
  const char payload[] = "record";
  w.write_record(payload, sizeof payload);
  w.end_region();
  w.finish();
}

bool is_fifo(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

}  // namespace

TEST_CASE("log output: a regular file is written as NAME.partial, then renamed", "[log]") {
  log_test::removed_on_exit cleanup;
  auto path = log_test::temp_path("output_file", "regular.log");
  cleanup.paths.push_back(path);
  CHECK(partial_path_for(path) == path + ".partial");
  write_small_log(path);
  log_reader r(path);
  CHECK(r.find(40) != nullptr);
  CHECK(::access((path + ".partial").c_str(), F_OK) != 0);
}

TEST_CASE("log output: a FIFO (like /dev/null) is written into, never replaced", "[log]") {
  log_test::removed_on_exit cleanup;
  auto path = log_test::temp_path("output_file", "fifo.log");
  cleanup.paths.push_back(path);
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  auto partial = partial_path_for(path);
  CHECK(partial.rfind(path, 0) != 0);  // not beside it: in the temporary directory
  CHECK(partial.find("fifo.log.partial") != std::string::npos);
  // The reader: everything the FIFO carries, until the writer closes it.
  auto read = std::async(std::launch::async, [&] {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  });
  write_small_log(path);
  auto bytes = read.get();
  CHECK(is_fifo(path));
  REQUIRE(bytes.size() > logfmt::preamble_size);
  std::uint64_t magic = 0;
  std::memcpy(&magic, bytes.data(), sizeof magic);
  CHECK(magic == logfmt::magic);
  // The complete log went through the FIFO, and the copy written elsewhere is gone.
  auto copy = log_test::temp_path("output_file", "copy.log");
  cleanup.paths.push_back(copy);
  std::ofstream(copy, std::ios::binary) << bytes;
  log_reader back(copy);
  CHECK(back.find(40) != nullptr);
  CHECK(::access(partial.c_str(), F_OK) != 0);
}
