// The native module of the log (cli/native_log_module.*): written, read back and printed,
// and the logs of two engines merged, the per-function records summed across processes.
#include <catch2/catch.hpp>
#include <sstream>

#include "log/modules/native_log_module.hpp"
#include "log/log_print.hpp"
#include "log/log_reader.hpp"
#include "tests/log_test_files.hpp"

using namespace perfdm;

namespace {

native_log_process watched(std::int32_t pid, std::uint64_t hot_base) {
  native_log_process p;
  p.resource = "/Process/app{" + std::to_string(pid) + "}";
  auto& r = p.profile;
  r.pid = pid;
  r.samples = 100;
  r.stacks = 600;
  r.active = hot_base + 5;
  r.detailed = 1;
  r.montime = 1.25;
  r.cost = 0.0625;
  r.last = 2.5;
  r.checktime = 0.01;
  r.ended = pid == 2;
  r.items = {{"app@hot", "", hot_base, hot_base, "NORMAL"},
             {"app@hot@42", "hot.c", hot_base, hot_base, "NORMAL"},
             {"libc.so.6@read", "", 5, 5, "SYSTEM_IO"}};
  r.threads = {{pid + 1, "worker", 100, 10, 60, 20, 5, 5}};
  return p;
}

std::string rows(const std::string& path) {
  register_native_log_printer();
  std::ostringstream out;
  print_log(path, {}, out);
  std::string rows;
  std::istringstream in(out.str());
  for (std::string l; std::getline(in, l);)
    if (!l.empty() && l[0] != '#') rows += l + '\n';
  return rows;
}

bool has_row(const std::string& rows, const std::string& counter, const std::string& value,
             const std::string& name) {
  return rows.find("\t" + counter + "\t" + value + "\t" + name + "\n") != std::string::npos;
}

}  // namespace

TEST_CASE("the native module: per process counts, profile, thread states, per function sums",
          "[native][log]") {
  log_test::removed_on_exit files;
  auto path = log_test::temp_path("native_log", "one.log");
  files.paths.push_back(path);
  log_core_options o;
  o.compression = EACH_COMPRESSION;
  log_core core(o);
  add_native_module(core, {watched(1, 80), watched(2, 20)}, 1 << 20);
  core.write(path);
  auto r = rows(path);
  INFO(r);
  CHECK(has_row(r, "samples", "100", "native /Process/app{1}"));
  CHECK(has_row(r, "cost", "0.0625", "native /Process/app{1}"));
  CHECK(has_row(r, "ended", "0", "native /Process/app{1}"));
  CHECK(has_row(r, "ended", "1", "native /Process/app{2}"));
  CHECK(has_row(r, "base", "80", "profile /Process/app{1} app@hot"));
  CHECK(has_row(r, "total", "80", "profile /Process/app{1} app@hot@42 hot.c"));
  CHECK(has_row(r, "type.SYSTEM_IO", "1", "profile /Process/app{2} libc.so.6@read"));
  CHECK(has_row(r, "runs", "60", "threads /Process/app{2}/3 worker"));
  CHECK(has_row(r, "blocks", "10", "threads /Process/app{1}/2 worker"));
  // Across the processes: one record per function, lines left out.
  CHECK(has_row(r, "base", "100", "profile app@hot"));
  CHECK(has_row(r, "total", "10", "profile libc.so.6@read"));
  CHECK(r.find("profile app@hot@42") == std::string::npos);
  CHECK(r.rfind("native\t", 0) == 0);
}

TEST_CASE("native modules of two engines merge: same names reduce, sums and maxima",
          "[native][log]") {
  log_test::removed_on_exit files;
  auto first = log_test::temp_path("native_log", "first.log");
  auto second = log_test::temp_path("native_log", "second.log");
  auto merged = log_test::temp_path("native_log", "merged.log");
  files.paths = {first, second, merged};
  for (auto& [path, pid] : {std::pair{first, 1}, std::pair{second, 2}}) {
    log_core core;
    add_native_module(core, {watched(pid, 30)}, 1 << 20);
    core.write(path);
  }
  log_core job;
  add_native_module(job, {}, 1 << 20);  // registers the module and its reduction
  job.merge(log_reader(first));
  job.merge(log_reader(second));
  job.write(merged);
  auto r = rows(merged);
  INFO(r);
  CHECK(has_row(r, "base", "60", "profile app@hot"));             // summed across processes
  CHECK(has_row(r, "type.NORMAL", "1", "profile app@hot"));       // a maximum
  CHECK(has_row(r, "samples", "100", "native /Process/app{1}"));  // each process its own
  CHECK(has_row(r, "samples", "100", "native /Process/app{2}"));
}
