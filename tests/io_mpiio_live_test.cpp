// perfdm's I/O library in a real MPI job: `perfdm io -- mpirun -np 4 mpiio_calls DIR`
// (tests/io/mpiio_calls.c) under Debian's Open MPI, with Darshan's MPIIO counters exact for
// each rank's own file and for the shared file reduced to rank -1 (IO-FACTS §2.2, §3.9).
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "darshan/darshan_counters.hpp"
#include "iojob/io_summary.hpp"
#include "proc/program_launcher.hpp"
#include "tests/io_test_support.hpp"
#include "tests/skip_test.hpp"

using namespace perfdm;
using namespace perfdm::darshan;
using namespace io_test;

#ifdef PERFDM_IO_MPIIO

namespace {

// Open MPI's amode bits (mpi.h: MPI_MODE_CREATE, MPI_MODE_WRONLY, MPI_MODE_RDWR), which
// MPIIO_MODE records as the program passed them.
constexpr std::int64_t mode_create = 1, mode_wronly = 4, mode_rdwr = 8;

// `perfdm io [summary options] -o DIR/run.log -- mpirun -np 4 mpiio_calls DIR`.
perfdm::io::io_log_contents mpi_job(const scratch_dir& d, run_result& r,
                                    std::vector<std::string> summary = {"-q"}) {
  const std::string log = d / "run.log";
  std::vector<std::string> argv{PERFDM_BINARY, "io"};
  argv.insert(argv.end(), summary.begin(), summary.end());
  for (const std::string& a :
       {std::string("-o"), log, std::string("--"), perfdm::find_in_path("mpirun"),
        std::string("--allow-run-as-root"), std::string("--oversubscribe"), std::string("-np"),
        std::string("4"), std::string(PERFDM_IO_MPIIO), d.path})
    argv.push_back(a);
  r = run(argv, {"OMPI_MCA_rmaps_base_oversubscribe=1"}, 120);
  INFO("perfdm io -- mpirun: " << r.err);
  REQUIRE(r.exit_code() == 0);
  return perfdm::io::read_io_log(log);
}

}  // namespace

TEST_CASE("IO-FACTS 2.2: perfdm io counts an MPI-IO job's calls as Darshan's MPIIO module",
          "[io][mpi]") {
  if (perfdm::find_in_path("mpirun").empty()) return skip_test("no mpirun (Debian's openmpi-bin)");
  scratch_dir d("mpiio");
  run_result r;
  const auto log = mpi_job(d, r);

  // Each rank's own file: one record of that rank, opened on MPI_COMM_SELF.
  for (int rank = 0; rank < 4; ++rank) {
    const std::string name = d / ("rank-" + std::to_string(rank) + ".dat");
    const auto rs = records_of(log, log.mpiio, name);
    INFO(name);
    REQUIRE(rs.size() == 1);
    const auto& f = rs[0];
    CHECK(f.id == record_id(name));
    CHECK(f.rank == rank);
    CHECK(f.counters[MPIIO_INDEP_OPENS] == 1);
    CHECK(f.counters[MPIIO_COLL_OPENS] == 0);
    CHECK(f.counters[MPIIO_INDEP_WRITES] == 3);
    CHECK(f.counters[MPIIO_NB_WRITES] == 1);
    CHECK(f.counters[MPIIO_COLL_WRITES] == 0);
    CHECK(f.counters[MPIIO_BYTES_WRITTEN] == 3 * 80 + 8);
    CHECK(f.counters[MPIIO_BYTES_READ] == 0);
    CHECK(f.counters[MPIIO_MODE] == (mode_create | mode_wronly));
    CHECK(f.counters[MPIIO_SIZE_WRITE_AGG_0_100] == 4);
    CHECK(f.counters[MPIIO_ACCESS1_ACCESS] == 80);
    CHECK(f.counters[MPIIO_ACCESS1_COUNT] == 3);
    CHECK(f.counters[MPIIO_ACCESS2_ACCESS] == 8);
    CHECK(f.counters[MPIIO_ACCESS2_COUNT] == 1);
    CHECK(f.fcounters[MPIIO_F_WRITE_TIME] > 0);
    CHECK(f.fcounters[MPIIO_F_CLOSE_END_TIMESTAMP] >= f.fcounters[MPIIO_F_OPEN_START_TIMESTAMP]);
  }

  // The shared file: every rank opened it, so one record of rank -1, Darshan's reduction.
  const std::string shared = d / "shared.dat";
  const auto rs = records_of(log, log.mpiio, shared);
  REQUIRE(rs.size() == 1);
  const auto& s = rs[0];
  CHECK(s.rank == -1);
  CHECK(s.counters[MPIIO_COLL_OPENS] == 4);
  CHECK(s.counters[MPIIO_INDEP_OPENS] == 0);
  CHECK(s.counters[MPIIO_INDEP_WRITES] == 4);
  CHECK(s.counters[MPIIO_COLL_WRITES] == 4);
  CHECK(s.counters[MPIIO_SPLIT_WRITES] == 4);
  CHECK(s.counters[MPIIO_COLL_READS] == 4);
  CHECK(s.counters[MPIIO_INDEP_READS] == 4);
  CHECK(s.counters[MPIIO_NB_READS] == 0);
  CHECK(s.counters[MPIIO_SYNCS] == 4);
  CHECK(s.counters[MPIIO_VIEWS] == 4);
  CHECK(s.counters[MPIIO_HINTS] == 4);  // the view's info, not the open's MPI_INFO_NULL
  CHECK(s.counters[MPIIO_MODE] == (mode_create | mode_rdwr));
  CHECK(s.counters[MPIIO_BYTES_WRITTEN] == 4 * (4096 + 4096 + 64));
  CHECK(s.counters[MPIIO_BYTES_READ] == 4 * (4096 + 100));
  CHECK(s.counters[MPIIO_RW_SWITCHES] == 4);
  CHECK(s.counters[MPIIO_SIZE_WRITE_AGG_1K_10K] == 8);
  CHECK(s.counters[MPIIO_SIZE_WRITE_AGG_0_100] == 4);
  CHECK(s.counters[MPIIO_SIZE_READ_AGG_1K_10K] == 4);
  CHECK(s.counters[MPIIO_SIZE_READ_AGG_0_100] == 4);
  CHECK(s.counters[MPIIO_ACCESS1_ACCESS] == 4096);
  CHECK(s.counters[MPIIO_ACCESS1_COUNT] == 12);
  CHECK(s.counters[MPIIO_ACCESS2_ACCESS] == 100);
  CHECK(s.counters[MPIIO_ACCESS2_COUNT] == 4);
  CHECK(s.counters[MPIIO_ACCESS3_ACCESS] == 64);
  CHECK(s.counters[MPIIO_ACCESS3_COUNT] == 4);
  CHECK(s.counters[MPIIO_FASTEST_RANK] >= 0);
  CHECK(s.counters[MPIIO_SLOWEST_RANK] < 4);
  CHECK(s.counters[MPIIO_FASTEST_RANK_BYTES] == 4096 + 4096 + 64 + 4096 + 100);
  CHECK(s.fcounters[MPIIO_F_SLOWEST_RANK_TIME] >= s.fcounters[MPIIO_F_FASTEST_RANK_TIME]);
  CHECK(s.fcounters[MPIIO_F_VARIANCE_RANK_BYTES] == 0);  // every rank moved the same bytes
  CHECK(s.fcounters[MPIIO_F_READ_TIME] > 0);
  CHECK(s.fcounters[MPIIO_F_META_TIME] > 0);

  // The POSIX calls Open MPI makes beneath are counted too, the shared file's reduced as well.
  const auto posix = records_of(log, log.posix, shared);
  REQUIRE(posix.size() == 1);
  CHECK(posix[0].rank == -1);
  CHECK(posix[0].counters[POSIX_OPENS] >= 4);
  CHECK(posix[0].counters[POSIX_BYTES_WRITTEN] > 0);
}

TEST_CASE("io, MPI-IO: nprocs is the number of ranks, and mpirun and its helpers are none of them", "[io][mpi]") {
  if (perfdm::find_in_path("mpirun").empty()) return skip_test("no mpirun (Debian's openmpi-bin)");
  scratch_dir d("mpiio_ranks");
  run_result r;
  const auto log = mpi_job(d, r);
  CHECK(log.metadata("nprocs") == "4");  // Darshan's: MPI_COMM_WORLD's size
  CHECK(log.job.pids.size() == 4);
  std::set<std::string> ranks_named;
  std::size_t process_lines = 0, launcher_lines = 0;
  for (const auto& [k, v] : log.job.metadata) {
    if (k == "process") {
      ++process_lines;
      const auto at = v.find("(MPI rank ");
      REQUIRE(at != std::string::npos);
      CHECK(v.substr(0, 2) == v.substr(at + 10, 1) + " ");  // numbered by its MPI rank
      ranks_named.insert(v.substr(at + 10, 1));
    }
    // "PID FILES BYTES_READ BYTES_WRITTEN EXE": mpirun (Debian's is orterun) and its forks.
    if (k == "outside_ranks" && v.find("/orterun") != std::string::npos) ++launcher_lines;
  }
  CHECK(process_lines == 4);
  CHECK(ranks_named == std::set<std::string>{"0", "1", "2", "3"});
  CHECK(launcher_lines >= 1);
  // No record of any module has a rank past the world's: mpirun's records are left out.
  std::set<std::int64_t> ranks;
  for (const auto& x : log.posix) ranks.insert(x.rank);
  for (const auto& x : log.stdio) ranks.insert(x.rank);
  for (const auto& x : log.mpiio) ranks.insert(x.rank);
  CHECK(ranks.count(-1) == 1);
  CHECK(ranks.count(3) == 1);
  CHECK(*ranks.rbegin() == 3);
  // The shared files are reduced over the 4 ranks alone (mpirun never opened shared.dat, so
  // the reduction never depended on it; Open MPI's session files it shares with the ranks
  // are now rank -1 too).
  CHECK(records_of(log, log.posix, d / "shared.dat").at(0).rank == -1);
}

#ifdef PERFDM_PC_RULES_MPI
TEST_CASE("io, MPI: ranks that never call MPI-IO are ranks all the same (MPI_Init)", "[io][mpi]") {
  if (perfdm::find_in_path("mpirun").empty()) return skip_test("no mpirun (Debian's openmpi-bin)");
  scratch_dir d("mpi_init_ranks");
  const std::string log_path = d / "run.log";
  const auto r = run({PERFDM_BINARY, "io", "-q", "-o", log_path, "--",
                      perfdm::find_in_path("mpirun"), "--allow-run-as-root", "--oversubscribe",
                      "-np", "3", PERFDM_PC_RULES_MPI, "0.2"},
                     {"OMPI_MCA_rmaps_base_oversubscribe=1"}, 120);
  INFO(r.err);
  REQUIRE(r.exit_code() == 0);
  const auto log = perfdm::io::read_io_log(log_path);
  CHECK(log.mpiio.empty());
  CHECK(log.metadata("nprocs") == "3");
  std::size_t process_lines = 0, outside = 0;
  for (const auto& [k, v] : log.job.metadata) {
    if (k == "process" && v.find("(MPI rank ") != std::string::npos) ++process_lines;
    if (k == "outside_ranks") ++outside;
  }
  CHECK(process_lines == 3);
  CHECK(outside >= 1);  // mpirun
}
#endif

TEST_CASE("io, MPI-IO: the summary says the job's MPI-IO and each top file's, as the log counts",
          "[io][mpi]") {
  if (perfdm::find_in_path("mpirun").empty()) return skip_test("no mpirun (Debian's openmpi-bin)");
  scratch_dir d("mpiio_summary");
  run_result r;
  const std::string json_path = d / "summary.json";
  const auto log = mpi_job(d, r, {"--json", "--summary", json_path, "--top", "5"});
  std::ifstream in(json_path);
  const auto j = nlohmann::json::parse(in);

  // The expected figures, summed from the log's MPIIO records.
  std::int64_t read = 0, written = 0, counters[MPIIO_NUM_INDICES] = {};
  for (const auto& x : log.mpiio) {
    for (int i = 0; i < MPIIO_NUM_INDICES; ++i) counters[i] += x.counters[i];
  }
  read = counters[MPIIO_BYTES_READ];
  written = counters[MPIIO_BYTES_WRITTEN];
  CHECK(written == 4 * (4096 + 4096 + 64) + 4 * (3 * 80 + 8));
  CHECK(read == 4 * (4096 + 100));

  CHECK(j["mpi"] == true);
  CHECK(j["processes"] == 4);
  const auto& m = j["mpiio"];
  REQUIRE(m.is_object());
  CHECK(m["ranks"] == 4);
  CHECK(m["files"] == 5);
  CHECK(m["bytes_written"] == written);
  CHECK(m["bytes_read"] == read);
  CHECK(m["writes"]["collective"] == counters[MPIIO_COLL_WRITES]);
  CHECK(m["writes"]["split"] == counters[MPIIO_SPLIT_WRITES]);
  CHECK(m["writes"]["independent"] == counters[MPIIO_INDEP_WRITES]);
  CHECK(m["writes"]["nonblocking"] == counters[MPIIO_NB_WRITES]);
  CHECK(m["reads"]["collective"] == counters[MPIIO_COLL_READS]);
  CHECK(m["reads"]["independent"] == counters[MPIIO_INDEP_READS]);
  CHECK(m["opens"]["collective"] == counters[MPIIO_COLL_OPENS]);
  CHECK(m["opens"]["independent"] == counters[MPIIO_INDEP_OPENS]);
  CHECK(m["writes"]["independent"] == 4 + 4 * 3);  // one per rank on shared.dat, 3 on its own
  CHECK(m["write_seconds"].get<double>() > 0);
  CHECK(j["outside_ranks"]["processes"].get<int>() >= 1);
  CHECK(j["outside_ranks"]["programs"].get<std::string>().find("orterun") != std::string::npos);

  // The shared file, first by I/O time, with its MPI-IO view: 12 of its 20 accesses collective.
  const std::string shared = d / "shared.dat";
  const auto s = records_of(log, log.mpiio, shared).at(0);
  nlohmann::json file;
  for (const auto& f : j["top"])
    if (f["name"] == shared) file = f;
  REQUIRE(file.is_object());
  CHECK(file["shared"] == true);
  CHECK(file["mpiio"]["ranks"] == 4);
  CHECK(file["mpiio"]["bytes_written"] == s.counters[MPIIO_BYTES_WRITTEN]);
  CHECK(file["mpiio"]["collective_share"].get<double>() == Approx(12.0 / 20));
  CHECK(file["mpiio"]["pattern"] ==
        "MPI-IO by 4 ranks, 60 % collective: 4 collective, 4 split collective, 4 independent "
        "writes; 4 collective, 4 independent reads; mostly 4 KiB accesses");
  // A rank's own file: independent only, one rank.
  nlohmann::json own;
  for (const auto& f : j["top"])
    if (f["name"] == d / "rank-2.dat") own = f;
  REQUIRE(own.is_object());
  CHECK(own["mpiio"]["ranks"] == 1);
  CHECK(own["mpiio"]["collective_share"] == 0.0);
  CHECK(own["mpiio"]["writes"]["nonblocking"] == 1);

  // The text the run prints, from the same log: one line first, then MPI-IO in words.
  const std::string text = perfdm::io::summary_text(perfdm::io::summarize(log, 5));
  INFO(text);
  CHECK(text.rfind("4 MPI ranks, ", 0) == 0);
  CHECK(text.find("MPI-IO: " + perfdm::io::size_in_words(written) + " written, " +
                  perfdm::io::size_in_words(read) +
                  " read by 4 ranks in 5 files: 4 collective, 4 split collective, 16 "
                  "independent, 4 non-blocking writes; 4 collective, 4 independent reads\n") !=
        std::string::npos);
  CHECK(text.find(shared + " (every rank)") != std::string::npos);
  CHECK(text.find("(every process)") == std::string::npos);
  CHECK(text.find("not ranks, left out of the records: ") != std::string::npos);
  CHECK(std::count(text.begin(), text.end(), '\n') <= 24);  // one screen
}

TEST_CASE("IO-FACTS 4: --trace keeps every MPI-IO read and write of each rank (DXT_MPIIO)",
          "[io][mpi]") {
  if (perfdm::find_in_path("mpirun").empty()) return skip_test("no mpirun (Debian's openmpi-bin)");
  scratch_dir d("mpiio_trace");
  run_result r;
  const auto log = mpi_job(d, r, {"-q", "--trace"});
  INFO(r.err);
  CHECK_FALSE(log.trace_partial);
  const std::uint64_t shared = record_id(d / "shared.dat");
  std::size_t shared_traces = 0, own_traces = 0;
  for (const auto& t : log.mpiio_traces) {
    INFO(log.name(t.id) << " rank " << t.rank);
    CHECK(t.rank >= 0);  // traces are never reduced: one per file and rank
    CHECK(t.rank < 4);
    std::vector<std::int64_t> writes, reads;
    for (const auto& s : t.writes) {
      writes.push_back(s.length);
      CHECK(s.offset == -1);  // Darshan's under Open MPI (no MPI_File_get_byte_offset)
      CHECK(s.end >= s.start);
      CHECK(s.start > 0);
    }
    for (const auto& s : t.reads) reads.push_back(s.length);
    if (t.id == shared) {
      ++shared_traces;
      // write_at, write_at_all, write_all_begin; read_at_all, read: in call order.
      CHECK(writes == std::vector<std::int64_t>{4096, 4096, 64});
      CHECK(reads == std::vector<std::int64_t>{4096, 100});
    } else if (t.id == record_id(d / ("rank-" + std::to_string(t.rank) + ".dat"))) {
      ++own_traces;
      CHECK(writes == std::vector<std::int64_t>{80, 80, 80, 8});  // 3 writes, 1 iwrite
      CHECK(reads.empty());
    }
  }
  CHECK(shared_traces == 4);
  CHECK(own_traces == 4);
  CHECK(log.mpiio_traces.size() == 8);
  CHECK_FALSE(log.traces.empty());  // the POSIX calls beneath, in DXT_POSIX
  // perfdm log prints it as it prints DXT_POSIX.
  const auto out = run({PERFDM_BINARY, "log", d / "run.log"});
  INFO(out.err);
  REQUIRE(out.exit_code() == 0);
  CHECK(out.out.find("dxt_mpiio\t" + std::to_string(shared) + "\twrite_2\toffset -1 length 64 ") !=
        std::string::npos);
  CHECK(out.out.find("dxt_mpiio\t" + std::to_string(shared) + "\tread_2\t") ==
        std::string::npos);  // two reads per rank, no third
}

TEST_CASE("io, MPI-IO: perfdm log --module mpiio prints darshan-parser's layout of the records",
          "[io][mpi]") {
  if (perfdm::find_in_path("mpirun").empty()) return skip_test("no mpirun (Debian's openmpi-bin)");
  scratch_dir d("mpiio_log");
  run_result r;
  mpi_job(d, r);
  const auto out = run({PERFDM_BINARY, "log", d / "run.log", "--module", "mpiio"});
  INFO(out.err);
  REQUIRE(out.exit_code() == 0);
  const std::string row = "MPI-IO\t-1\t" + std::to_string(record_id(d / "shared.dat")) +
                          "\tMPIIO_COLL_OPENS\t4\t" + (d / "shared.dat");
  CHECK(out.out.find(row) != std::string::npos);
  CHECK(out.out.find("\tPOSIX_OPENS\t") == std::string::npos);  // only the module asked for
  CHECK(out.out.find("MPI-IO\t2\t") != std::string::npos);      // rank 2's own file
}

#else

TEST_CASE("IO-FACTS 2.2: perfdm io counts an MPI-IO job's calls as Darshan's MPIIO module",
          "[io][mpi]") {
  skip_test("built without MPI (libopenmpi-dev): no MPI-IO test program");
}

#endif
