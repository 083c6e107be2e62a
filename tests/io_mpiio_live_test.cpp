// perfdm's I/O library in a real MPI job: `perfdm io -- mpirun -np 4 mpiio_calls DIR`
// (tests/io/mpiio_calls.c) under Debian's Open MPI, with Darshan's MPIIO counters exact for
// each rank's own file and for the shared file reduced to rank -1 (IO-FACTS §2.2, §3.9).
#include <catch2/catch.hpp>
#include <string>

#include "darshan/darshan_counters.hpp"
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

perfdm::io::io_log_contents mpi_job(const scratch_dir& d, run_result& r) {
  const std::string log = d / "run.log";
  r = run({PERFDM_BINARY, "io", "-q", "-o", log, "--", perfdm::find_in_path("mpirun"),
           "--allow-run-as-root", "--oversubscribe", "-np", "4", PERFDM_IO_MPIIO, d.path},
          {"OMPI_MCA_rmaps_base_oversubscribe=1"}, 120);
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
  // mpirun is no rank: it is the first process, numbered after the 4 ranks.
  CHECK(log.metadata("process").find("MPI rank") == std::string::npos);
  CHECK(log.metadata("process").rfind("4 ", 0) == 0);
  bool ranks_named = false;
  for (const auto& [k, v] : log.job.metadata)
    if (k == "process" && v.find("(MPI rank 3)") != std::string::npos) ranks_named = true;
  CHECK(ranks_named);
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
