// The Performance Consultant's rules on live programs with more than one thread of work
// (docs/PROTOCOL.md §12 "Idle, caused, contended"): `perfdm search --json -- PROGRAM`, each
// bounded to a few seconds. Each asserts the first finding, the code whose speed-up would
// shorten the run, and that no idle wait is a finding. Programs of our own (tests/pc_rules/:
// a parked pool, a pipeline whose consumer is slow, a mutex convoy) and programs nobody here
// wrote (zstd -T2, python's GIL, node, a Go program). The search preloads the I/O library
// into what it starts, so its /File nodes are decided on the library's exact counts.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <string>

#include "cli/report_json.hpp"
#include "native/pc_resources.hpp"
#include "proc/program_launcher.hpp"
#include "tests/io_test_support.hpp"
#include "tests/real_program_process.hpp"
#include "tests/skip_test.hpp"

using perfdm::report_json;

namespace {

struct search_result {
  std::string output;  // everything on standard output: the program's lines, then the JSON
  report_json json;
};

// `perfdm search --json --seconds S ARGS` (ARGS: `-- COMMAND`, a shell command line, or
// `--pid N`).
search_result search_with(const std::string& args, double seconds) {
  std::string line = std::string(PERFDM_BINARY) + " search --json --seconds " +
                     std::to_string(seconds) + " " + args + " 2>/dev/null";
  search_result r;
  r.output = real_program::output_of(line);
  // The report is the last line; the program's own output comes before it.
  auto start = r.output.rfind("\n{");
  start = start == std::string::npos ? r.output.find('{') : start + 1;
  INFO(r.output.substr(0, 3000));
  REQUIRE(start != std::string::npos);
  r.json = report_json::parse(r.output.substr(start), nullptr, false);
  REQUIRE_FALSE(r.json.is_discarded());
  return r;
}

search_result search(const std::string& command, double seconds) {
  return search_with("-- " + command, seconds);
}

std::string text_of(const report_json& finding) {
  return finding.value("text", std::string());
}

std::string findings_text(const report_json& json) {
  std::string out;
  for (auto& f : json["findings"]) out += text_of(f) + "\n";
  return out;
}

const report_json& first_finding(const search_result& r) {
  INFO(findings_text(r.json));
  REQUIRE_FALSE(r.json["findings"].empty());
  return r.json["findings"][0];
}

std::string code_of(const report_json& finding) {
  return finding["focus"]["code"].get<std::string>();
}

// No finding is a wait for work: a condition a pool waits on, an event loop's poll, a
// runtime's idle thread.
void check_no_idle_wait_finding(const report_json& json) {
  static const char* const idle[] = {"pthread_cond_wait",
                                     "pthread_cond_timedwait",
                                     "futex_abstimed_wait",
                                     "uv_cond_wait",
                                     "uv__io_poll",
                                     "uv_run",
                                     "epoll",
                                     "runtime.usleep",
                                     "runtime.futex",
                                     "runtime.notesleep",
                                     "runtime.stopm",
                                     "runtime.netpoll",
                                     "pool_worker"};
  for (auto& f : json["findings"]) {
    INFO(text_of(f));
    for (auto* name : idle) CHECK(code_of(f).find(name) == std::string::npos);
    // Every value is a share: never over 100 %.
    if (f["hypothesis"] != "TooManySmallIOOps") CHECK(f["value"].get<double>() <= 1.0 + 1e-9);
  }
}

bool any_finding(const report_json& json, const std::string& hypothesis) {
  for (auto& f : json["findings"])
    if (f["hypothesis"] == hypothesis) return true;
  return false;
}

std::string program(const char* name) {
  return std::string(PERFDM_PC_RULES_PROGRAMS) + "/" + name;
}

// `mpirun -np 3 mpi_imbalance ARGS` (tests/pc_rules/mpi_imbalance.c); nothing, the test
// skipped, where Debian's libopenmpi-dev was missing at build time or openmpi-bin is now.
std::optional<std::string> mpi_job_command(const std::string& args) {
#ifndef PERFDM_PC_RULES_MPI
  (void)args;
  skip_test("no MPI compiler at build time (Debian's libopenmpi-dev)");
  return std::nullopt;
#else
  if (perfdm::find_in_path("mpirun").empty()) {
    skip_test("no mpirun (Debian's openmpi-bin)");
    return std::nullopt;
  }
  // Open MPI refuses to run as root without its flag; --oversubscribe: 3 ranks on 2 cores.
  return std::string("mpirun --allow-run-as-root --oversubscribe -np 3 ") + PERFDM_PC_RULES_MPI +
         " " + args;
#endif
}

// `perfdm search` of that job; nothing when the test skipped.
std::optional<search_result> search_mpi_job(const std::string& args, double seconds) {
  auto command = mpi_job_command(args);
  if (!command) return std::nullopt;
  return search(*command, seconds);
}

}  // namespace

TEST_CASE("pc R1 live: a parked pool: the main thread's computation first, the pool idle",
          "[pc][pc-live][pc-rules]") {
  auto r = search(program("parked_pool") + " 30", 4);
  auto& first = first_finding(r);
  INFO(findings_text(r.json));
  CHECK(first["hypothesis"] == "CPUbound");
  CHECK(code_of(first).find("/compute_checksums") != std::string::npos);
  CHECK_FALSE(any_finding(r.json, "ExcessiveSyncWaitingTime"));
  check_no_idle_wait_finding(r.json);
  // The pool is said once, as idle threads.
  CHECK(r.json["idle_threads"].get<double>() > 3.5);
}

TEST_CASE("pc R4 R13 live: a pipeline's slow consumer first, the producer's wait blamed on it",
          "[pc][pc-live][pc-rules]") {
  auto r = search(program("slow_consumer") + " 30", 4);
  auto& first = first_finding(r);
  INFO(findings_text(r.json));
  CHECK(first["hypothesis"] == "CPUbound");
  CHECK(code_of(first).find("/render_item") != std::string::npos);
  // The producer's wait for queue space is no finding of its own (caused by the consumer's
  // work, or idle when the producer hardly runs on a loaded machine).
  CHECK_FALSE(any_finding(r.json, "ExcessiveSyncWaitingTime"));
  check_no_idle_wait_finding(r.json);
}

TEST_CASE("pc R15 live: a mutex convoy: the wait on its Mutex first, as a share",
          "[pc][pc-live][pc-rules]") {
  auto r = search(program("mutex_convoy") + " 30", 4);
  std::smatch m;
  REQUIRE(std::regex_search(r.output, m, std::regex("mutex_convoy: mutex (0x[0-9a-f]+)")));
  auto& first = first_finding(r);
  INFO(findings_text(r.json));
  CHECK(first["hypothesis"] == "ExcessiveSyncWaitingTime");
  CHECK(first["focus"]["syncobject"] == "/SyncObject/Mutex/" + m[1].str());
  check_no_idle_wait_finding(r.json);
}

TEST_CASE(
    "pc R1 R4 live, real programs: zstd -T2: the workers' compression first, the main "
    "thread's wait for them no finding",
    "[pc][pc-live][pc-rules][real-programs]") {
  real_program::temp_dir dir;
  {
    std::ofstream f(dir / "input.txt");
    std::mt19937 random(31);
    const char* words[] = {"idle", "busy", "blame", "wait", "pool", "thread", "rank", "spin"};
    for (int line = 0; line < 100000; ++line) {
      for (int w = 0; w < 10; ++w) f << words[random() % 8] << ' ' << random() % 10000 << ' ';
      f << '\n';
    }
  }
  // Jobs of 1 MiB, so that both workers have work; level 15 so that it lasts.
  auto r = search("zstd -T2 -B1MiB -15 -q -f " + dir / "input.txt" + " -o " + dir / "out.zst", 5);
  auto& first = first_finding(r);
  INFO(findings_text(r.json));
  // Compression in a worker (Debian's zstd holds libzstd, stripped: named by address).
  CHECK(first["hypothesis"] == "CPUbound");
  CHECK((code_of(first).find("/Code/zstd/") == 0 || code_of(first).find("/Code/libzstd") == 0));
  CHECK(first["tid"] != first["pid"]);
  for (auto& f : r.json["findings"]) {
    INFO(text_of(f));
    CHECK_FALSE((f["hypothesis"] == "ExcessiveSyncWaitingTime" &&
                 f["focus"]["syncobject"].get<std::string>().find("/SyncObject/CondVar") == 0));
  }
  check_no_idle_wait_finding(r.json);
}

TEST_CASE(
    "pc R15 live, real programs: python's four threads wait for the GIL, first and as a share",
    "[pc][pc-live][pc-rules][real-programs]") {
  auto r = search(
      "/usr/bin/python3 -c 'import threading\n"
      "def work():\n"
      "    while True:\n"
      "        sum(i * i for i in range(1000))\n"
      "for _ in range(4):\n"
      "    threading.Thread(target=work, daemon=True).start()\n"
      "threading.Event().wait(30)\n'",
      5);
  auto& first = first_finding(r);
  INFO(findings_text(r.json));
  CHECK(first["hypothesis"] == "ExcessiveSyncWaitingTime");
  CHECK(std::regex_match(first["focus"]["syncobject"].get<std::string>(),
                         std::regex("/SyncObject/CondVar/0x[0-9a-f]+")));
  CHECK(first["value"].get<double>() <= 1.0);
}

TEST_CASE(
    "pc R8 R12 live, real programs: node computing in JavaScript: neither libuv's idle "
    "pool nor its epoll loop is a finding",
    "[pc][pc-live][pc-rules][real-programs]") {
  INFO("scripts/setup.sh installs node");
  REQUIRE(access("/usr/bin/node", X_OK) == 0);
  // Searched once it runs its JavaScript: node's own start-up (reading and compiling its
  // modules) takes a good part of a few seconds on a loaded machine, and is no part of what
  // the search is asked to name.
  real_program::temp_dir dir;
  const auto out = dir / "out";
  real_program::process node(
      {"/usr/bin/node", "-e",
       "function spin(n) { let s = 0; for (let i = 0; i < n; ++i) s += Math.sqrt(i); return s; }"
       " spin(1e6); console.log('running'); const end = Date.now() + 30000;"
       " while (Date.now() < end) spin(1e6);"},
      "", out);
  REQUIRE(real_program::wait_for_text(out, "running\n"));
  // A deep call path from node::Start to the JavaScript: more levels.
  auto r = search_with("--pid " + std::to_string(node.pid), 8);
  auto& first = first_finding(r);
  INFO(findings_text(r.json));
  CHECK(first["hypothesis"] == "CPUbound");
  CHECK_FALSE(any_finding(r.json, "ExcessiveSyncWaitingTime"));
  CHECK_FALSE(any_finding(r.json, "ExcessiveIOBlockingTime"));
  check_no_idle_wait_finding(r.json);
}

TEST_CASE(
    "pc R12 live, real programs: a Go program hashing in one goroutine: the runtime's idle "
    "threads are no finding",
    "[pc][pc-live][pc-rules][real-programs]") {
#ifndef PERFDM_PC_RULES_GO_HASH
  FAIL("no Go compiler at build time: scripts/setup.sh installs golang-go");
#else
  auto r = search(std::string(PERFDM_PC_RULES_GO_HASH) + " 30", 4);
  auto& first = first_finding(r);
  INFO(findings_text(r.json));
  CHECK(first["hypothesis"] == "CPUbound");
  CHECK(code_of(first).find("sha256") != std::string::npos);
  CHECK_FALSE(any_finding(r.json, "ExcessiveSyncWaitingTime"));
  check_no_idle_wait_finding(r.json);
#endif
}

TEST_CASE(
    "pc R5 R6 R7 live: an Open MPI job with one slow rank: its function first, the launcher "
    "never searched",
    "[pc][pc-live][pc-rules][mpi]") {
  auto job = search_mpi_job("60", 8);
  if (!job) return;
  auto& r = *job;
  auto& first = first_finding(r);
  INFO(findings_text(r.json));
  // The slow rank's function, with the waits it causes at MPI_Allreduce.
  CHECK(first["hypothesis"] == "CPUbound");
  CHECK(code_of(first).find("/relax_cells") != std::string::npos);
  CHECK(first["focus"]["machine"].get<std::string>().find(".rank2{") != std::string::npos);
  CHECK(text_of(first).rfind("rank 2's relax_cells", 0) == 0);
  bool blamed_wait = false;  // the others' waits at the call, under it
  for (auto& f : r.json["findings"])
    blamed_wait = blamed_wait ||
                  (f["focus"]["syncobject"] == "/SyncObject/Message/MPI_Allreduce" &&
                   text_of(f).find("caused by rank 2's relax_cells") != std::string::npos);
  CHECK(blamed_wait);
  // The ranks are searched, by rank, and the launcher is not.
  std::string names;
  for (auto& p : r.json["processes"]) names += p.value("name", std::string()) + " ";
  INFO("processes searched: " << names);
  CHECK(r.json["processes"].size() == 3);
  for (auto* rank : {"mpi_imbalance.rank0", "mpi_imbalance.rank1", "mpi_imbalance.rank2"})
    CHECK(names.find(rank) != std::string::npos);
  CHECK(names.find("orterun") == std::string::npos);
  CHECK(names.find("mpirun") == std::string::npos);
  for (auto& f : r.json["findings"]) {
    INFO(text_of(f));
    auto machine = f["focus"]["machine"].get<std::string>();
    CHECK(machine.find("orterun") == std::string::npos);
    CHECK(machine.find("mpirun") == std::string::npos);
    // The waiting ranks' polling is waiting at the call, never their CPU (a fast rank's own
    // share of relax_cells may pass CPUbound's threshold on a loaded machine).
    if (f["hypothesis"] == "CPUbound")
      for (auto* mpi : {"sched_yield", "opal_progress", "mca_pml", "ompi_", "MPI_"})
        CHECK(code_of(f).find(mpi) == std::string::npos);
  }
  check_no_idle_wait_finding(r.json);
}

// Faults of a job: ranks that finish at different times, and a rank that dies.
TEST_CASE(
    "pc R6 live: an Open MPI job whose ranks finish at different times: the last rank's work "
    "first, the others' wait at MPI_Finalize blamed on it",
    "[pc][pc-live][pc-rules][mpi]") {
  // Rank r computes for (r + 1) / 3 of 9 s, then waits in MPI_Finalize for the others.
  auto job = search_mpi_job("9 staggered", 20);
  if (!job) return;
  auto& r = *job;
  INFO(findings_text(r.json));
  // The job ran to its end, every rank's line printed: the search ended with it.
  CHECK(r.json["program"]["ended_by"] == "exit");
  CHECK(r.json["program"]["exit_code"] == 0);
  for (auto* line : {"rank 0 done", "rank 1 done", "rank 2 done"})
    CHECK(r.output.find(line) != std::string::npos);
  CHECK(r.json["seconds"].get<double>() < 19);
  auto& first = first_finding(r);
  CHECK(code_of(first).find("/relax_cells") != std::string::npos);
  // Ranks 0 and 1 polling in MPI_Finalize are waiting, never their CPU.
  bool finalize_wait = false;
  for (auto& f : r.json["findings"]) {
    INFO(text_of(f));
    finalize_wait = finalize_wait || f["focus"]["syncobject"] == "/SyncObject/Message/MPI_Finalize";
    if (f["hypothesis"] == "CPUbound")
      for (auto* mpi : {"sched_yield", "ompi_", "MPI_"})
        CHECK(code_of(f).find(mpi) == std::string::npos);
  }
  CHECK(finalize_wait);
  check_no_idle_wait_finding(r.json);
}

TEST_CASE(
    "pc R6 live: an Open MPI job with a rank that dies: the search ends with the job and keeps "
    "what it found",
    "[pc][pc-live][pc-rules][mpi]") {
  // Rank 1 kills itself (SIGKILL) after 4 s; Open MPI then ends the job.
  auto job = search_mpi_job("12 die", 20);
  if (!job) return;
  auto& r = *job;
  INFO(findings_text(r.json));
  // The job's end is the search's: mpirun's failure status, long before --seconds.
  CHECK(r.json["program"]["ended_by"] == "exit");
  CHECK(r.json["program"]["exit_code"].get<int>() != 0);
  CHECK(r.json["seconds"].get<double>() < 15);
  CHECK(r.json["processes"].size() == 3);
  // What was found before the rank died is kept: the late rank's function first.
  auto& first = first_finding(r);
  CHECK(code_of(first).find("/relax_cells") != std::string::npos);
  check_no_idle_wait_finding(r.json);
}

TEST_CASE("pc R7 live: a job script that runs mpirun is no process of the job: its ranks fold",
          "[pc][pc-live][pc-rules][mpi]") {
  auto job = mpi_job_command("60");
  if (!job) return;
  auto r = search("sh -c '" + *job + "; echo job done'", 8);
  INFO(findings_text(r.json));
  std::string names;
  for (auto& p : r.json["processes"]) names += p.value("name", std::string()) + " ";
  INFO("processes searched: " << names);
  CHECK(r.json["processes"].size() == 3);
  CHECK(names.find("mpi_imbalance.rank2") != std::string::npos);
  CHECK(names.find("sh ") == std::string::npos);
  // Every process searched is a rank, so waits of two ranks fold as ranks, never "of 4".
  std::set<int> waiting_ranks;
  for (auto& f : r.json["findings"])
    if (f["focus"]["syncobject"] == "/SyncObject/Message/MPI_Allreduce" && f["pid"].is_number())
      waiting_ranks.insert(f["pid"].get<int>());
  bool folded_by_rank = false;
  for (auto& f : r.json["folded"]) {
    CHECK(text_of(f).find(" of 4") == std::string::npos);
    folded_by_rank = folded_by_rank || text_of(f).find("in 2 of 3 ranks") != std::string::npos;
  }
  if (waiting_ranks.size() >= 2) CHECK(folded_by_rank);
  CHECK(code_of(first_finding(r)).find("/relax_cells") != std::string::npos);
}

TEST_CASE("pc R7 live: perfdm top of an Open MPI job watches its ranks, never the launcher",
          "[pc][pc-live][pc-rules][mpi]") {
  auto job = mpi_job_command("60");
  if (!job) return;
  std::string output = real_program::output_of(std::string(PERFDM_BINARY) +
                                               " top --seconds 8 -- " + *job + " 2>/dev/null");
  // The findings stay on standard output after the screen: "1. CPUbound … rank 2, …".
  std::string findings;
  std::regex finding_line(R"(^[0-9]+\. .*)");
  std::size_t start = 0;
  while (start < output.size()) {
    auto end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    auto l = output.substr(start, end - start);
    if (std::regex_match(l, finding_line)) findings += l + "\n";
    start = end + 1;
  }
  INFO(findings);
  CHECK(findings.find("relax_cells") != std::string::npos);
  CHECK(findings.find("rank 2") != std::string::npos);
  CHECK(findings.find("mpirun") == std::string::npos);
  CHECK(findings.find("orterun") == std::string::npos);
}

TEST_CASE("pc live: with the I/O library, a log written in 16-byte records is TooManySmallIOOps "
          "at its /File at exactly 16 bytes per operation",
          "[pc][pc-live][pc-library]") {
  // pc_tiny_writes writes its log in 16-byte records and reads 1 MiB from /dev/zero per 4096
  // of them: its thread's /proc counts average about 270 bytes per operation; the library's
  // counts of the log alone, 16.
  io_test::scratch_dir dir("pc_library_live");
  const std::string log = dir / "ring.log";
  auto r = search(std::string(PERFDM_PC_WORKLOADS) + "/pc_tiny_writes 20 " + log, 8);
  const std::string file = perfdm::native::file_resource(log);
  auto node_at = [&](const std::string& hypothesis, const std::string& at) -> const report_json* {
    for (auto& n : r.json["nodes"])
      if (n["hypothesis"] == hypothesis && n["focus"]["file"] == at &&
          n["focus"]["code"] == "/Code" && n["focus"]["machine"] == "/Machine")
        return &n;
    return nullptr;
  };
  INFO(r.json["nodes"].dump().substr(0, 4000));
  auto* small = node_at("TooManySmallIOOps", file);
  auto* blocking = node_at("ExcessiveIOBlockingTime", file);
  REQUIRE(small != nullptr);
  REQUIRE(blocking != nullptr);
  CHECK((*blocking)["state"] == "true");
  CHECK((*small)["state"] == "true");
  CHECK((*small)["value"].get<double>() == 16);
  // The 1 MiB reads are no small operations: /dev/zero is nothing the library counts, and no
  // node there is true.
  for (auto* at : {node_at("TooManySmallIOOps", "/File/dev/zero"),
                   node_at("ExcessiveIOBlockingTime", "/File/dev/zero")})
    if (at != nullptr) CHECK((*at)["state"] != "true");
  CHECK(findings_text(r.json).find("/dev/zero") == std::string::npos);
  CHECK(findings_text(r.json).find(log) != std::string::npos);
}
