// Attach and detach against a real running program (shm/attach, docs/FRAMES.md §5): the
// cost of one attach + detach of the two-frame-type test target (ELF read, /proc reads,
// two real segments, handle writes), of reading the executable's symbols alone, and of one
// 8-byte handle write into the other process.
#include <benchmark/benchmark.h>

#include <boost/interprocess/shared_memory_object.hpp>
#include <cstdio>

#include "shm/attach.hpp"
#include "shm/segment_format.hpp"
#include "shm/segment.hpp"
#include "shm/process_memory.hpp"
#include "tests/attach_test_process.hpp"

namespace {

using namespace perfdm::shm;
namespace bip = boost::interprocess;

std::string create_segment(int pid, const std::string&, const std::string&, std::uint64_t h,
                           std::uint32_t) {
  const std::string name = format::segment_name(pid, h);
  bip::shared_memory_object shm(bip::create_only, name.c_str(), bip::read_write);
  shm.truncate(4096);
  return name;
}

void attach_detach(benchmark::State& state) {
  attach_test::child_process target({PERFDM_ATTACH_TARGET_PIE});
  if (!target.read_line()) {
    state.SkipWithError("the target did not start");
    return;
  }
  attach_options options;
  options.create_segment = create_segment;
  for (auto _ : state) {
    benchmark::DoNotOptimize(attach(target.pid(), options));
    detach(target.pid());
  }
}
BENCHMARK(attach_detach)->Unit(benchmark::kMicrosecond);

void frame_symbols(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(find_frame_symbols(PERFDM_ATTACH_TARGET_PIE));
}
BENCHMARK(frame_symbols)->Unit(benchmark::kMicrosecond);

void handle_write(benchmark::State& state, memory_method method) {
  attach_test::child_process target({PERFDM_ATTACH_TARGET_PIE});
  const auto line = target.read_line();
  unsigned long demo_at = 0, ticks_at = 0;
  if (!line || std::sscanf(line->c_str(), "ready %lx %lx", &demo_at, &ticks_at) != 2) {
    state.SkipWithError("the target did not start");
    return;
  }
  const std::uint64_t zero = 0;
  for (auto _ : state) write_memory(target.pid(), demo_at, &zero, sizeof zero, method);
}
BENCHMARK_CAPTURE(handle_write, process_vm_writev, memory_method::automatic);
BENCHMARK_CAPTURE(handle_write, proc_mem, memory_method::proc_mem);

}  // namespace

BENCHMARK_MAIN();
