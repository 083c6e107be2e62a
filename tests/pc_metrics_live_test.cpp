// The Performance Consultant's metrics on the workloads of examples/pc/, live: WATCH a real
// program, ENABLE cpu, sync_wait, io_wait, io_ops, io_bytes at foci of the three hierarchies
// like any metric, and check the rates against the bottleneck each workload is built around.
// Each case watches one workload for about 3 s of data.
#include <catch2/catch.hpp>
#include <cmath>
#include <regex>
#include <string>

#include "native/pc_resources.hpp"
#include "tests/live_engine_test_support.hpp"
#include "tests/pc_workload_process.hpp"

using namespace perfdm;
using pc_test::workload_process;

namespace {

struct engine : test::live_engine {
  engine() : live_engine(with_buckets()) {}
  static session_options with_buckets() {
    auto o = options();
    o.engine.base_width = 50'000'000;  // 50 ms buckets
    return o;
  }
  std::string dm(const std::string& command, const std::string& arg = "") {
    return reply("<DYPER PID='DM' COMMAND='" + command + "'>" + arg + "</DYPER>");
  }
  void watch(int pid) {
    REQUIRE_THAT(dm("WATCH", "<PROCESS PID='" + std::to_string(pid) + "'/>"),
                 Catch::Contains("WATCHED='true'"));
    REQUIRE_THAT(dm("STREAM"), Catch::Contains("STREAM ID='0'"));
  }
  // Waits until the resource is defined (discovered by a stack sample).
  void wait_for_resource(const std::string& name) {
    INFO(name);
    REQUIRE(test::eventually(
        [&] { return dm("RESOURCES").find("NAME='" + name + "'") != std::string::npos; }));
  }
  // The first capture of `pattern` in RESOURCES, once there is one.
  std::string resource_matching(const std::string& pattern) {
    std::smatch m;
    std::string all;
    REQUIRE(test::eventually([&] {
      all = dm("RESOURCES");
      return std::regex_search(all, m, std::regex(pattern));
    }));
    return m[1].str();
  }
  int enable(const std::string& metric, const std::string& focus) {
    auto r = dm("ENABLE", "<ENABLE STREAM='0' METRIC='" + metric + "' FOCUS='" + focus + "'/>");
    std::smatch m;
    INFO(r);
    REQUIRE(std::regex_search(r, m, std::regex("MI ID='([0-9]+)'")));
    return std::stoi(m[1].str());
  }
  // The data of an MI so far: the sum of its buckets with data, and the seconds they span.
  std::pair<double, double> data(int mi) {
    auto r = dm("DATA", "<DATA MI='" + std::to_string(mi) + "'/>");
    std::smatch m;
    double width = 0;
    if (std::regex_search(r, m, std::regex("WIDTH='([^']+)'"))) width = std::stod(m[1].str());
    double sum = 0, seconds = 0;
    for (double v : test::buckets(r))
      if (!std::isnan(v)) {
        sum += v;
        seconds += width;
      }
    return {sum, seconds};
  }
  // The mean of an MI's buckets with data (a SAMPLED metric's level).
  double level(int mi) {
    double sum = 0, n = 0;
    for (double v : test::buckets(dm("DATA", "<DATA MI='" + std::to_string(mi) + "'/>")))
      if (!std::isnan(v)) {
        sum += v;
        ++n;
      }
    return n > 0 ? sum / n : std::nan("");
  }
  // Waits for `seconds` of data of every MI, then gives each one's rate (per second).
  std::vector<double> rates(const std::vector<int>& mis, double seconds = 2.5) {
    REQUIRE(test::eventually([&] {
      for (int mi : mis)
        if (data(mi).second < seconds) return false;
      return true;
    }));
    std::vector<double> out;
    for (int mi : mis) {
      auto [sum, span] = data(mi);
      out.push_back(sum / span);
    }
    return out;
  }
};

std::string machine_process(const char* name, int pid) {
  return native::process_resource(native::host_part(), name, pid);
}

}  // namespace

TEST_CASE(
    "PC metrics live: cpu is hot at tokenize and the main thread, 0 at the idle "
    "function and thread",
    "[pc-metrics][live]") {
  workload_process w("pc_cpu");
  engine e;
  e.watch(w.pid);
  auto process = machine_process("pc_cpu", w.pid);
  auto main_thread = process + "/pc_cpu{" + std::to_string(w.pid) + "}";
  e.wait_for_resource("/Code/pc_cpu/tokenize");
  e.wait_for_resource("/Code/pc_cpu/idle_housekeeping");
  e.wait_for_resource(main_thread);
  auto housekeeper = process + "/housekeeper{" +
                     e.resource_matching("NAME='/Machine/[^']*\\{" + std::to_string(w.pid) +
                                         "\\}/housekeeper\\{([0-9]+)\\}'") +
                     "}";
  int hot = e.enable("cpu", "/Code/pc_cpu/tokenize");
  int idle = e.enable("cpu", "/Code/pc_cpu/idle_housekeeping");
  int main_cpu = e.enable("cpu", "/Code/pc_cpu/parse," + main_thread);
  int housekeeper_cpu = e.enable("cpu", housekeeper);
  int all = e.enable("cpu", "/");
  int threads = e.enable("active_threads", process);
  int sync = e.enable("sync_wait", "/");
  auto r = e.rates({hot, idle, main_cpu, housekeeper_cpu, all, sync});
  r.push_back(e.level(threads));
  INFO("tokenize " << r[0] << ", idle " << r[1] << ", parse at main " << r[2] << ", housekeeper "
                   << r[3] << ", all " << r[4] << ", sync " << r[5] << ", threads " << r[6]);
  // tokenize takes about 90 % of the main thread; parse (inclusive) all of it.
  CHECK(r[0] > 0.6);
  CHECK(r[0] < 1.2);
  CHECK(r[1] < 0.05);
  CHECK(r[2] > 0.7);
  CHECK(r[3] < 0.05);
  CHECK(r[4] == Approx(r[2]).margin(0.15));
  CHECK(r[5] < 0.05);
  CHECK(r[6] == Approx(2).margin(0.1));
}

TEST_CASE("PC metrics live: sync_wait is high at the contended mutex's SyncObject",
          "[pc-metrics][live]") {
  workload_process w("pc_lock", {"30", "4"});
  std::smatch m;
  auto mutex_line = w.line();
  REQUIRE(std::regex_search(mutex_line, m, std::regex("mutex (0x[0-9a-f]+)")));
  auto mutex = "/SyncObject/Mutex/" + m[1].str();
  engine e;
  e.watch(w.pid);
  e.wait_for_resource(mutex);
  int at_mutex = e.enable("sync_wait", mutex);
  int cpu_at_mutex = e.enable("cpu", mutex);
  int at_function = e.enable("sync_wait", "/Code/pc_lock/update_shared_table");
  int io = e.enable("io_wait", "/");
  auto r = e.rates({at_mutex, cpu_at_mutex, at_function, io});
  INFO("sync_wait at the mutex " << r[0] << ", cpu there " << r[1] << ", at the function " << r[2]
                                 << ", io_wait " << r[3]);
  // Four threads, one holding the mutex: about three wait at any time.
  CHECK(r[0] > 1.5);
  CHECK(r[1] == 0);
  CHECK(r[2] == Approx(r[0]).margin(0.3));
  CHECK(r[3] < 0.1);
}

TEST_CASE("PC metrics live: a reader blocked on a pipe is io_wait", "[pc-metrics][live]") {
  workload_process w("pc_pipe");
  engine e;
  e.watch(w.pid);
  e.wait_for_resource("/Code/pc_pipe/read_records");
  int at_function = e.enable("io_wait", "/Code/pc_pipe/read_records");
  int main_thread = e.enable(
      "io_wait", machine_process("pc_pipe", w.pid) + "/pc_pipe{" + std::to_string(w.pid) + "}");
  int cpu = e.enable("cpu", "/");
  int sync = e.enable("sync_wait", "/");
  auto r = e.rates({at_function, main_thread, cpu, sync});
  INFO("io_wait at read_records " << r[0] << ", at the main thread " << r[1] << ", cpu " << r[2]
                                  << ", sync_wait " << r[3]);
  CHECK(r[0] > 0.7);
  CHECK(r[1] > 0.7);
  CHECK(r[2] < 0.2);
  CHECK(r[3] < 0.1);
}

TEST_CASE("PC metrics live: tiny writes are many io_ops of few io_bytes each",
          "[pc-metrics][live]") {
  workload_process w("pc_tiny_writes");
  engine e;
  e.watch(w.pid);
  e.wait_for_resource("/Code/pc_tiny_writes/write_log");
  int ops = e.enable("io_ops", "/Code/pc_tiny_writes/write_log");
  int bytes = e.enable("io_bytes", "/Code/pc_tiny_writes/write_log");
  int io = e.enable("io_wait", "/");
  auto r = e.rates({ops, bytes, io});
  INFO("io_ops " << r[0] << "/s, io_bytes " << r[1] << "/s, io_wait " << r[2]);
  CHECK(r[0] > 1000);
  CHECK(r[1] / r[0] < 4096);
  CHECK(r[1] / r[0] == Approx(16).margin(1));
  CHECK(r[2] > 0.2);
}

TEST_CASE(
    "CALLGRAPH of the CPU workload: main → run → parse → tokenize, entries main and the "
    "housekeeper's routine",
    "[pc-metrics][live]") {
  workload_process w("pc_cpu");
  engine e;
  e.watch(w.pid);
  e.wait_for_resource("/Code/pc_cpu/tokenize");
  auto process = "<PROCESS PID='" + std::to_string(w.pid) + "'/>";
  std::string graph;
  // A few samples, so that the hot chain was seen more than once.
  REQUIRE(test::eventually([&] {
    graph = e.dm("CALLGRAPH", process);
    std::smatch m;
    return std::regex_search(graph, m, std::regex("STACKS='([0-9]+)'")) &&
           std::stoi(m[1].str()) >= 20;
  }));
  INFO(graph);
  CHECK_THAT(graph, Catch::Contains("<CALLGRAPH PID='" + std::to_string(w.pid) + "'"));
  for (auto [caller, callee] :
       {std::pair{"main", "run"}, std::pair{"run", "parse"}, std::pair{"parse", "tokenize"}})
    CHECK(std::regex_search(
        graph, std::regex(std::string("<EDGE CALLER='/Code/pc_cpu/") + caller +
                          "' CALLEE='/Code/pc_cpu/" + callee + "' SAMPLES='[1-9][0-9]*'/>")));
  CHECK_THAT(graph, Catch::Contains("<ENTRY NAME='/Code/pc_cpu/main'"));
  CHECK_THAT(graph, Catch::Contains("<ENTRY NAME='/Code/pc_cpu/idle_housekeeping'"));
  CHECK_THAT(graph, !Catch::Contains("CALLER='/Code/pc_cpu/tokenize' CALLEE='/Code/pc_cpu/parse'"));
  // Every watched process merged (here one), and the errors.
  CHECK_THAT(e.dm("CALLGRAPH"), Catch::Contains("CALLER='/Code/pc_cpu/parse'"));
  CHECK_THAT(e.dm("CALLGRAPH", "<PROCESS PID='999999999'/>"), Catch::Contains("UNKNOWN_TARGET"));
  CHECK_THAT(e.dm("CALLGRAPH", "<PROCESS PID='x'/>"), Catch::Contains("BAD_ARGUMENT"));
  CHECK_THAT(e.dm("CALLGRAPH", "<STACKS/>"), Catch::Contains("BAD_ARGUMENT"));
}
