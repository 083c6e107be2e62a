// The time base of perfdm io's log: an MPI rank's timestamps count from its MPI_Init, as
// Darshan's MPI build counts them (darshan-core.c starts its clock as MPI_Init returns), and
// the log spans the ranks' MPI_Init to MPI_Finalize; a job without MPI counts from its first
// process's start. A rank here writes a file, then sleeps 3 s, before MPI_Init
// (tests/io/mpiio_calls.c DIR SECONDS): that file is counted, at the earliest timestamp.
// Open MPI's MPI_Init does not wait for the other ranks, so a rank that started late (a loaded
// machine) makes the others wait in their first collective: the per-rank bounds leave room
// for that, the shared file's open start (each rank's first call after MPI_Init) does not.
#include <time.h>

#include <catch2/catch.hpp>
#include <string>

#include "darshan/darshan_counters.hpp"
#include "iojob/darshan_records.hpp"
#include "proc/program_launcher.hpp"
#include "tests/io_test_support.hpp"
#include "tests/skip_test.hpp"

using namespace perfdm;
using namespace perfdm::darshan;
using namespace io_test;

namespace {

std::int64_t now_ns() {
  timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return std::int64_t(t.tv_sec) * 1000000000 + t.tv_nsec;
}

}  // namespace

#ifdef PERFDM_IO_MPIIO
TEST_CASE("io, MPI: a rank's timestamps count from its MPI_Init, not from before it",
          "[io][mpi]") {
  if (perfdm::find_in_path("mpirun").empty()) return skip_test("no mpirun (Debian's openmpi-bin)");
  scratch_dir d("mpi_time");
  const std::string log_path = d / "run.log";
  constexpr double sleep_seconds = 3;
  constexpr double late = sleep_seconds - 0.5;  // every timestamp after MPI_Init is below
  const std::int64_t before = now_ns();
  const auto r = run({PERFDM_BINARY, "io", "-q", "--trace", "-o", log_path, "--",
                      perfdm::find_in_path("mpirun"), "--allow-run-as-root", "--oversubscribe",
                      "-np", "2", PERFDM_IO_MPIIO, d.path, "3"},
                     {"OMPI_MCA_rmaps_base_oversubscribe=1"}, 120);
  const std::int64_t after = now_ns();
  INFO(r.err);
  REQUIRE(r.exit_code() == 0);
  const auto log = perfdm::io::read_io_log(log_path);

  // The header spans the ranks' MPI_Init to MPI_Finalize: it starts after the sleep.
  CHECK(log.job.start_ns >= before + std::int64_t(sleep_seconds * 1e9));
  CHECK(log.job.end_ns > log.job.start_ns);
  CHECK(log.job.end_ns <= after);

  // Each rank opens the shared file first thing after MPI_Init: the earliest open starts
  // within a fraction of a second of time 0.
  const auto shared = records_of(log, log.mpiio, d / "shared.dat");
  REQUIRE(shared.size() == 1);
  CHECK(shared[0].fcounters[MPIIO_F_OPEN_START_TIMESTAMP] > 0);
  CHECK(shared[0].fcounters[MPIIO_F_OPEN_START_TIMESTAMP] < 0.5);

  for (int rank = 0; rank < 2; ++rank) {
    INFO("rank " << rank);
    // The first MPI-IO and POSIX opens after MPI_Init are near 0, not near the sleep.
    const std::string own = d / ("rank-" + std::to_string(rank) + ".dat");
    const auto m = records_of(log, log.mpiio, own);
    REQUIRE(m.size() == 1);
    CHECK(m[0].rank == rank);
    CHECK(m[0].fcounters[MPIIO_F_OPEN_START_TIMESTAMP] > 0);
    CHECK(m[0].fcounters[MPIIO_F_OPEN_START_TIMESTAMP] < late);
    const auto p = posix_of(log, own);
    CHECK(p.fcounters[POSIX_F_OPEN_START_TIMESTAMP] > 0);
    CHECK(p.fcounters[POSIX_F_OPEN_START_TIMESTAMP] < late);
    CHECK(p.fcounters[POSIX_F_WRITE_END_TIMESTAMP] >= p.fcounters[POSIX_F_OPEN_START_TIMESTAMP]);

    // The I/O before MPI_Init, which Darshan never sees, is counted, at the earliest timestamp
    // the log holds (Darshan's format has no negative times; 0 would read as "never").
    const auto early = posix_of(log, d / ("early-" + std::to_string(rank) + ".dat"));
    CHECK(early.rank == rank);
    CHECK(early.counters[POSIX_BYTES_WRITTEN] == 100);
    CHECK(early.fcounters[POSIX_F_OPEN_START_TIMESTAMP] == perfdm::io::earliest_timestamp);
    CHECK(early.fcounters[POSIX_F_CLOSE_END_TIMESTAMP] == perfdm::io::earliest_timestamp);
    CHECK(early.fcounters[POSIX_F_WRITE_TIME] > 0);  // its times are kept whole
  }

  // The traces count from the same time 0: the early write at the earliest timestamp, the
  // writes after MPI_Init near 0.
  std::size_t early_writes = 0, late_writes = 0;
  for (const auto& t : log.traces) {
    const std::string name = log.name(t.id);
    for (const auto& w : t.writes) {
      if (name.find("/early-") != std::string::npos) {
        ++early_writes;
        CHECK(w.start == perfdm::io::earliest_timestamp);
      } else if (name.find("/rank-") != std::string::npos) {
        ++late_writes;
        CHECK(w.start > 0);
        CHECK(w.start < late);
      }
    }
  }
  CHECK(early_writes == 2);
  CHECK(late_writes > 0);

  // The heatmaps span the ranks' MPI time, not the sleep, and hold every byte, the early ones
  // in the first bin.
  std::size_t posix_heatmaps = 0;
  for (const auto& h : log.heatmaps) {
    if (log.name(h.id) != "heatmap:POSIX") continue;
    ++posix_heatmaps;
    INFO("heatmap of rank " << h.rank);
    REQUIRE(!h.write_bins.empty());
    CHECK(double(h.write_bins.size()) * h.bin_width_seconds < late);
    CHECK(h.write_bins[0] >= 100);
  }
  CHECK(posix_heatmaps == 2);
}
#endif

TEST_CASE("io: a job without MPI counts from its first process's start", "[io]") {
  scratch_dir d("nompi_time");
  const std::string first = d / "first.txt", second = d / "second.txt";
  for (const auto& f : {first, second}) {
    FILE* out = std::fopen(f.c_str(), "w");
    REQUIRE(out != nullptr);
    std::fputs("some bytes\n", out);
    std::fclose(out);
  }
  const std::string log_path = d / "run.log";
  const std::int64_t before = now_ns();
  const auto r = run({PERFDM_BINARY, "io", "-q", "-o", log_path, "--", "/bin/sh", "-c",
                      "cat " + first + " >/dev/null; sleep 0.5; cat " + second + " >/dev/null"});
  INFO(r.err);
  REQUIRE(r.exit_code() == 0);
  const auto log = perfdm::io::read_io_log(log_path);
  CHECK(log.job.start_ns >= before);
  CHECK(log.job.start_ns < before + 500000000);  // before the sleep: the first process's start
  CHECK(log.metadata("nprocs") != "");
  const auto a = posix_of(log, first), b = posix_of(log, second);
  CHECK(a.counters[POSIX_BYTES_READ] == 11);
  CHECK(b.counters[POSIX_BYTES_READ] == 11);
  CHECK(a.fcounters[POSIX_F_OPEN_START_TIMESTAMP] < 0.5);
  CHECK(b.fcounters[POSIX_F_OPEN_START_TIMESTAMP] >= 0.5);  // the sleep is in the job's time
}
