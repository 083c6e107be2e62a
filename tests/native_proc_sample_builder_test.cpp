// proc.* readings into samples (actors/proc_sample_builder.*): routing by focus, COUNTER deltas and
// SAMPLED levels between readings, only what is needed is read. Plain C++, no process.
#include <catch2/catch.hpp>

#include "sources/proc_sample_builder.hpp"

using namespace perfdm;

namespace {

const std::string process = "/Process/app{42}";

native::process_stats reading(double cpu_user_s, std::uint64_t rss, std::uint32_t threads,
                              std::vector<native::thread_stats> per_thread = {}) {
  native::process_stats p;
  p.pid = 42;
  p.name = "app";
  p.cpu_user_ns = static_cast<std::uint64_t>(cpu_user_s * 1e9);
  p.rss_bytes = rss;
  p.threads = threads;
  p.per_thread = std::move(per_thread);
  return p;
}

native::thread_stats thread(int tid, double cpu_user_s, std::uint64_t voluntary) {
  native::thread_stats t;
  t.tid = tid;
  t.cpu_user_ns = static_cast<std::uint64_t>(cpu_user_s * 1e9);
  t.ctx_voluntary = voluntary;
  return t;
}

}  // namespace

TEST_CASE("proc.* metrics: COUNTER deltas and SAMPLED levels between readings", "[native][proc]") {
  proc_sample_builder s(process);
  CHECK(proc_sample_builder::metrics()[0].name == std::string("proc.cpu_user"));
  s.set_collecting({{mi_handle{0}, "proc.cpu_user", {"/"}},
                    {mi_handle{1}, "proc.rss", {process}},
                    {mi_handle{2}, "proc.threads", {"/Process"}},
                    {mi_handle{3}, "other.metric", {"/"}},
                    {mi_handle{4}, "proc.cpu_user", {"/Process/other{7}"}}});
  CHECK(s.collecting());
  auto needs = s.needs();
  CHECK_FALSE(needs.io);
  CHECK_FALSE(needs.threads);
  std::vector<sample> out;
  s.add(reading(1.0, 1000, 3), 100'000'000, out);
  CHECK(out.empty());  // the first reading is a baseline
  s.add(reading(1.25, 3000, 4), 300'000'000, out);
  REQUIRE(out.size() == 3);
  CHECK(out[0].mi == mi_handle{0});
  CHECK(out[0].start == Approx(0.1));
  CHECK(out[0].end == Approx(0.3));
  CHECK(out[0].value == Approx(0.25));  // CPU seconds in the interval
  CHECK(out[1].mi == mi_handle{1});
  CHECK(out[1].value == 3000);  // the level now
  CHECK(out[2].mi == mi_handle{2});
  CHECK(out[2].value == 4);
  // A counter that goes backwards gives 0, never a negative amount.
  out.clear();
  s.add(reading(1.0, 3000, 4), 400'000'000, out);
  CHECK(out[0].value == 0);
}

TEST_CASE("proc.* metrics of one thread, what a reading must include", "[native][proc]") {
  proc_sample_builder s(process);
  s.set_collecting({{mi_handle{5}, "proc.cpu_user", {process + "/43"}},
                    {mi_handle{6}, "proc.rss", {process + "/43"}},  // no per-thread memory
                    {mi_handle{7}, "proc.io_read_bytes", {"/"}}});
  auto needs = s.needs();
  CHECK(needs.io);
  CHECK(needs.threads);
  std::vector<sample> out;
  s.add(reading(1, 0, 2, {thread(42, 0.5, 1), thread(43, 0.5, 1)}), 0, out);
  s.add(reading(2, 0, 2, {thread(42, 0.5, 1), thread(43, 1.5, 9)}), 200'000'000, out);
  REQUIRE(out.size() == 2);
  CHECK(out[0].mi == mi_handle{7});
  CHECK(out[1].mi == mi_handle{5});
  CHECK(out[1].value == Approx(1.0));
  // Nothing collecting: nothing to read.
  s.set_collecting({});
  CHECK_FALSE(s.collecting());
  CHECK_FALSE(s.needs().io);
}
